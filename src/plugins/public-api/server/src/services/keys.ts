/**
 * API keys: create, list, change, revoke, regenerate, delete, and authenticate a presented key.
 * Only an HMAC of each key is stored (contract section 4); the plaintext exists only in the return
 * value of create and regenerate.
 */
import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import type { Knex } from 'knex';
import type { KeyHoldings } from '../grants/content-manager';
import { formatIssues, type GrantIssue } from '../grants/resolve';
import type { KeyGrants } from '../grants/types';
import { displayPrefix, generateKey, hashKey, hashesEqual, parseKey } from '../keys/token';
import { API_KEY_UID, type ApiKey, type ApiKeyRow } from '../keys/types';
import { getService } from '../utils/get-service';
import { pluginConfig } from '../config';
import { MAX_SHARED_MAX_AGE_SECONDS, parseCachePolicy } from '../config/cache-policy';
import { MAX_REQUESTS, MAX_WINDOW_SECONDS, parseRateLimit } from '../config/rate-limits';
import { createLru } from '../utils/lru';
import { statementRunner } from '../database/runner';
import { connectionOf, inTransaction } from '../database/connection';
import type { Resource } from '../registry/types';
import { createReadModels } from '../read/model';
import { isoInstant } from '../values/iso-instant';

// SQLite gives epoch milliseconds (values/iso-instant.ts writes them three times faster than Date does).
const toIso = (value: string | number | Date | null): string | null =>
  value === null || value === undefined ? null : typeof value === 'number' ? isoInstant(value) : new Date(value).toISOString();

const asArray = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** A stored limit that no longer parses (edited by hand) counts as none: the default applies. */
const limitsOf = (value: unknown) => {
  if (value === null || value === undefined) return null;
  const parsed = parseRateLimit(value);
  return parsed.ok ? parsed.limit : null;
};

/** A stored cache policy that no longer parses (edited by hand) counts as none: the key is not cacheable. */
const cacheOf = (value: unknown) => {
  if (value === null || value === undefined) return null;
  const parsed = parseCachePolicy(value);
  return parsed.ok ? parsed.policy : null;
};

/** What a key row's JSON members say: its grants, rate limit and cache policy. */
type KeyDerived = Pick<ApiKey, 'grants' | 'limits' | 'cache'>;

const derivedOf = (row: Pick<ApiKeyRow, 'grants' | 'commands' | 'origins' | 'limits' | 'cache'>): KeyDerived => ({
  grants: {
    resources: (row.grants && typeof row.grants === 'object' ? row.grants : {}) as KeyGrants['resources'],
    commands: asArray(row.commands),
    origins: asArray(row.origins),
  },
  limits: limitsOf(row.limits),
  cache: cacheOf(row.cache),
});

/** `derived`: what the row's JSON members say, when it was taken from them already (`authenticate`). */
export const toApiKey = (row: ApiKeyRow, derived: KeyDerived = derivedOf(row)): ApiKey => ({
  id: row.id,
  documentId: row.documentId,
  keyId: row.keyId,
  name: row.name,
  description: row.description ?? null,
  prefix: displayPrefix(row.keyId),
  lastFour: row.lastFour,
  grants: derived.grants,
  limits: derived.limits,
  cache: derived.cache,
  // SQL reads of the row (`authenticate`) give SQLite's 0 or 1; null on rows older than the flag.
  preview: Boolean(row.preview),
  expiresAt: toIso(row.expiresAt),
  revoked: Boolean(row.revoked),
  lastUsedAt: toIso(row.lastUsedAt),
  createdAt: toIso(row.createdAt)!,
  updatedAt: toIso(row.updatedAt)!,
});

/** The members of a key row that `toApiKey` and `authenticate` read. */
const KEY_ROW_MEMBERS = [
  'id',
  'documentId',
  'keyId',
  'secretHash',
  'name',
  'description',
  'lastFour',
  'grants',
  'commands',
  'origins',
  'limits',
  'cache',
  'preview',
  'expiresAt',
  'revoked',
  'lastUsedAt',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof ApiKeyRow)[];
const JSON_MEMBERS = ['grants', 'commands', 'origins', 'limits', 'cache'] as const;

/** A row as SQL returns it (SQLite: JSON as text) -> as Strapi's query engine would. */
const keyRowOf = (raw: Record<string, unknown>): ApiKeyRow => {
  const row = { ...raw };
  for (const member of JSON_MEMBERS) {
    const value = row[member];
    if (typeof value !== 'string') continue;
    try {
      row[member] = JSON.parse(value);
    } catch {
      row[member] = null;
    }
  }
  return row as ApiKeyRow;
};

/**
 * The JSON members of a row as read, as one string: what `derivedOf` depends on, and all it depends on.
 * SQLite returns them as text (compared as is); PostgreSQL parsed (written back as text).
 */
const jsonTextsOf = (raw: Record<string, unknown>): string[] =>
  JSON_MEMBERS.map((member) => {
    const value = raw[member];
    return typeof value === 'string' ? value : JSON.stringify(value ?? null);
  });

/** Whether the members read now are the texts kept, compared one by one (no text of them all is built). */
const sameTexts = (kept: readonly string[], raw: Record<string, unknown>): boolean =>
  JSON_MEMBERS.every((member, index) => {
    const value = raw[member];
    return (typeof value === 'string' ? value : JSON.stringify(value ?? null)) === kept[index];
  });

/** How many keys' derived members are kept (keys in use at once; an evicted one is parsed again). */
export const DERIVED_KEYS_KEPT = 1000;
/** How many matching tokens' HMACs are kept (`authenticate`; an evicted one is hashed again). */
export const VERIFIED_TOKENS_KEPT = 1000;

export type KeyInput = {
  name: string;
  description?: string | null;
  expiresAt?: string | null;
  /** Grants as written by people (resolved against the registry), or `all` for a full snapshot. */
  grants: unknown | 'all';
  /** `{ requests, window }`, or null for the plugin config's default (contract section 13). */
  limits?: unknown;
  /** `{ sharedMaxAge }`, or null for a key whose responses are not shared (contract section 14). */
  cache?: unknown;
  /** Whether the key may read drafts (`status=draft`, contract section 15); false when absent on create. */
  preview?: boolean;
};

/**
 * Asked, once the input is valid and before anything is written, whether whoever changes the key may
 * take it from `before` (null: a new key) to `after`; throws to refuse (the admin's Content Manager
 * rights, services/admin-access.ts). Grants files and the key command pass none: they run as the operator.
 */
export type AuthorizeKey = (before: KeyHoldings | null, after: KeyHoldings) => Promise<void>;

/** Thrown with every issue of a rejected input; nothing has been written. */
export class KeyValidationError extends errors.ValidationError {
  constructor(public readonly issues: GrantIssue[]) {
    super(formatIssues(issues), {
      errors: issues.map((issue) => ({ path: issue.path.map(String), message: issue.message, name: 'ValidationError' })),
    });
  }
}

/**
 * A key's limit and cache policy in the words of the admin form that sets them (its labels: "Rate limit:
 * requests", "Rate limit: window (seconds)", "Shared cache: max age (seconds)"), in place of the parsers'
 * member names, which suit the plugin config they also check. The issue's path still names the member.
 */
const KEY_SETTING_MESSAGES: Record<string, string> = {
  'limits.requests': `The number of cost units per window is a whole number from 1 to ${MAX_REQUESTS}.`,
  'limits.window': `The rate limit window is a whole number of seconds from 1 to ${MAX_WINDOW_SECONDS}.`,
  'cache.sharedMaxAge': `The shared cache max age is a whole number of seconds from 1 to ${MAX_SHARED_MAX_AGE_SECONDS}.`,
};

const settingIssue = (member: 'limits' | 'cache', issue: { field: string; message: string }): GrantIssue => {
  const path = issue.field ? [member, issue.field] : [member];
  return { path, message: KEY_SETTING_MESSAGES[path.join('.')] ?? issue.message };
};

const validateMeta = (
  input: Pick<KeyInput, 'name' | 'description' | 'expiresAt' | 'limits' | 'cache' | 'preview'>,
  now: Date,
): GrantIssue[] => {
  const issues: GrantIssue[] = [];
  // Grants files and scripts reach here without the admin's body check: a flag is a boolean, never "yes".
  if (input.preview !== undefined && typeof input.preview !== 'boolean') {
    issues.push({ path: ['preview'], message: 'Preview is on or off (true or false).' });
  }
  if (input.cache !== undefined && input.cache !== null) {
    const parsed = parseCachePolicy(input.cache);
    if (!parsed.ok) issues.push(...parsed.issues.map((issue) => settingIssue('cache', issue)));
  }
  if (input.limits !== undefined && input.limits !== null) {
    const parsed = parseRateLimit(input.limits);
    if (!parsed.ok) issues.push(...parsed.issues.map((issue) => settingIssue('limits', issue)));
  }
  if (typeof input.name !== 'string' || input.name.trim() === '' || input.name.trim().length > 120) {
    issues.push({ path: ['name'], message: 'A key needs a name of 1 to 120 characters.' });
  }
  if (
    input.description !== undefined &&
    input.description !== null &&
    (typeof input.description !== 'string' || input.description.length > 2000)
  ) {
    issues.push({ path: ['description'], message: 'The description is text of at most 2000 characters.' });
  }
  if (input.expiresAt !== undefined && input.expiresAt !== null) {
    const time = Date.parse(input.expiresAt);
    if (Number.isNaN(time)) issues.push({ path: ['expiresAt'], message: `'${input.expiresAt}' is not a date.` });
    else if (time <= now.getTime()) issues.push({ path: ['expiresAt'], message: 'The expiry must be in the future.' });
  }
  return issues;
};

/** A key name as people tell names apart: trimmed, Unicode-normalized, case-folded. */
export const foldName = (name: string): string => name.trim().normalize('NFC').toLowerCase();

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const secret = () => pluginConfig(strapi).keySecret;
  const query = () => strapi.db.query(API_KEY_UID);
  const models = createReadModels(strapi);

  /**
   * The row of a key id through one prepared statement (database/statements.ts), on every request: a
   * revoked, regenerated, expired or changed key is seen on the very next one, on every instance. As SQL
   * returns it: JSON members unparsed.
   */
  const rawByKeyId = async (keyId: string): Promise<Record<string, unknown> | null> => {
    const model = models(API_KEY_UID);
    const [raw] = await statementRunner(strapi).rows('api-key-by-key-id', [keyId], (param) =>
      (strapi.db.connection as unknown as Knex)(model.table)
        .select(Object.fromEntries(KEY_ROW_MEMBERS.map((member) => [member, model.columns[member]!])))
        .where(model.columns.keyId!, param(0))
        .limit(1),
    );
    return raw ?? null;
  };

  /**
   * What a key's JSON members say, parsed once per text read (issue 16: parsing them was 1% of a
   * single-record read, and a new grants object each request made the key's projections new each
   * request). Kept per key id by the very text read on this request, so a change written by anyone is
   * parsed on the next request; nothing is kept that the row read now does not say.
   */
  const derived = createLru<string, { texts: string[]; derived: KeyDerived }>(DERIVED_KEYS_KEPT);
  const derivedFor = (keyId: string, raw: Record<string, unknown>): KeyDerived => {
    const kept = derived.get(keyId);
    if (kept && sameTexts(kept.texts, raw)) return kept.derived;
    const made = derivedOf(keyRowOf(raw));
    derived.set(keyId, { texts: jsonTextsOf(raw), derived: made });
    return made;
  };
  // Spend the same HMAC work on unknown key ids as on known ones.
  const decoyHash = () => hashKey(secret(), 'pdk_000000000000_decoy');

  /**
   * The HMAC of tokens that matched their key's stored hash, by token (issue 16: the HMAC was 23 us of a
   * single record's 630 us of CPU under load). Only a token that matched is kept, so whatever clients send
   * can only evict entries, never add them. The kept HMAC is still compared with the row read on this
   * request, in constant time: a regenerated, revoked or deleted key stops working on its next request as
   * before. The memo holds the plaintext of recently used keys, which the process holds anyway while it
   * answers them; a server secret changed in the config restarts the process and empties it.
   */
  const verified = createLru<string, string>(VERIFIED_TOKENS_KEPT);

  const resolveInput = async (grants: unknown): Promise<KeyGrants | GrantIssue[]> => {
    if (grants === 'all') return getService('grants').all();
    const resolved = await getService('grants').resolve(grants);
    return resolved.ok ? resolved.grants : resolved.issues;
  };

  const findRow = async (idOrKeyId: string | number): Promise<ApiKeyRow | null> => {
    const where =
      typeof idOrKeyId === 'number' || /^\d+$/.test(String(idOrKeyId))
        ? { id: Number(idOrKeyId) }
        : { $or: [{ keyId: String(idOrKeyId).replace(/^pdk_/, '') }, { documentId: String(idOrKeyId) }] };
    return (await query().findOne({ where })) as ApiKeyRow | null;
  };

  const requireRow = async (idOrKeyId: string | number): Promise<ApiKeyRow> => {
    const row = await findRow(idOrKeyId);
    if (!row) throw new errors.NotFoundError(`No key '${idOrKeyId}'.`);
    return row;
  };

  return {
    async create(input: KeyInput, authorize?: AuthorizeKey): Promise<{ key: ApiKey; plaintext: string }> {
      const issues = validateMeta(input, new Date());
      const grants = await resolveInput(input.grants);
      if (Array.isArray(grants)) issues.push(...grants);
      if (issues.length || Array.isArray(grants)) throw new KeyValidationError(issues);
      await authorize?.(null, { resources: grants.resources, preview: input.preview === true });
      const generated = generateKey();
      const row = (await query().create({
        data: {
          name: input.name.trim(),
          description: input.description ?? null,
          keyId: generated.keyId,
          secretHash: hashKey(secret(), generated.key),
          lastFour: generated.lastFour,
          grants: grants.resources,
          commands: grants.commands,
          origins: grants.origins,
          limits: input.limits ?? null,
          cache: input.cache ?? null,
          preview: input.preview === true,
          expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
          revoked: false,
        },
      })) as ApiKeyRow;
      return { key: toApiKey(row), plaintext: generated.key };
    },

    /**
     * The key other than `exceptId` whose name equals `name` once both are trimmed and case-folded, if
     * any: the admin tells keys apart by name, so it refuses a second "Shop frontend" (issue 33). The
     * keys table holds one row per key an operator made; names are compared here, not with SQL's LOWER,
     * which SQLite applies to ASCII letters only.
     */
    async withName(name: string, exceptId?: number): Promise<{ id: number; name: string } | null> {
      const wanted = foldName(name);
      if (wanted === '') return null;
      const rows = (await query().findMany({ select: ['id', 'name'] })) as Pick<ApiKeyRow, 'id' | 'name'>[];
      return rows.find((row) => row.id !== exceptId && foldName(row.name) === wanted) ?? null;
    },

    async list(): Promise<ApiKey[]> {
      const rows = (await query().findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })) as ApiKeyRow[];
      return rows.map((row) => toApiKey(row));
    },

    async findOne(idOrKeyId: string | number): Promise<ApiKey | null> {
      const row = await findRow(idOrKeyId);
      return row ? toApiKey(row) : null;
    },

    /**
     * Changes a key. A grant change that takes a resource out of the key's read grant plans, in the same
     * transaction, removals for its webhook endpoints (services/webhooks/grant-removals.ts); `former` are
     * resources the caller knew before the change that the registry may no longer hold (a website's).
     */
    async update(
      idOrKeyId: string | number,
      input: Partial<KeyInput>,
      former: readonly Resource[] = [],
      authorize?: AuthorizeKey,
    ): Promise<ApiKey> {
      const row = await requireRow(idOrKeyId);
      const merged = {
        name: input.name === undefined ? row.name : input.name,
        description: input.description,
        expiresAt: input.expiresAt,
        limits: input.limits,
        cache: input.cache,
        preview: input.preview,
      };
      // Everything is checked before anything is read from the input or written.
      const issues = validateMeta(merged, new Date());
      const grants = input.grants === undefined ? undefined : await resolveInput(input.grants);
      if (Array.isArray(grants)) issues.push(...grants);
      if (issues.length) throw new KeyValidationError(issues);
      if (authorize) {
        const current = toApiKey(row);
        await authorize(
          { resources: current.grants.resources, preview: current.preview },
          {
            resources: grants && !Array.isArray(grants) ? grants.resources : current.grants.resources,
            preview: input.preview ?? current.preview,
          },
        );
      }
      const data: Record<string, unknown> = {};
      if (typeof input.name === 'string') data.name = input.name.trim();
      if (input.description !== undefined) data.description = input.description;
      if (input.expiresAt !== undefined) data.expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
      if (input.limits !== undefined) data.limits = input.limits;
      if (input.cache !== undefined) data.cache = input.cache;
      if (input.preview !== undefined) data.preview = input.preview;
      if (grants && !Array.isArray(grants))
        Object.assign(data, { grants: grants.resources, commands: grants.commands, origins: grants.origins });
      const removals = getService('webhook-removals');
      const lost = grants && !Array.isArray(grants) ? await removals.lost(toApiKey(row).grants, grants, former) : [];
      const planned = await inTransaction(strapi, async () => {
        const updated = (await query().update({ where: { id: row.id }, data })) as ApiKeyRow;
        return { updated, removals: await removals.plan(connectionOf(strapi), row.id, lost) };
      });
      if (planned.removals > 0) getService('webhook-dispatcher').wake();
      return toApiKey(planned.updated);
    },

    async revoke(idOrKeyId: string | number): Promise<ApiKey> {
      const row = await requireRow(idOrKeyId);
      const updated = await inTransaction(strapi, async () => {
        await getService('webhook-removals').forgetKey(connectionOf(strapi), row.id);
        return (await query().update({ where: { id: row.id }, data: { revoked: true } })) as ApiKeyRow;
      });
      return toApiKey(updated);
    },

    /** A new secret for the same key; the old plaintext stops working on the next request. */
    async regenerate(idOrKeyId: string | number): Promise<{ key: ApiKey; plaintext: string }> {
      const row = await requireRow(idOrKeyId);
      const generated = generateKey(row.keyId);
      const updated = (await query().update({
        where: { id: row.id },
        data: { secretHash: hashKey(secret(), generated.key), lastFour: generated.lastFour },
      })) as ApiKeyRow;
      return { key: toApiKey(updated), plaintext: generated.key };
    },

    async remove(idOrKeyId: string | number): Promise<ApiKey> {
      const row = await requireRow(idOrKeyId);
      await inTransaction(strapi, async () => {
        await getService('webhook-removals').forgetKey(connectionOf(strapi), row.id);
        await query().delete({ where: { id: row.id } });
      });
      return toApiKey(row);
    },

    /**
     * The key a bearer token stands for, if it is well-formed, known, matches, is not revoked and has
     * not expired; otherwise null. Reads the database every time, so revocation and grant changes
     * apply on the next request on every instance.
     */
    async authenticate(token: string): Promise<ApiKey | null> {
      const parsed = parseKey(token);
      if (!parsed) return null;
      const raw = await rawByKeyId(parsed.keyId);
      // The members read here are not JSON; those `toApiKey` would parse come from `derivedFor`.
      const row = raw as ApiKeyRow | null;
      const kept = verified.get(token);
      const presented = kept ?? hashKey(secret(), token);
      const matches = hashesEqual(presented, row ? row.secretHash : decoyHash());
      if (!matches) {
        // A kept token whose key was regenerated or deleted since.
        if (kept !== undefined) verified.delete(token);
        return null;
      }
      if (kept === undefined) verified.set(token, presented);
      if (!row || row.revoked) return null;
      if (row.expiresAt && new Date(row.expiresAt).getTime() <= Date.now()) return null;
      const key = toApiKey(row, derivedFor(row.keyId, raw!));
      getService('last-used').touch(key);
      return key;
    },

    /** Whether any usable key allows a browser origin: what a CORS preflight (which has no key) can know. */
    async anyKeyAllowsOrigin(origin: string, allowed: (rules: string[], origin: string) => boolean): Promise<boolean> {
      const rows = (await query().findMany({
        select: ['origins', 'expiresAt'],
        where: { revoked: false },
      })) as Pick<ApiKeyRow, 'origins' | 'expiresAt'>[];
      const now = Date.now();
      return rows.some((row) => (!row.expiresAt || new Date(row.expiresAt).getTime() > now) && allowed(asArray(row.origins), origin));
    },
  };
};

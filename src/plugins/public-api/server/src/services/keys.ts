/**
 * API keys: create, list, change, revoke, regenerate, delete, and authenticate a presented key.
 * Only an HMAC of each key is stored (contract section 4); the plaintext exists only in the return
 * value of create and regenerate. What a stored row says is keys/key-row.ts, what an operator gives a
 * key and its checks keys/key-input.ts.
 */
import type { Core } from '@strapi/strapi';
import { errors } from '@strapi/utils';
import type { Knex } from 'knex';
import type { GrantIssue } from '../grants/resolve';
import type { KeyGrants } from '../grants/types';
import { KeyValidationError, foldName, validateMeta, type AuthorizeKey, type KeyInput } from '../keys/key-input';
import { KEY_ROW_MEMBERS, asArray, derivedOf, jsonTextsOf, keyRowOf, sameTexts, toApiKey, type KeyDerived } from '../keys/key-row';
import { generateKey, hashKey, hashesEqual, parseKey } from '../keys/token';
import { API_KEY_UID, type ApiKey, type ApiKeyRow } from '../keys/types';
import { getService } from '../utils/get-service';
import { pluginConfig } from '../config';
import { createLru } from '../utils/lru';
import { statementRunner } from '../database/runner';
import { connectionOf, inTransaction } from '../database/connection';
import type { Resource } from '../registry/types';
import { createReadModels } from '../read/model';

export type { AuthorizeKey, KeyInput } from '../keys/key-input';

/** How many keys' derived members are kept (keys in use at once; an evicted one is parsed again). */
export const DERIVED_KEYS_KEPT = 1000;
/** How many matching tokens' HMACs are kept (`authenticate`; an evicted one is hashed again). */
export const VERIFIED_TOKENS_KEPT = 1000;

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

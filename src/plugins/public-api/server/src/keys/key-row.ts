/**
 * A stored key row and the key it stands for: what its JSON members say (grants, rate limit, cache
 * policy), read as Strapi's query engine would (SQLite gives JSON as text), and the texts of those
 * members, by which the keys service keeps what it parsed. Pure.
 */
import type { KeyGrants } from '../grants/types';
import { parseCachePolicy } from '../config/cache-policy';
import { parseRateLimit } from '../config/rate-limits';
import { isoInstant } from '../values/iso-instant';
import { displayPrefix } from './token';
import type { ApiKey, ApiKeyRow } from './types';

// SQLite gives epoch milliseconds (values/iso-instant.ts writes them three times faster than Date does).
const toIso = (value: string | number | Date | null): string | null =>
  value === null || value === undefined ? null : typeof value === 'number' ? isoInstant(value) : new Date(value).toISOString();

export const asArray = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

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
export type KeyDerived = Pick<ApiKey, 'grants' | 'limits' | 'cache'>;

export const derivedOf = (row: Pick<ApiKeyRow, 'grants' | 'commands' | 'origins' | 'limits' | 'cache'>): KeyDerived => ({
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
export const KEY_ROW_MEMBERS = [
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
export const keyRowOf = (raw: Record<string, unknown>): ApiKeyRow => {
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
export const jsonTextsOf = (raw: Record<string, unknown>): string[] =>
  JSON_MEMBERS.map((member) => {
    const value = raw[member];
    return typeof value === 'string' ? value : JSON.stringify(value ?? null);
  });

/** Whether the members read now are the texts kept, compared one by one (no text of them all is built). */
export const sameTexts = (kept: readonly string[], raw: Record<string, unknown>): boolean =>
  JSON_MEMBERS.every((member, index) => {
    const value = raw[member];
    return (typeof value === 'string' ? value : JSON.stringify(value ?? null)) === kept[index];
  });

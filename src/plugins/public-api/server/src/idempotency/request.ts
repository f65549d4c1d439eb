/**
 * Idempotency-Key (contract section 7), what is stored: the fingerprint of a request and of the key's
 * grants, the scope a key is stored under, how long, and which answers are kept. Pure.
 */
import { createHash } from 'node:crypto';

/** How long a stored answer is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** JSON with object members in code point order, so that member order and spacing never matter. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};

/**
 * SHA-256 over method, path, query and body. The query counts as its set of parameters (order does not
 * matter), the body as its JSON value (spacing and member order do not matter); a different value of
 * anything is a different request.
 */
export const requestFingerprint = (input: { method: string; path: string; query: URLSearchParams; body: unknown }): string => {
  const parameters = [...input.query.entries()].sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return sha256(canonicalJson([input.method.toUpperCase(), input.path, parameters, input.body ?? null]));
};

/**
 * The key's grants when the answer was made. A replay shows what the key could read then; when its
 * grants have changed since, the answer is not replayed (grant changes apply to the very next request).
 */
export const grantsFingerprint = (grants: unknown): string => sha256(canonicalJson(grants));

/** What a stored answer is filed under: one API key, one method, one path, one Idempotency-Key. */
export const idempotencyScope = (input: { apiKey: number | string; method: string; path: string; idempotencyKey: string }): string =>
  sha256(JSON.stringify([String(input.apiKey), input.method.toUpperCase(), input.path, input.idempotencyKey]));

/**
 * Answers that are stored and replayed. Refusals that come before the handler acts (the request was
 * not acceptable as such: 400, 401, 403, 404, 405, 413, 415, 429) are not, so a corrected retry with the
 * same key is judged afresh; nor is a failed If-Match (412: nothing was written, and the client's next
 * step is to read the record and retry with its new ETag, under the same key); server errors are not
 * either (the claim is released for a retry).
 */
export const NOT_STORED_STATUSES: ReadonlySet<number> = new Set([400, 401, 403, 404, 405, 412, 413, 415, 429]);

export const isStoredStatus = (status: number): boolean => status < 500 && !NOT_STORED_STATUSES.has(status);

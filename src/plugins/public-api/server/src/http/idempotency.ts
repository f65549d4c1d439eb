/**
 * Idempotency-Key (contract section 7), the pure parts: the header, the fingerprint of a request, the
 * scope a key is stored under, and which answers are kept.
 */
import { createHash } from 'node:crypto';
import { apiError } from './errors';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** How long a stored answer is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * The header's value, as a JSON Schema/ECMAScript pattern the OpenAPI document serves: a quoted key
 * (`"` + 1 to 255 printable characters + `"`), or a bare one (1 to 255 printable characters that are not
 * the quoted shape). A bare key may hold `"` (it is printable ASCII): `a"b`, `"abc` and `"` are keys.
 * `parseIdempotencyKey` accepts exactly the values this matches (a property test holds them together).
 */
export const IDEMPOTENCY_KEY_PATTERN =
  '^(?:"[\\x20-\\x7E]{1,255}"|[\\x20\\x21\\x23-\\x7E][\\x20-\\x7E]{0,254}|[\\x20-\\x7E]{0,254}[\\x20\\x21\\x23-\\x7E]|")$';

const PRINTABLE = /^[\x20-\x7e]+$/;

const invalidKey = () =>
  apiError(400, `Idempotency-Key must be sent once, as 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters, bare or in double quotes.`, {
    source: { header: 'Idempotency-Key' },
    reason: 'idempotency_key_invalid',
  });

/**
 * The header's value -> the key, or null when the header is absent. A value that starts and ends with
 * `"` is quoted: the key is what lies between (`"abc"` and `abc` are the same key; nothing inside is
 * unescaped). Any other value is the key itself. The key is 1 to 255 printable ASCII characters;
 * anything else is 400, and so is the header sent twice (the request names two keys: which would count?).
 * The value is taken as received: HTTP itself strips spaces around it.
 */
export const parseIdempotencyKey = (raw: string | string[] | undefined): string | null => {
  if (raw === undefined) return null;
  if (Array.isArray(raw)) {
    if (raw.length !== 1) throw invalidKey();
    return parseIdempotencyKey(raw[0]);
  }
  const quoted = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"');
  const key = quoted ? raw.slice(1, -1) : raw;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !PRINTABLE.test(key)) throw invalidKey();
  return key;
};

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
 * same key is judged afresh; server errors are not either (the claim is released for a retry).
 */
export const NOT_STORED_STATUSES: ReadonlySet<number> = new Set([400, 401, 403, 404, 405, 413, 415, 429]);

export const isStoredStatus = (status: number): boolean => status < 500 && !NOT_STORED_STATUSES.has(status);

/**
 * The Idempotency-Key header (contract section 7): its names, its pattern and its parsing. Pure. What a
 * key is stored under and what is kept is `idempotency/request.ts`'s.
 */
import { apiError } from './errors';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

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
  apiError(
    400,
    `Idempotency-Key must be sent once, as 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters, bare or in double quotes.`,
    {
      source: { header: 'Idempotency-Key' },
      reason: 'idempotency_key_invalid',
    },
  );

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

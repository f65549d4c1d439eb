/**
 * Idempotency-Key (contract section 7: "1 to 255 printable ASCII characters, quoted or bare"): the
 * pattern the served OpenAPI document gives the header and the parser the server runs accept exactly the
 * same values, and a quoted value names the same key as the bare one.
 */
import fc from 'fast-check';
import { allGrants } from '../../src/plugins/public-api/server/src/grants/resolve';
import { ApiError } from '../../src/plugins/public-api/server/src/http/errors';
import { MAX_IDEMPOTENCY_KEY_LENGTH, parseIdempotencyKey } from '../../src/plugins/public-api/server/src/http/idempotency';
import { buildOpenApiDocument } from '../../src/plugins/public-api/server/src/openapi/document';
import { demoResources } from '../helpers/registry';

const resources = demoResources();
const document = buildOpenApiDocument({
  baseUrl: 'https://api.example.org/api/v2',
  grants: allGrants(resources, []),
  resources,
  locales: ['en'],
  commands: [],
});
const parameter = document.components.parameters.IdempotencyKey as unknown as { name: string; schema: { type: string; pattern: string } };
// OpenAPI patterns are ECMA-262 regular expressions, unanchored unless they anchor themselves.
const documented = new RegExp(parameter.schema.pattern, 'u');

const accepted = (value: string): boolean => {
  try {
    parseIdempotencyKey(value);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) return false;
    throw error;
  }
};

/** Header values made of the characters that matter: quotes, edges of the printable range, non-ASCII. */
const character = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('"', 'a', 'Z', '0', ' ', '~', '!', '#', '\\') },
  { weight: 2, arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)) },
  { weight: 1, arbitrary: fc.constantFrom('\t', '\x7f', '\x1f', '\0', 'ä', '€', '\u{1F600}') },
);
const text = (maxLength: number) => fc.array(character, { maxLength }).map((chars) => chars.join(''));
/** Lengths around the limit too: 253 to 258 characters, quoted or not. */
const longText = fc
  .tuple(fc.integer({ min: MAX_IDEMPOTENCY_KEY_LENGTH - 2, max: MAX_IDEMPOTENCY_KEY_LENGTH + 3 }), text(3))
  .map(([length, tail]) => 'k'.repeat(Math.max(0, length - tail.length)) + tail);
const headerValue = fc.oneof(
  text(12),
  text(12).map((inner) => `"${inner}"`),
  longText,
  longText.map((inner) => `"${inner}"`),
  fc.string({ maxLength: 300 }),
);

test('the document types the header as a string with a pattern', () => {
  expect(parameter).toMatchObject({ name: 'Idempotency-Key', schema: { type: 'string' } });
});

test('every value the documented pattern allows is accepted by the parser, and no other', () => {
  fc.assert(
    fc.property(headerValue, (value) => {
      expect({ value, accepted: accepted(value) }).toEqual({ value, accepted: documented.test(value) });
    }),
    { numRuns: 5000 },
  );
});

test('a quoted key and the bare key are the same key; the key is 1 to 255 printable characters', () => {
  fc.assert(
    fc.property(text(12), (key) => {
      if (!accepted(`"${key}"`)) return;
      expect(parseIdempotencyKey(`"${key}"`)).toBe(key);
      expect(key.length).toBeGreaterThanOrEqual(1);
      expect(key.length).toBeLessThanOrEqual(MAX_IDEMPOTENCY_KEY_LENGTH);
      expect(key).toMatch(/^[\x20-\x7e]+$/);
    }),
  );
});

test.each([
  ['a"b', 'a"b'],
  ['"abc', '"abc'],
  ['abc"', 'abc"'],
  ['"', '"'],
  ['"a"b"', 'a"b'],
  ['""', null],
  ['', null],
])('%j -> %j', (value, key) => {
  expect(documented.test(value)).toBe(key !== null);
  if (key === null) expect(accepted(value)).toBe(false);
  else expect(parseIdempotencyKey(value)).toBe(key);
});

test('sent twice is refused, whatever the values; sent once as a list of one is the value', () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom('a', 'b', '"a"'), { minLength: 2, maxLength: 4 }), (values) => {
      expect(() => parseIdempotencyKey(values)).toThrow(ApiError);
    }),
  );
  expect(parseIdempotencyKey(['abc'])).toBe('abc');
});

/**
 * Signed keyset cursors: what they carry, what they are bound to, and that no change to a token passes.
 */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { isApiError, type ErrorObject } from '../../src/plugins/public-api/server/src/http/errors';
import {
  CURSOR_CLOCK_SKEW_MS,
  CURSOR_MAX_AGE_MS,
  MAX_CURSOR_LENGTH,
  decodeCursor,
  deriveCursorKey,
  encodeCursor,
  queryFingerprint,
  type CursorExpectation,
  type CursorPayload,
} from '../../src/plugins/public-api/server/src/query/cursor';
import { parseCollectionQuery } from '../../src/plugins/public-api/server/src/query/parse';
import type { QueryVocabulary } from '../../src/plugins/public-api/server/src/query/types';

const SECRET = 'a-server-secret-of-at-least-32-characters!';
const key = deriveCursorKey(SECRET);
const NOW = Date.UTC(2025, 4, 1, 12);

const payload = (overrides: Partial<CursorPayload> = {}): CursorPayload => ({
  keyId: 'AbCdEf123456',
  resourceId: 'native:events',
  fingerprint: 'fp-1',
  issuedAt: NOW - 1000,
  position: { values: ['Jazz night', 12.5, null], id: 42 },
  ...overrides,
});

const expectation = (overrides: Partial<CursorExpectation> = {}): CursorExpectation => ({
  keyId: 'AbCdEf123456',
  resourceId: 'native:events',
  fingerprint: 'fp-1',
  sortLength: 3,
  now: NOW,
  ...overrides,
});

const rejection = (run: () => unknown): ErrorObject => {
  try {
    run();
  } catch (error) {
    if (!isApiError(error)) throw error;
    expect(error.status).toBe(400);
    expect(error.errors).toHaveLength(1);
    expect(error.errors[0]!.source).toEqual({ parameter: 'cursor' });
    return error.errors[0]!;
  }
  throw new Error('Expected the cursor to be rejected');
};

const reasonOf = (run: () => unknown) => rejection(run).meta?.reason;

/** The reason of a cursor rejection, or 'accepted': without jest's matchers, for the big loops. */
const quietReason = (run: () => unknown): string | undefined => {
  try {
    run();
    return 'accepted';
  } catch (error) {
    return isApiError(error) &&
      error.errors[0]?.source &&
      'parameter' in error.errors[0].source &&
      error.errors[0].source.parameter === 'cursor'
      ? error.errors[0].meta?.reason
      : 'unexpected error';
  }
};

/** Signs arbitrary bytes as a cursor would be signed: to test what a valid signature over junk does. */
const signRaw = (text: string) => {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([bytes, createHmac('sha256', key.bytes).update(bytes).digest()]).toString('base64url');
};

describe('encode and decode', () => {
  it('gives back the payload it was given', () => {
    const token = encodeCursor(payload(), key);
    expect(decodeCursor(token, key, expectation())).toEqual(payload());
  });

  it('writes canonical base64url without padding', () => {
    expect(encodeCursor(payload(), key)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('accepts a cursor exactly 24 hours old and one from within the clock skew', () => {
    const token = encodeCursor(payload({ issuedAt: NOW - CURSOR_MAX_AGE_MS }), key);
    expect(decodeCursor(token, key, expectation()).issuedAt).toBe(NOW - CURSOR_MAX_AGE_MS);
    const early = encodeCursor(payload({ issuedAt: NOW + CURSOR_CLOCK_SKEW_MS }), key);
    expect(decodeCursor(early, key, expectation()).issuedAt).toBe(NOW + CURSOR_CLOCK_SKEW_MS);
  });

  it('refuses to put anything but JSON scalars in a cursor', () => {
    const bad = (values: unknown[]) => () => encodeCursor(payload({ position: { values: values as never, id: 1 } }), key);
    expect(bad([new Date()])).toThrow(TypeError);
    expect(bad([Number.NaN])).toThrow(TypeError);
    expect(bad([{ a: 1 }])).toThrow(TypeError);
    expect(bad([undefined])).toThrow(TypeError);
    expect(() => encodeCursor(payload({ issuedAt: 1.5 }), key)).toThrow(TypeError);
  });

  it('refuses to produce a token longer than decoding accepts', () => {
    const values = ['x'.repeat(MAX_CURSOR_LENGTH), null, null];
    expect(() => encodeCursor(payload({ position: { values, id: 1 } }), key)).toThrow(RangeError);
  });
});

describe('what a cursor is bound to', () => {
  const token = encodeCursor(payload(), key);

  it('rejects a cursor of another key', () => {
    expect(reasonOf(() => decodeCursor(token, key, expectation({ keyId: 'ZZZZZZ123456' })))).toBe('cursor_mismatch');
  });

  it('rejects a cursor of another resource', () => {
    expect(reasonOf(() => decodeCursor(token, key, expectation({ resourceId: 'cms:site/pages' })))).toBe('cursor_mismatch');
  });

  it('rejects a cursor of another query', () => {
    expect(reasonOf(() => decodeCursor(token, key, expectation({ fingerprint: 'fp-2' })))).toBe('cursor_mismatch');
  });

  it('rejects a cursor issued more than 24 hours ago', () => {
    const error = rejection(() => decodeCursor(token, key, expectation({ now: NOW - 1000 + CURSOR_MAX_AGE_MS + 1 })));
    expect(error.meta?.reason).toBe('cursor_expired');
  });

  it('rejects a cursor issued in the future beyond the clock skew', () => {
    const future = encodeCursor(payload({ issuedAt: NOW + CURSOR_CLOCK_SKEW_MS + 1 }), key);
    expect(reasonOf(() => decodeCursor(future, key, expectation()))).toBe('cursor_invalid');
  });

  it('rejects a cursor signed with another server secret', () => {
    const other = encodeCursor(payload(), deriveCursorKey(`${SECRET}-rotated`));
    expect(reasonOf(() => decodeCursor(other, key, expectation()))).toBe('cursor_invalid');
  });

  it('uses a key derived for cursors, not the server secret itself', () => {
    const bytes = Buffer.from(JSON.stringify([1, 'AbCdEf123456', 'native:events', 'fp-1', NOW, ['a', 1, null], 42]));
    const signedWithSecret = Buffer.concat([bytes, createHmac('sha256', SECRET).update(bytes).digest()]).toString('base64url');
    expect(reasonOf(() => decodeCursor(signedWithSecret, key, expectation()))).toBe('cursor_invalid');
  });

  it('rejects a payload whose number of sort values does not match the sort', () => {
    expect(reasonOf(() => decodeCursor(token, key, expectation({ sortLength: 2 })))).toBe('cursor_invalid');
    expect(reasonOf(() => decodeCursor(token, key, expectation({ sortLength: 4 })))).toBe('cursor_invalid');
  });

  it.each([
    ['an object', JSON.stringify({ keyId: 'AbCdEf123456' })],
    ['another version', JSON.stringify([2, 'AbCdEf123456', 'native:events', 'fp-1', NOW, ['a', 1, null], 42])],
    ['a fractional time', JSON.stringify([1, 'AbCdEf123456', 'native:events', 'fp-1', NOW + 0.5, ['a', 1, null], 42])],
    ['a nested value', JSON.stringify([1, 'AbCdEf123456', 'native:events', 'fp-1', NOW, [['a'], 1, null], 42])],
    ['a null id', JSON.stringify([1, 'AbCdEf123456', 'native:events', 'fp-1', NOW, ['a', 1, null], null])],
    ['an infinite value', `[1,"AbCdEf123456","native:events","fp-1",${NOW},[1e400,1,null],42]`],
    ['a missing member', JSON.stringify([1, 'AbCdEf123456', 'native:events', 'fp-1', NOW, ['a', 1, null]])],
    ['not JSON', '[1,"AbCdEf123456"'],
  ])('rejects a correctly signed payload of the wrong shape: %s', (_, text) => {
    expect(reasonOf(() => decodeCursor(signRaw(text), key, expectation()))).toBe('cursor_invalid');
  });

  it.each(['', 'a', '!!!!', 'abc=', 'YWJj', ' ' + encodeCursor(payload(), key)])('rejects the junk %j', (text) => {
    expect(reasonOf(() => decodeCursor(text, key, expectation()))).toBe('cursor_invalid');
  });

  it('rejects an over-long token before decoding it', () => {
    const error = rejection(() => decodeCursor('A'.repeat(MAX_CURSOR_LENGTH + 1), key, expectation()));
    expect(error).toMatchObject({ detail: 'The cursor is too long.', meta: { reason: 'cursor_invalid' } });
  });
});

describe('tampering', () => {
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const OTHERS = ['=', '+', '/', '.', ' ', '%', 'é', '\u0000'];

  const scalar = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'binary', maxLength: 10 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  );
  const payloads = fc.record({
    keyId: fc.string({ minLength: 1, maxLength: 12 }),
    resourceId: fc.string({ minLength: 1, maxLength: 30 }),
    fingerprint: fc.base64String({ maxLength: 22 }),
    issuedAt: fc.integer({ min: NOW - CURSOR_MAX_AGE_MS, max: NOW }),
    position: fc.record({ values: fc.array(scalar, { maxLength: 4 }), id: fc.oneof(fc.nat(), fc.uuid()) }),
  });
  const expected = (p: CursorPayload): CursorExpectation => ({
    keyId: p.keyId,
    resourceId: p.resourceId,
    fingerprint: p.fingerprint,
    sortLength: p.position.values.length,
    now: NOW,
  });

  it('decodes every random payload it encodes', () => {
    fc.assert(
      fc.property(payloads, (p) => {
        const decoded = decodeCursor(encodeCursor(p, key), key, expected(p));
        // JSON has no -0; everything else comes back as it went in.
        expect(decoded).toEqual(JSON.parse(JSON.stringify(p)));
      }),
      { numRuns: 300 },
    );
  });

  it('rejects every single-character substitution at every position', () => {
    fc.assert(
      fc.property(payloads, (p) => {
        const token = encodeCursor(p, key);
        const accepted: string[] = [];
        for (let index = 0; index < token.length; index += 1) {
          for (const replacement of [...ALPHABET, ...OTHERS]) {
            if (replacement === token[index]) continue;
            const tampered = token.slice(0, index) + replacement + token.slice(index + 1);
            // Plain checks here: hundreds of thousands of expect() calls would take minutes.
            if (quietReason(() => decodeCursor(tampered, key, expected(p))) !== 'cursor_invalid') accepted.push(tampered);
          }
        }
        expect(accepted).toEqual([]);
      }),
      { numRuns: 25 },
    );
  });

  it('rejects every truncation and extension', () => {
    fc.assert(
      fc.property(payloads, fc.constantFrom(...ALPHABET, ...OTHERS), (p, extra) => {
        const token = encodeCursor(p, key);
        const accepted = Array.from({ length: token.length }, (_, length) => token.slice(0, length)).filter(
          (prefix) => quietReason(() => decodeCursor(prefix, key, expected(p))) !== 'cursor_invalid',
        );
        expect(accepted).toEqual([]);
        expect(reasonOf(() => decodeCursor(token + extra, key, expected(p)))).toBe('cursor_invalid');
        expect(reasonOf(() => decodeCursor(extra + token, key, expected(p)))).toBe('cursor_invalid');
        expect(reasonOf(() => decodeCursor(`${token}==`, key, expected(p)))).toBe('cursor_invalid');
      }),
      { numRuns: 100 },
    );
  });

  it('rejects a last character that Node would decode to the same bytes', () => {
    // Find a token whose length leaves unused bits in its last character, and set one of them.
    const token = [0, 1, 2, 3]
      .map((extra) => encodeCursor(payload({ keyId: `AbCdEf123456${'x'.repeat(extra)}` }), key))
      .find((candidate) => candidate.length % 4 !== 0)!;
    const last = ALPHABET.indexOf(token.at(-1)!);
    const twin = token.slice(0, -1) + ALPHABET[last | 1]!;
    expect(twin).not.toBe(token);
    expect(Buffer.from(twin, 'base64url').equals(Buffer.from(token, 'base64url'))).toBe(true);
    const keyId = JSON.parse(Buffer.from(token, 'base64url').subarray(0, -32).toString())[1];
    expect(() => decodeCursor(token, key, expectation({ keyId }))).not.toThrow();
    expect(reasonOf(() => decodeCursor(twin, key, expectation({ keyId })))).toBe('cursor_invalid');
  });
});

describe('queryFingerprint', () => {
  const vocabulary: QueryVocabulary = {
    sortable: new Set(['title', 'price', 'sort']),
    filterable: new Map([
      ['title', { type: 'string' }],
      ['price', { type: 'number' }],
    ]),
    include: new Map([['venue', new Map()]]),
    records: { type: 'events', fields: new Set(['title', 'price']), include: new Map() },
    locales: ['en', 'fr'],
  };
  const fingerprintOf = (text: string) => queryFingerprint(parseCollectionQuery(new URLSearchParams(text), vocabulary));

  it('is the same for the same rows in the same order, however they were asked for', () => {
    const base = fingerprintOf('sort=title,-price&filter[title]=a&filter[price][in]=1,2&locale=fr');
    expect(fingerprintOf('filter[price][in]=2,1&locale=FR&filter[title][eq]=a&sort=title,-price')).toBe(base);
    expect(fingerprintOf('sort=title,-price&filter[title]=a&filter[price][in]=1,2&locale=fr&limit=5&include=venue')).toBe(base);
    expect(fingerprintOf('')).toBe(fingerprintOf('sort=sort'));
  });

  it.each([
    'sort=title,price&filter[title]=a&filter[price][in]=1,2&locale=fr',
    'sort=-price,title&filter[title]=a&filter[price][in]=1,2&locale=fr',
    'sort=title,-price&filter[title]=b&filter[price][in]=1,2&locale=fr',
    'sort=title,-price&filter[title][ne]=a&filter[price][in]=1,2&locale=fr',
    'sort=title,-price&filter[title]=a&filter[price][in]=1,3&locale=fr',
    'sort=title,-price&filter[title]=a&filter[price][in]=1,2&locale=en',
    'sort=title,-price&filter[title]=a&filter[price][in]=1,2',
    'sort=title,-price&filter[price][in]=1,2&locale=fr',
  ])('differs for %s', (text) => {
    expect(fingerprintOf(text)).not.toBe(fingerprintOf('sort=title,-price&filter[title]=a&filter[price][in]=1,2&locale=fr'));
  });

  it('binds the status: a draft read and a published read never share a cursor', () => {
    const published = fingerprintOf('sort=title&locale=fr');
    expect(fingerprintOf('sort=title&locale=fr&status=draft')).not.toBe(published);
    // A published read's fingerprint is what it was before status existed (its cursors stay valid).
    expect(fingerprintOf('sort=title&locale=fr&status=published')).toBe(published);
    expect(queryFingerprint({ sort: [{ key: 'title', direction: 'asc' }], filters: [], locale: 'fr' })).toBe(published);
  });

  it('tells a string from a number of the same spelling', () => {
    const asString = queryFingerprint({
      sort: [],
      locale: null,
      filters: [{ parameter: 'filter[a]', field: 'a', type: 'string', op: 'eq', value: '1' }],
    });
    const asNumber = queryFingerprint({
      sort: [],
      locale: null,
      filters: [{ parameter: 'filter[a]', field: 'a', type: 'number', op: 'eq', value: 1 }],
    });
    expect(asString).not.toBe(asNumber);
  });
});

import fc from 'fast-check';
import { bearerToken, generateKey, hashKey, hashesEqual, parseKey, randomBase62 } from '../../src/plugins/public-api/server/src/keys/token';

test('generated keys have the contract format and parse back', () => {
  for (let i = 0; i < 200; i += 1) {
    const { key, keyId, lastFour } = generateKey();
    expect(key).toMatch(/^pdk_[0-9A-Za-z]{12}_[0-9A-Za-z]{40}$/);
    expect(parseKey(key)).toEqual({ keyId, secret: key.split('_')[2] });
    expect(lastFour).toBe(key.slice(-4));
  }
});

test('base62 symbols are roughly uniform (no modulo bias)', () => {
  const counts = new Map<string, number>();
  for (const char of randomBase62(62 * 2000)) counts.set(char, (counts.get(char) ?? 0) + 1);
  expect(counts.size).toBe(62);
  for (const count of counts.values()) expect(Math.abs(count - 2000)).toBeLessThan(300);
});

test('parseKey accepts only the exact format', () => {
  fc.assert(
    fc.property(fc.string(), (text) => {
      const parsed = parseKey(text);
      if (parsed) expect(text).toBe(`pdk_${parsed.keyId}_${parsed.secret}`);
    }),
  );
  expect(parseKey('pdk_short_' + 'a'.repeat(40))).toBeNull();
  expect(parseKey('pdk_ABCDEFGHIJKL_' + 'a'.repeat(31))).toBeNull();
  expect(parseKey('pdk_ABCDEFGHIJKL_' + 'a'.repeat(32) + '!')).toBeNull();
});

test('hashes are keyed by the server secret and compared safely', () => {
  const { key } = generateKey();
  const a = hashKey('secret-one-0123456789abcdef0123456789', key);
  expect(a).toMatch(/^[0-9a-f]{64}$/);
  expect(hashesEqual(a, hashKey('secret-one-0123456789abcdef0123456789', key))).toBe(true);
  expect(hashesEqual(a, hashKey('secret-two-0123456789abcdef0123456789', key))).toBe(false);
  expect(hashesEqual(a, '')).toBe(false);
  expect(hashesEqual(a, 'zz')).toBe(false);
});

test('bearer tokens', () => {
  expect(bearerToken('Bearer abc')).toBe('abc');
  expect(bearerToken('bearer   abc  ')).toBe('abc');
  expect(bearerToken('Bearer')).toBeNull();
  expect(bearerToken('Bearer a b')).toBeNull();
  expect(bearerToken('Basic abc')).toBeNull();
  expect(bearerToken(undefined)).toBeNull();
});

/**
 * The address a client is counted by (http/client-address.ts, issue 33): IPv4 as it is, IPv6 by its /64,
 * IPv4-mapped IPv6 as IPv4, whatever way the address is written.
 */
import fc from 'fast-check';
import { clientAddressKey } from '../../src/plugins/public-api/server/src/http/client-address';

const group = fc.integer({ min: 0, max: 0xffff });
const groups = fc.array(group, { minLength: 8, maxLength: 8 });
const hex = (value: number) => value.toString(16);

/** An address's eight groups written in full, with leading zeros and in upper case. */
const longForm = (parts: number[]) => parts.map((part) => hex(part).padStart(4, '0').toUpperCase()).join(':');
/** The same address with its longest run of zero groups (two or more) written as `::`. */
const shortForm = (parts: number[]) => {
  let best = { start: -1, length: 0 };
  for (let start = 0; start < 8; start += 1) {
    let length = 0;
    while (start + length < 8 && parts[start + length] === 0) length += 1;
    if (length > best.length) best = { start, length };
  }
  if (best.length < 2) return parts.map(hex).join(':');
  return `${parts.slice(0, best.start).map(hex).join(':')}::${parts
    .slice(best.start + best.length)
    .map(hex)
    .join(':')}`;
};
const isMapped = (parts: number[]) => parts.slice(0, 5).every((part) => part === 0) && parts[5] === 0xffff;

test('IPv4 is counted as it is', () => {
  expect(clientAddressKey('192.0.2.1')).toBe('192.0.2.1');
  fc.assert(fc.property(fc.ipV4(), (address) => clientAddressKey(address) === address));
});

test('IPv6 is counted by its /64, however it is written', () => {
  expect(clientAddressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
  expect(clientAddressKey('2001:DB8:0000:0000:ffff:ffff:ffff:ffff')).toBe('2001:db8:0:0::/64');
  expect(clientAddressKey('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
  expect(clientAddressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  fc.assert(
    fc.property(groups, groups, (a, b) => {
      fc.pre(!isMapped(a) && !isMapped(b));
      const key = clientAddressKey(shortForm(a));
      // Written in full or shortened, the same address is the same client.
      expect(clientAddressKey(longForm(a))).toBe(key);
      // Two addresses share a key exactly when their first 64 bits are the same.
      const samePrefix = a.slice(0, 4).every((part, index) => part === b[index]);
      expect(clientAddressKey(shortForm(b)) === key).toBe(samePrefix);
      // The rest of the /64 never changes the key.
      expect(clientAddressKey(shortForm([...a.slice(0, 4), ...b.slice(4)]))).toBe(key);
    }),
  );
});

test('IPv4-mapped IPv6 is counted as its IPv4 address, dotted or in hex', () => {
  expect(clientAddressKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
  expect(clientAddressKey('::FFFF:c000:0201')).toBe('192.0.2.1');
  expect(clientAddressKey('0:0:0:0:0:ffff:192.0.2.1')).toBe('192.0.2.1');
  fc.assert(
    fc.property(fc.ipV4(), (address) => {
      const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
      expect(clientAddressKey(`::ffff:${address}`)).toBe(address);
      expect(clientAddressKey(`::ffff:${hex((a << 8) | b)}:${hex((c << 8) | d)}`)).toBe(address);
    }),
  );
  // Other embeddings of IPv4 in IPv6 are IPv6 prefixes like any other.
  expect(clientAddressKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
});

test('text that is no address is counted as sent, never longer than 64 characters', () => {
  expect(clientAddressKey('unknown')).toBe('unknown');
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), (text) => {
      const key = clientAddressKey(text);
      expect(key.length).toBeLessThanOrEqual(64);
    }),
  );
});

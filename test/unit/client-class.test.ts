/**
 * The class an anonymous asset client is counted in (assets/client-class.ts): an IPv4 address, an
 * IPv6 /64, an IPv4-mapped address as its IPv4 address.
 */
import fc from 'fast-check';
import { clientClass } from '../../src/plugins/public-api/server/src/assets/client-class';

test('IPv4 addresses are their own class', () => {
  expect(clientClass('203.0.113.7')).toBe('203.0.113.7');
  expect(clientClass('203.0.113.8')).toBe('203.0.113.8');
});

test('IPv6 addresses are counted by their /64, however they are written', () => {
  expect(clientClass('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
  expect(clientClass('2001:0db8:0001:0002:ffff:eeee:dddd:cccc')).toBe('2001:db8:1:2::/64');
  expect(clientClass('2001:DB8:1:2:0:0:0:9')).toBe('2001:db8:1:2::/64');
  expect(clientClass('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  expect(clientClass('::1')).toBe('0:0:0:0::/64');
  expect(clientClass('2001:db8:1:3::1')).not.toBe(clientClass('2001:db8:1:2::1'));
});

test('an IPv4-mapped IPv6 address is its IPv4 address; other embedded IPv4 stay IPv6', () => {
  expect(clientClass('::ffff:203.0.113.7')).toBe('203.0.113.7');
  expect(clientClass('::FFFF:cb00:7107')).toBe('203.0.113.7');
  expect(clientClass('64:ff9b::203.0.113.7')).toBe('64:ff9b:0:0::/64');
});

test('what is not an address is its own class, unchanged', () => {
  expect(clientClass('admin')).toBe('admin');
  expect(clientClass('')).toBe('');
});

const group = fc.integer({ min: 0, max: 0xffff });
const groups = fc.array(group, { minLength: 8, maxLength: 8 });
const full = (values: number[]) => values.map((value) => value.toString(16)).join(':');
/** The same address with its longest run of zero groups (if any) written `::`. */
const compressed = (values: number[]) => {
  let best = { at: -1, length: 0 };
  for (let at = 0; at < 8; at += 1) {
    let length = 0;
    while (at + length < 8 && values[at + length] === 0) length += 1;
    if (length > best.length) best = { at, length };
  }
  if (best.length < 2) return full(values);
  const hex = values.map((value) => value.toString(16));
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`;
};
const isMapped = (values: number[]) => values.slice(0, 5).every((value) => value === 0) && values[5] === 0xffff;

test('property: one /64 is one class, written any way; two /64s are two classes', () => {
  fc.assert(
    fc.property(groups, groups, (a, b) => {
      fc.pre(!isMapped(a) && !isMapped(b));
      const sameNetwork = [...a.slice(0, 4), ...b.slice(4)];
      expect(clientClass(compressed(a))).toBe(clientClass(full(a)));
      expect(clientClass(full(sameNetwork))).toBe(clientClass(compressed(a)));
      const differ = a.slice(0, 4).some((value, at) => value !== b[at]);
      expect(clientClass(full(a)) === clientClass(full(b))).toBe(!differ);
    }),
  );
});

test('property: an IPv4 address is one class, plain or mapped', () => {
  fc.assert(
    fc.property(fc.ipV4(), (address) => {
      expect(clientClass(address)).toBe(address);
      expect(clientClass(`::ffff:${address}`)).toBe(address);
    }),
  );
});

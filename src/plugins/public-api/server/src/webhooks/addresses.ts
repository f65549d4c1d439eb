/**
 * Which network addresses a webhook may be delivered to (contract section 16: private and link-local
 * addresses refused, re-checked at delivery). The delivery client asks this of every address a host name
 * resolves to, at connect time, so a name that resolved to a public address when the endpoint was saved
 * and to an internal one now (DNS rebinding) is refused all the same.
 *
 * Refused: every range that is not the public internet (IANA special-purpose registries, IPv4 and IPv6),
 * and the IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4, Teredo), whatever the address
 * inside. Loopback is allowed only when the development flag says so (tests, a local receiver).
 */
import { BlockList, isIP } from 'node:net';

type Range = readonly [address: string, prefix: number, why: string];

const IPV4_REFUSED: readonly Range[] = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared address space (CGNAT)'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved (and broadcast)'],
];
const IPV4_LOOPBACK: Range = ['127.0.0.0', 8, 'loopback'];

const IPV6_REFUSED: readonly Range[] = [
  ['::', 128, 'unspecified'],
  ['::', 96, 'IPv4-compatible (deprecated)'],
  ['::ffff:0:0', 96, 'IPv4-mapped'],
  ['64:ff9b::', 96, 'NAT64'],
  ['64:ff9b:1::', 48, 'local NAT64'],
  ['100::', 64, 'discard-only'],
  ['2001::', 32, 'Teredo'],
  ['2001:2::', 48, 'benchmarking'],
  ['2001:db8::', 32, 'documentation'],
  ['2001:10::', 28, 'ORCHID'],
  ['2001:20::', 28, 'ORCHIDv2'],
  ['2002::', 16, '6to4'],
  ['3fff::', 20, 'documentation'],
  ['5f00::', 16, 'segment routing'],
  ['fc00::', 7, 'unique local (ULA)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local (deprecated)'],
  ['ff00::', 8, 'multicast'],
];
const IPV6_LOOPBACK: Range = ['::1', 128, 'loopback'];

const listOf = (ranges: readonly Range[], family: 'ipv4' | 'ipv6') => {
  const list = new BlockList();
  for (const [address, prefix] of ranges) list.addSubnet(address, prefix, family);
  return list;
};

const ipv4Refused = IPV4_REFUSED.map((range) => ({ range, list: listOf([range], 'ipv4') }));
const ipv6Refused = IPV6_REFUSED.map((range) => ({ range, list: listOf([range], 'ipv6') }));
const ipv4Loopback = listOf([IPV4_LOOPBACK], 'ipv4');
const ipv6Loopback = listOf([IPV6_LOOPBACK], 'ipv6');

export type AddressRules = { allowLoopback: boolean };

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, `::ffff:a00:1`), or null. */
export const mappedIpv4 = (address: string): string | null => {
  const lower = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  if (dotted && isIP(dotted[1]!) === 4) return dotted[1]!;
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return null;
};

/** Brackets of a URL's IPv6 host (`[::1]`) and a zone (`fe80::1%eth0`) removed. */
const bare = (address: string) => address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');

/**
 * Why a webhook may not be sent to `address` (a literal IPv4 or IPv6 address), or null when it may.
 * Anything that is not an IP address at all is refused.
 */
export const refusedAddress = (input: string, rules: AddressRules): string | null => {
  const address = bare(input);
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  if (family === 6) {
    const inner = mappedIpv4(address);
    // A mapped address reaches the IPv4 address inside it: judge that one.
    if (inner) return refusedAddress(inner, rules);
    if (ipv6Loopback.check(address, 'ipv6')) return rules.allowLoopback ? null : 'loopback';
    const hit = ipv6Refused.find(({ list }) => list.check(address, 'ipv6'));
    return hit ? hit.range[2] : null;
  }
  if (ipv4Loopback.check(address, 'ipv4')) return rules.allowLoopback ? null : 'loopback';
  const hit = ipv4Refused.find(({ list }) => list.check(address, 'ipv4'));
  return hit ? hit.range[2] : null;
};

/** Whether a host (as in a URL) is the loopback interface by name or address. */
export const isLoopbackHost = (host: string): boolean => {
  const name = bare(host).toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 0) return false;
  return refusedAddress(name, { allowLoopback: false }) === 'loopback';
};

/**
 * The address a client is counted by (failed authentications, the transform queue's fairness): an IPv4
 * address as it is, an IPv6 address by its /64 prefix, an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`,
 * how a dual-stack listener reports IPv4 peers) as its IPv4 address. Pure.
 *
 * A /64 is what one subscriber, one LAN or one cloud instance is given: counting full IPv6 addresses gave
 * a client 2^64 counters to rotate through, each with a whole quota (issue 33). Text that is no IP address
 * (a malformed X-Forwarded-For behind a trusted proxy) is counted as sent, cut to its first 64 characters.
 */
import { isIPv4, isIPv6 } from 'node:net';

const MAX_OPAQUE_LENGTH = 64;

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted IPv4 part gives the last two). */
const ipv6Groups = (address: string): number[] => {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
};

export const clientAddressKey = (address: string): string => {
  if (isIPv4(address)) return address;
  // A zone (`fe80::1%eth0`) names the interface, not the client.
  const withoutZone = address.replace(/%.*$/, '');
  if (!isIPv6(withoutZone)) return address.slice(0, MAX_OPAQUE_LENGTH);
  const groups = ipv6Groups(withoutZone.toLowerCase());
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6]!, groups[7]!];
    return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
};

/**
 * The class an anonymous asset client is counted in (contract section 13: "anonymous asset clients are
 * one class per address"): an IPv4 address is its own class; an IPv6 address is counted by its /64, the
 * prefix one subscriber gets (RFC 6177), since one host may take any of the 2^64 addresses in it at will.
 * An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, how a dual-stack socket names an IPv4 peer) is the IPv4
 * address. Pure.
 *
 * Written here for the transform queue; http/ has its own per-address counting for rate limits.
 */
import net from 'node:net';

/** The eight 16-bit groups of a valid IPv6 address (a zone such as `%eth0` already removed). */
const groupsOf = (address: string): number[] => {
  let text = address;
  const tail: number[] = [];
  // A dotted IPv4 tail (`::ffff:192.0.2.1`, `64:ff9b::192.0.2.1`) is the last two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    text = text.slice(0, dotted.index);
    // Keep a `::` that ends before the tail; drop a single `:`.
    if (!text.endsWith('::')) text = text.slice(0, -1);
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const first = parse(head);
  const last = [...parse(rest), ...tail];
  const zeros = rest === undefined ? [] : new Array<number>(8 - first.length - last.length).fill(0);
  return [...first, ...zeros, ...last];
};

/** `client`'s class: the IPv4 address, `<first four groups>::/64` for IPv6, the text itself otherwise. */
export const clientClass = (client: string): string => {
  const address = client.split('%')[0]!;
  if (net.isIPv4(address)) return address;
  if (!net.isIPv6(address)) return client;
  const groups = groupsOf(address);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
};

/**
 * What this process last learned of a client address's failed-authentication counter (contract section
 * 13): which addresses have spent their quota, so that their further failures are refused from memory
 * instead of with one more write to the shared store each (a flood of bad keys from one address costs
 * the store nothing once the quota is spent).
 *
 * Only failures consult it: a request with a valid key is served from any address, in penalty or not
 * (issue 33: a shared NAT, or a proxy whose forwarded address is not trusted, put every client behind
 * one address, and one bad client locked out all the valid keys behind it). An address is the client's
 * counting key (http/client-address.ts: IPv6 by /64).
 *
 * At most `capacity` addresses are remembered (least recently used go first): whatever clients send,
 * memory stays bounded, and a forgotten address's next failure is counted in the store again, which
 * answers the same. Pure apart from the clock.
 */
import { createLru } from '../utils/lru';

/** A spent counter as the store told it: nothing left until its window ends. */
export type SpentStanding = { remaining: 0; resetMs: number };

/** A counter as a count returns it (null: nothing counted in the window, or no store). */
type Counter = { remaining: number; resetMs: number } | null;

export type AddressStanding = {
  /** The spent counter to refuse a failure with, or null (count it in the store, then tell `learned`). */
  spent: (address: string) => SpentStanding | null;
  /** What a count of the address's counter returned. */
  learned: (address: string, counter: Counter) => void;
};

export const ADDRESS_STANDING_DEFAULTS = { capacity: 10_000 } as const;

export const createAddressStanding = (options: { capacity?: number; now?: () => number } = {}): AddressStanding => {
  const { capacity } = { ...ADDRESS_STANDING_DEFAULTS, ...options };
  const now = options.now ?? Date.now;
  const spentUntil = createLru<string, number>(capacity);
  return {
    spent(address) {
      const until = spentUntil.get(address);
      if (until === undefined) return null;
      const at = now();
      if (at < until) return { remaining: 0, resetMs: until - at };
      spentUntil.delete(address);
      return null;
    },
    learned(address, counter) {
      if (counter && counter.remaining === 0 && counter.resetMs > 0) spentUntil.set(address, now() + counter.resetMs);
      else spentUntil.delete(address);
    },
  };
};

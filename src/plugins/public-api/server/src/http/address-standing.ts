/**
 * What this process last learned of a client address's failed-authentication counter (contract section
 * 13), so that a request with a valid key does not read the shared counter on every request (issue 16:
 * that read was 3% of a page's CPU).
 *
 * Every /api/v2 request is refused with 429 while its address has spent its quota of failed
 * authentications, before its key is checked. Without a memo, that takes one read of the shared store
 * per request. With it:
 *
 * - an address found spent (by a read, or by this process's own count of a failure) is refused from
 *   memory until its window ends, exactly as the store would;
 * - an address found not spent is trusted as such for `trustMs` (one second by default); then the store is
 *   read again. Failures counted on another instance meanwhile are learned that late;
 * - a failed authentication is always counted in the store and decided by its answer, so guesses are
 *   throttled as exactly as before. What `trustMs` allows is a right key, sent from an address another
 *   instance saw spend its quota less than a second before, to be answered.
 *
 * At most `capacity` addresses are remembered (least recently used go first): whatever clients send,
 * memory stays bounded, and a forgotten address is read from the store again. Pure apart from the clock.
 */
import { createLru } from '../utils/lru';

/** A spent counter as the store told it: nothing left until its window ends. */
export type SpentStanding = { remaining: 0; resetMs: number };

/** A counter as a read or a count returns it (null: nothing counted in the window, or no store). */
type Counter = { remaining: number; resetMs: number } | null;

type Entry = { clearUntil: number } | { spentUntil: number };

export type AddressStanding = {
  /**
   * What is known without asking the store: `clear` (found not spent less than `trustMs` ago), the spent
   * counter to refuse with, or null (read the store, then tell `learned`).
   */
  known: (address: string) => 'clear' | SpentStanding | null;
  /** What a read or a count of the address's counter returned. */
  learned: (address: string, counter: Counter) => void;
};

export const ADDRESS_STANDING_DEFAULTS = { capacity: 10_000, trustMs: 1_000 } as const;

export const createAddressStanding = (options: { capacity?: number; trustMs?: number; now?: () => number } = {}): AddressStanding => {
  const { capacity, trustMs } = { ...ADDRESS_STANDING_DEFAULTS, ...options };
  const now = options.now ?? Date.now;
  const entries = createLru<string, Entry>(capacity);
  return {
    known(address) {
      const entry = entries.get(address);
      if (!entry) return null;
      const at = now();
      if ('clearUntil' in entry) {
        if (at < entry.clearUntil) return 'clear';
      } else if (at < entry.spentUntil) {
        return { remaining: 0, resetMs: entry.spentUntil - at };
      }
      entries.delete(address);
      return null;
    },
    learned(address, counter) {
      const at = now();
      if (counter && counter.remaining === 0 && counter.resetMs > 0) {
        entries.set(address, { spentUntil: at + counter.resetMs });
      } else {
        entries.set(address, { clearUntil: at + trustMs });
      }
    },
  };
};

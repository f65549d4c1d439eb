/**
 * What this process last learned of a key's rate-limit counter (contract section 13): which keys are past
 * their limit until their window ends, so that a key that keeps sending after its 429 is refused from
 * memory instead of with one more count in the shared store each. A flood of requests past the limit
 * (bench:abuse --attack cheap: 1,767 a second of one key, all but 600 a minute refused) otherwise wrote
 * the counter once per refusal, on SQLite one committed write each, and took the CPU and the database
 * from every other key.
 *
 * What it keeps exact:
 * - A refusal from memory is one the store would give: within a window a counter only grows, so a key
 *   past its limit stays past it until the window ends. Nothing is admitted that the store would refuse:
 *   admissions are always counted in the store.
 * - A changed limit applies on the next request (the key, and its limit, are read at every request): the
 *   standing is only used while the key's limit is the one it was learned with; another limit asks the
 *   store again.
 * - Refusals from memory are not counted: a refused request did no work. The store's count is what the
 *   key was admitted, plus the refusals that taught this process (one per window and instance).
 *
 * At most `capacity` keys are remembered (least recently used go first); a forgotten key's next request
 * is counted in the store again, which answers the same. Pure apart from the clock.
 */
import type { RateLimit } from '../config/rate-limits';
import { createLru } from '../utils/lru';
import type { SpentStanding } from './address-standing';

/** A count as the store returned it (null: nothing counted, or no store). */
type Counted = { exceeded: boolean; resetMs: number } | null;

export type KeyStanding = {
  /** The spent counter to refuse `keyId` with under `limit`, or null (count it in the store, then tell `learned`). */
  spent: (keyId: string, limit: RateLimit) => SpentStanding | null;
  /** What a count of the key's counter under `limit` returned. */
  learned: (keyId: string, limit: RateLimit, counted: Counted) => void;
};

export const KEY_STANDING_DEFAULTS = { capacity: 10_000 } as const;

type Spent = { until: number; requests: number; window: number };

export const createKeyStanding = (options: { capacity?: number; now?: () => number } = {}): KeyStanding => {
  const { capacity } = { ...KEY_STANDING_DEFAULTS, ...options };
  const now = options.now ?? Date.now;
  const spentKeys = createLru<string, Spent>(capacity);
  return {
    spent(keyId, limit) {
      const spent = spentKeys.get(keyId);
      if (spent === undefined) return null;
      const at = now();
      if (at < spent.until && spent.requests === limit.requests && spent.window === limit.window)
        return { remaining: 0, resetMs: spent.until - at };
      spentKeys.delete(keyId);
      return null;
    },
    learned(keyId, limit, counted) {
      if (counted?.exceeded && counted.resetMs > 0)
        spentKeys.set(keyId, { until: now() + counted.resetMs, requests: limit.requests, window: limit.window });
      else spentKeys.delete(keyId);
    },
  };
};

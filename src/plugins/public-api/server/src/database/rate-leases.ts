/**
 * Leases of a key's rate-limit tokens (contract section 13, issue 16): a busy key's requests are counted
 * in the shared store a batch at a time instead of one committed write (or one Redis round trip) each.
 *
 * A lease takes `size` points from the shared counter in one count and hands them out here, one per
 * request, until they are used or the window ends. The store's counter therefore never holds fewer
 * points than the requests this process admitted: no instance can admit more than the limit, however many
 * there are. What a lease changes:
 *
 * - **Size follows demand.** A subject's first request of a window takes one point, as without leases. The
 *   next lease is sized to what the last one served in `horizonMs` (a key sending 2,000 requests a second
 *   leases 100 points, one at 5 a second leases one), never more than `maxSize`, and never more than an
 *   eighth of what the window has left: near its limit a key is counted one request at a time again,
 *   exactly.
 * - **`r` in the RateLimit field.** With one instance it is exact: the points this process holds unused are
 *   not counted as spent. With several, the points another instance holds unused count as spent until it
 *   uses them or the window ends: at most `horizonMs` of the key's requests to that instance (and at most
 *   an eighth of what is left), so a client spread over instances may be refused that many requests
 *   before its limit, never after.
 * - **A changed limit applies on the next request**, as before: every request compares the count (the
 *   store's, less the points held unused here) with the limit read with the key at that request.
 *
 * Leases are remembered for at most `capacity` subjects (least recently used go first; a forgotten lease's
 * unused points stay spent until its window ends). Requests of one subject that arrive while its lease is
 * being taken wait for that lease rather than each taking one. Pure apart from the clock; the store is
 * passed in.
 */
import type { RateLimit } from '../config/rate-limits';
import { createLru } from '../utils/lru';

/** The store's counter after a count: points counted in the window so far, and ms until the window ends. */
export type CounterState = { consumed: number; resetMs: number };

/** Counts `points` for `name` in the shared store; null when it could not (the caller's rule then applies). */
export type CountInStore = (name: string, points: number) => Promise<CounterState | null>;

export type RateLeases = {
  /** Counts one request of `name` against `limit`: from a held lease, else by taking one from the store. */
  count: (name: string, limit: RateLimit, store: CountInStore) => Promise<CounterState | null>;
  /**
   * Takes up to `points` of the points `name`'s lease holds unused, for a request's further cost
   * (http/request-cost.ts): how many it took, and the counter as a request sees it then. Null when no lease
   * of the window is held here.
   */
  take: (name: string, points: number) => { taken: number; state: CounterState } | null;
  /** Gives back to `name`'s lease `points` taken for a charge that was refused (gone with a lease that ended). */
  giveBack: (name: string, points: number) => void;
  /**
   * The store's counter of `name` after points were counted there outside a lease (a request's further
   * cost): the lease's count follows it, and the state is returned as a request sees it, the points this
   * process holds unused not counted as spent.
   */
  settle: (name: string, state: CounterState) => CounterState;
};

export const RATE_LEASE_DEFAULTS = { capacity: 10_000, horizonMs: 50, maxSize: 100 } as const;

/** Never lease more than this share of what the window has left. */
const SHARE_OF_REMAINING = 8;

type Lease = {
  /** The store's count after this lease was taken (its points included). */
  consumed: number;
  /** Points of this lease not handed out yet. */
  held: number;
  /** Its points. */
  size: number;
  /** When it was taken, and when its window ends (clock ms). */
  takenAt: number;
  endsAt: number;
};

type Entry = { lease: Lease | null; taking: Promise<void> | null };

export const createRateLeases = (
  options: { capacity?: number; horizonMs?: number; maxSize?: number; now?: () => number } = {},
): RateLeases => {
  const { capacity, horizonMs, maxSize } = { ...RATE_LEASE_DEFAULTS, ...options };
  const now = options.now ?? Date.now;
  const entries = createLru<string, Entry>(capacity);

  /** The points of the next lease: what the last one served in `horizonMs`, within the bounds above. */
  const nextSize = (previous: Lease | null, limit: RateLimit, at: number): number => {
    if (!previous || at >= previous.endsAt || maxSize <= 1) return 1;
    const perMs = previous.size / Math.max(1, at - previous.takenAt);
    const wanted = Math.ceil(perMs * horizonMs);
    const share = Math.floor((limit.requests - previous.consumed) / SHARE_OF_REMAINING);
    return Math.max(1, Math.min(wanted, share, maxSize));
  };

  const count = async (name: string, limit: RateLimit, store: CountInStore): Promise<CounterState | null> => {
    let entry = entries.get(name);
    // A lease being taken for this subject: wait for it, then use it like any other request.
    while (entry?.taking) {
      await entry.taking;
      entry = entries.get(name);
    }
    const at = now();
    const lease = entry?.lease ?? null;
    if (lease && lease.held > 0 && at < lease.endsAt) {
      lease.held -= 1;
      return { consumed: lease.consumed - lease.held, resetMs: lease.endsAt - at };
    }
    const size = nextSize(lease, limit, at);
    const taking: Entry = { lease: null, taking: null };
    let counted: CounterState | null = null;
    taking.taking = store(name, size).then(
      (state) => {
        counted = state;
      },
      () => undefined,
    );
    entries.set(name, taking);
    await taking.taking;
    taking.taking = null;
    const state = counted as CounterState | null;
    if (!state) {
      // Nothing counted: no lease; the next request asks the store again.
      entries.delete(name);
      return null;
    }
    taking.lease = { consumed: state.consumed, held: size - 1, size, takenAt: at, endsAt: at + state.resetMs };
    return { consumed: state.consumed - (size - 1), resetMs: state.resetMs };
  };

  /** The lease of `name` while its window lasts, else null. */
  const liveLease = (name: string, at: number): Lease | null => {
    const lease = entries.get(name)?.lease ?? null;
    return lease && at < lease.endsAt ? lease : null;
  };

  const take = (name: string, points: number): { taken: number; state: CounterState } | null => {
    const at = now();
    const lease = liveLease(name, at);
    if (!lease) return null;
    const taken = Math.max(0, Math.min(lease.held, points));
    lease.held -= taken;
    return { taken, state: { consumed: lease.consumed - lease.held, resetMs: lease.endsAt - at } };
  };

  const giveBack = (name: string, points: number): void => {
    const lease = liveLease(name, now());
    if (lease) lease.held = Math.min(lease.size, lease.held + points);
  };

  const settle = (name: string, state: CounterState): CounterState => {
    const lease = liveLease(name, now());
    if (!lease) return state;
    // Counts only grow within a window: the larger one is the later (another count may have answered first).
    lease.consumed = Math.max(lease.consumed, state.consumed);
    return { consumed: lease.consumed - lease.held, resetMs: state.resetMs };
  };

  return { count, take, giveBack, settle };
};

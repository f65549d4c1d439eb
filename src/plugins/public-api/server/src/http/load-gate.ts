/**
 * Load shedding (contract section 13): at most `maxInFlight` expensive requests run at once. One over the
 * bound waits for a turn, for at most `maxWaitMs`, and only while the queue has room; past either it is
 * shed (the caller answers 503 with Retry-After), so memory stays bounded by what `maxInFlight` requests
 * hold, however many arrive. The gate never sheds while it has a free turn and nobody waits
 * (work-conserving: one key's ten parallel requests on a quiet server all run).
 *
 * Waiting is fair between holders (API keys), not first come first served (http/fair-scheduler.ts): a
 * freed turn goes to the key with waiting requests that has used least lately, by the running time of its
 * requests and, next to it, by what they cost: each cost unit a request pays (http/request-cost.ts, charged
 * by middlewares/charge.ts) weighs as `COST_UNIT_MS` of running time, counted as soon as it is paid. So a
 * key with a hundred connections gets one turn per round like a key with one, and a key whose requests
 * cost more (a thousand included records, a hundred atomic operations, a large upload) waits behind keys
 * whose requests cost less. When the queue is full, a lighter key's newcomer takes the place of the heaviest
 * key's newest waiter, which is shed. Once a request would have to wait, its holder may have at most
 * `maxPerHolder` turns, running and waiting together: past it, it is shed at once. Pure: no Strapi, no
 * database.
 */
import { createFairScheduler, type Release } from './fair-scheduler';

export type { Release } from './fair-scheduler';

/**
 * What one cost unit weighs in the rotation, as running time: about what an ordinary request (one unit)
 * holds its turn on this project's 2-core machine (a 20-record page 8 ms, a single read 2 ms, sent; docs/api.md
 * *What a request costs*). An include of 1,000 records (21 units) then weighs 210 ms more than its time,
 * an atomic request of 100 operations (101 units) a second more.
 */
export const COST_UNIT_MS = 10;

export type LoadLimits = {
  /** Requests that run at once. */
  maxInFlight: number;
  /** Requests that may wait for a turn; more are shed (the heaviest key's newest first). */
  maxWaiting: number;
  /** How long a request waits for a turn before it is shed. */
  maxWaitMs: number;
  /** Turns one holder may have, running and waiting together, once a request must wait; more are shed at once. */
  maxPerHolder: number;
};

export type LoadGate = {
  /** A turn for `holder`: its release once it may run, or null when it is shed. */
  enter: (holder: string) => Promise<Release | null>;
  /** Charges `holder` `units` cost units paid by a request of its (weighed `COST_UNIT_MS` each). */
  charged: (holder: string, units: number) => void;
  /** Whether `holder` has its whole share of turns (running and waiting): its next wait would be refused. */
  overShare: (holder: string) => boolean;
  /** What runs and what waits now, and how many holders have turns. */
  load: () => { inFlight: number; waiting: number; holders: number };
};

export const createLoadGate = (limits: LoadLimits, clock: () => number = Date.now): LoadGate => {
  const scheduler = createFairScheduler(
    { capacity: limits.maxInFlight, maxWaiting: limits.maxWaiting, maxWaitMs: limits.maxWaitMs, maxPerHolder: limits.maxPerHolder },
    clock,
  );
  return {
    enter: (holder) => scheduler.enter(holder, 1),
    charged: (holder, units) => scheduler.charge(holder, units * COST_UNIT_MS),
    overShare: (holder) => scheduler.holds(holder) >= limits.maxPerHolder,
    load: () => {
      const { running, waiting, holders } = scheduler.load();
      return { inFlight: running, waiting, holders };
    },
  };
};

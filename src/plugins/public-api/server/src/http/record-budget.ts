/**
 * The records being expanded through `include` at once, across requests (contract section 13: memory
 * stays bounded under any mix of requests). A turn of the load gate bounds how many requests run; one
 * read expanding a thousand records builds a document of tens of MB and holds several hundred MB while
 * it does, so a few of them at once would take the process past its memory. A read reserves its
 * expanded records here once it has counted them (before it loads any), and gives them back with its
 * turn; a read asking for more than the whole budget runs alone. Waiting is fair between keys, as for
 * the load gate (http/fair-scheduler.ts): room that frees goes to the key that has used least lately, its
 * first waiting read once it fits, for at most `maxWaitMs`, then the read is shed. A key that already
 * holds or awaits room while the budget is taken is shed before it counts another read's records
 * (counting a large include is itself a few hundred milliseconds of queries). Pure: no Strapi, no
 * database.
 */
import { createFairScheduler, type Release } from './fair-scheduler';

export type { Release } from './fair-scheduler';

export type RecordBudgetLimits = {
  /** Expanded records in flight, in all. */
  capacity: number;
  /** How long a read waits for room before it is shed. */
  maxWaitMs: number;
};

export type RecordBudget = {
  /** Room for `records` for `holder` (an API key): its release once there is room, or null when shed after waiting. */
  reserve: (records: number, holder: string) => Promise<Release | null>;
  /**
   * Whether `holder` already has room reserved, or waits for it, while others wait too or nothing is
   * left: a further read of it would only count its records to wait and be shed, so it is shed before.
   */
  crowded: (holder: string) => boolean;
  load: () => { reserved: number; waiting: number };
};

export const createRecordBudget = (limits: RecordBudgetLimits, clock: () => number = Date.now): RecordBudget => {
  // No bound of its own on waiters, in all or per key: each waiting read holds a turn of the load gate,
  // which bounds them.
  const scheduler = createFairScheduler(
    { capacity: limits.capacity, maxWaiting: Infinity, maxWaitMs: limits.maxWaitMs, maxPerHolder: Infinity },
    clock,
  );
  return {
    reserve: (records, holder) => scheduler.enter(holder, records),
    crowded: (holder) => {
      if (scheduler.holds(holder) === 0) return false;
      const { running, waiting } = scheduler.load();
      return waiting > 0 || running >= limits.capacity;
    },
    load: () => {
      const { running, waiting } = scheduler.load();
      return { reserved: running, waiting };
    },
  };
};

/**
 * The records being expanded through `include` at once, across requests (contract section 13: memory
 * stays bounded under any mix of requests). A turn of the load gate bounds how many requests run; one
 * read expanding a thousand records builds a document of tens of MB and holds several hundred MB while
 * it does, so a few of them at once would take the process past its memory. A read reserves its
 * expanded records here once it has counted them (before it loads any), and gives them back with its
 * turn; a read asking for more than the whole budget runs alone. Waiting is first come first served,
 * for at most `maxWaitMs`, then the read is shed. A key that already holds or awaits room while the
 * budget is taken is shed before it counts another read's records (counting a large include is itself
 * a few hundred milliseconds of queries). Pure: no Strapi, no database.
 */
export type RecordBudgetLimits = {
  /** Expanded records in flight, in all. */
  capacity: number;
  /** How long a read waits for room before it is shed. */
  maxWaitMs: number;
};

/** Gives the records back (once; later calls do nothing). */
export type Release = () => void;

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

type Waiter = { records: number; holder: string; admit: (release: Release) => void; timer: ReturnType<typeof setTimeout> };

export const createRecordBudget = (limits: RecordBudgetLimits): RecordBudget => {
  let reserved = 0;
  const waiting: Waiter[] = [];
  /** Reservations each holder has, held or waiting; a holder with none is not in here. */
  const held = new Map<string, number>();
  const take = (holder: string) => held.set(holder, (held.get(holder) ?? 0) + 1);
  const giveBack = (holder: string) => {
    const left = (held.get(holder) ?? 1) - 1;
    if (left > 0) held.set(holder, left);
    else held.delete(holder);
  };

  const admitWaiters = () => {
    // First come first served: the first waiter is admitted before any behind it, even smaller ones.
    while (waiting.length > 0 && reserved + waiting[0]!.records <= limits.capacity) {
      const next = waiting.shift()!;
      clearTimeout(next.timer);
      reserved += next.records;
      next.admit(releaseOnce(next.records, next.holder));
    }
  };

  const releaseOnce = (records: number, holder: string): Release => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      reserved -= records;
      giveBack(holder);
      admitWaiters();
    };
  };

  return {
    reserve(asked, holder) {
      // More than the whole budget runs alone.
      const records = Math.min(Math.max(0, asked), limits.capacity);
      if (waiting.length === 0 && reserved + records <= limits.capacity) {
        reserved += records;
        take(holder);
        return Promise.resolve(releaseOnce(records, holder));
      }
      if (limits.maxWaitMs <= 0) return Promise.resolve(null);
      take(holder);
      return new Promise<Release | null>((resolve) => {
        const waiter: Waiter = {
          records,
          holder,
          admit: resolve,
          timer: setTimeout(() => {
            const at = waiting.indexOf(waiter);
            if (at >= 0) waiting.splice(at, 1);
            giveBack(holder);
            resolve(null);
            // A large waiter leaving may let smaller ones behind it in.
            admitWaiters();
          }, limits.maxWaitMs),
        };
        waiting.push(waiter);
      });
    },
    crowded: (holder) => held.has(holder) && (waiting.length > 0 || reserved >= limits.capacity),
    load: () => ({ reserved, waiting: waiting.length }),
  };
};

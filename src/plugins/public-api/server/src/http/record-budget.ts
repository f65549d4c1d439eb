/**
 * The records being expanded through `include` at once, across requests (contract section 13: memory
 * stays bounded under any mix of requests). A turn of the load gate bounds how many requests run; one
 * read expanding a thousand records builds a document of tens of MB and holds several hundred MB while
 * it does, so a few of them at once would take the process past its memory. A read reserves its
 * expanded records here once it has counted them (before it loads any), and gives them back with its
 * turn; a read asking for more than the whole budget runs alone. Waiting is first come first served,
 * for at most `maxWaitMs`, then the read is shed. Pure: no Strapi, no database.
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
  /** Room for `records`: its release once there is room, or null when shed after waiting. */
  reserve: (records: number) => Promise<Release | null>;
  load: () => { reserved: number; waiting: number };
};

type Waiter = { records: number; admit: (release: Release) => void; timer: ReturnType<typeof setTimeout> };

export const createRecordBudget = (limits: RecordBudgetLimits): RecordBudget => {
  let reserved = 0;
  const waiting: Waiter[] = [];

  const admitWaiters = () => {
    // First come first served: the first waiter is admitted before any behind it, even smaller ones.
    while (waiting.length > 0 && reserved + waiting[0]!.records <= limits.capacity) {
      const next = waiting.shift()!;
      clearTimeout(next.timer);
      reserved += next.records;
      next.admit(releaseOnce(next.records));
    }
  };

  const releaseOnce = (records: number): Release => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      reserved -= records;
      admitWaiters();
    };
  };

  return {
    reserve(asked) {
      // More than the whole budget runs alone.
      const records = Math.min(Math.max(0, asked), limits.capacity);
      if (waiting.length === 0 && reserved + records <= limits.capacity) {
        reserved += records;
        return Promise.resolve(releaseOnce(records));
      }
      if (limits.maxWaitMs <= 0) return Promise.resolve(null);
      return new Promise<Release | null>((resolve) => {
        const waiter: Waiter = {
          records,
          admit: resolve,
          timer: setTimeout(() => {
            const at = waiting.indexOf(waiter);
            if (at >= 0) waiting.splice(at, 1);
            resolve(null);
            // A large waiter leaving may let smaller ones behind it in.
            admitWaiters();
          }, limits.maxWaitMs),
        };
        waiting.push(waiter);
      });
    },
    load: () => ({ reserved, waiting: waiting.length }),
  };
};

/**
 * Load shedding (contract section 13): at most `maxInFlight` expensive requests run at once. One over the
 * bound waits its turn, first come first served, for at most `maxWaitMs`, and only while fewer than
 * `maxWaiting` wait; past either it is shed (the caller answers 503 with Retry-After), so memory stays
 * bounded by what `maxInFlight` requests hold, however many arrive. Pure: no Strapi, no database.
 */
export type LoadLimits = {
  /** Requests that run at once. */
  maxInFlight: number;
  /** Requests that may wait for a turn; more are shed at once. */
  maxWaiting: number;
  /** How long a request waits for a turn before it is shed. */
  maxWaitMs: number;
};

/** Gives the turn back (once; later calls do nothing). */
export type Release = () => void;

export type LoadGate = {
  /** A turn: its release once it may run, or null when it is shed. */
  enter: () => Promise<Release | null>;
  /** What runs and what waits now. */
  load: () => { inFlight: number; waiting: number };
};

type Waiter = { admit: (release: Release) => void; timer: ReturnType<typeof setTimeout> };

export const createLoadGate = (limits: LoadLimits): LoadGate => {
  let inFlight = 0;
  const waiting: Waiter[] = [];

  const releaseOnce = (): Release => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The turn passes straight to the first waiter: a newcomer cannot overtake the queue.
      const next = waiting.shift();
      if (next) {
        clearTimeout(next.timer);
        next.admit(releaseOnce());
      } else {
        inFlight -= 1;
      }
    };
  };

  return {
    enter() {
      if (inFlight < limits.maxInFlight && waiting.length === 0) {
        inFlight += 1;
        return Promise.resolve(releaseOnce());
      }
      if (waiting.length >= limits.maxWaiting || limits.maxWaitMs <= 0) return Promise.resolve(null);
      return new Promise<Release | null>((resolve) => {
        const waiter: Waiter = {
          admit: resolve,
          timer: setTimeout(() => {
            const at = waiting.indexOf(waiter);
            if (at >= 0) waiting.splice(at, 1);
            resolve(null);
          }, limits.maxWaitMs),
        };
        waiting.push(waiter);
      });
    },
    load: () => ({ inFlight, waiting: waiting.length }),
  };
};

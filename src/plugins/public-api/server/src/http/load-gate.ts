/**
 * Load shedding (contract section 13): at most `maxInFlight` expensive requests run at once. One over the
 * bound waits its turn, first come first served, for at most `maxWaitMs`, and only while fewer than
 * `maxWaiting` wait; past either it is shed (the caller answers 503 with Retry-After), so memory stays
 * bounded by what `maxInFlight` requests hold, however many arrive. The gate never sheds while it has a
 * free turn and nobody waits (work-conserving: one key's ten parallel requests on a quiet server all run).
 * Once a request would have to wait, its holder (an API key) may have at most `maxPerHolder` turns,
 * running and waiting together: a single key sending a hundred connections is shed past its share and
 * never fills the queue, so other keys still find a place in it and the next free turn. Pure: no Strapi,
 * no database.
 */
export type LoadLimits = {
  /** Requests that run at once. */
  maxInFlight: number;
  /** Requests that may wait for a turn; more are shed at once. */
  maxWaiting: number;
  /** How long a request waits for a turn before it is shed. */
  maxWaitMs: number;
  /** Turns one holder may have, running and waiting together, once a request must wait; more are shed at once. */
  maxPerHolder: number;
};

/** Gives the turn back (once; later calls do nothing). */
export type Release = () => void;

export type LoadGate = {
  /** A turn for `holder`: its release once it may run, or null when it is shed. */
  enter: (holder: string) => Promise<Release | null>;
  /** Whether `holder` has its whole share of turns (running and waiting): its next wait would be refused. */
  overShare: (holder: string) => boolean;
  /** What runs and what waits now, and how many holders have turns. */
  load: () => { inFlight: number; waiting: number; holders: number };
};

type Waiter = { holder: string; admit: (release: Release) => void; timer: ReturnType<typeof setTimeout> };

export const createLoadGate = (limits: LoadLimits): LoadGate => {
  let inFlight = 0;
  const waiting: Waiter[] = [];
  /** Turns each holder has, running or waiting; a holder with none is not in here. */
  const held = new Map<string, number>();
  const giveBack = (holder: string) => {
    const left = (held.get(holder) ?? 1) - 1;
    if (left > 0) held.set(holder, left);
    else held.delete(holder);
  };

  const releaseOnce = (holder: string): Release => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      giveBack(holder);
      // The turn passes straight to the first waiter: a newcomer cannot overtake the queue.
      const next = waiting.shift();
      if (next) {
        clearTimeout(next.timer);
        next.admit(releaseOnce(next.holder));
      } else {
        inFlight -= 1;
      }
    };
  };

  return {
    enter(holder) {
      if (inFlight < limits.maxInFlight && waiting.length === 0) {
        inFlight += 1;
        held.set(holder, (held.get(holder) ?? 0) + 1);
        return Promise.resolve(releaseOnce(holder));
      }
      if ((held.get(holder) ?? 0) >= limits.maxPerHolder) return Promise.resolve(null);
      if (waiting.length >= limits.maxWaiting || limits.maxWaitMs <= 0) return Promise.resolve(null);
      held.set(holder, (held.get(holder) ?? 0) + 1);
      return new Promise<Release | null>((resolve) => {
        const waiter: Waiter = {
          holder,
          admit: resolve,
          timer: setTimeout(() => {
            const at = waiting.indexOf(waiter);
            if (at >= 0) waiting.splice(at, 1);
            giveBack(holder);
            resolve(null);
          }, limits.maxWaitMs),
        };
        waiting.push(waiter);
      });
    },
    overShare: (holder) => (held.get(holder) ?? 0) >= limits.maxPerHolder,
    load: () => ({ inFlight, waiting: waiting.length, holders: held.size }),
  };
};

/**
 * Weighted fair queueing of work between holders (API keys), for the load gate (http/load-gate.ts: turns
 * of keyed requests) and the record budget (http/record-budget.ts: records expanded at once). Pure: no
 * Strapi, no database; the clock is injected (timers are the platform's).
 *
 * - `capacity` units run at once; a piece of work asks for `size` of them (one turn, or its records; more
 *   than the capacity runs alone).
 * - Work-conserving: while nobody waits and the units are free, work starts at once, whoever asks.
 * - Otherwise it waits in its holder's queue (first come first served within a holder). A freed unit goes
 *   to the holder with waiting work that has used least lately (http/fair-usage.ts: on release, the
 *   running time unless the caller reports a cost; besides it, what `charge` adds while the work runs;
 *   decaying; work still running counts as its time so far); ties go round the holders in turn. So holders take turns in rotation weighted by
 *   cost: a key with a hundred waiting requests gets one turn per round like a key with one, and a key
 *   whose requests cost ten times as much gets a tenth of the turns while both wait.
 * - The holder chosen is served its first waiting piece of work once there is room for it; nobody
 *   overtakes it meanwhile, so a large piece (many records) is not starved by small ones.
 * - Bounds: at most `maxWaiting` wait in all; once work would have to wait, a holder has at most
 *   `maxPerHolder` pieces running and waiting together (past it: refused at once); work waits at most
 *   `maxWaitMs`, then leaves, shed.
 * - Shedding the heaviest first: when the queue is full, a newcomer of a holder lighter than the heaviest
 *   holder waiting takes the place of that holder's newest waiter, which is shed; a newcomer of the
 *   heaviest holder (or of one as heavy) is itself refused. A flood fills the queue, and is what leaves it.
 *
 * Refused, shed and timed-out work resolves to null: the caller answers 503 with Retry-After.
 */
import { createUsageLedger, type UsageLedger } from './fair-usage';

export type FairLimits = {
  /** Units that run at once. */
  capacity: number;
  /** Pieces of work that may wait, in all. */
  maxWaiting: number;
  /** How long a piece of work waits before it is shed. */
  maxWaitMs: number;
  /** Pieces one holder may have, running and waiting together, once one must wait (Infinity: no bound). */
  maxPerHolder: number;
};

/**
 * Gives the units back and charges the holder (once; later calls do nothing): `cost` when the caller
 * knows what the work cost, else its running time.
 */
export type Release = (cost?: number) => void;

export type FairScheduler = {
  /** Room for `size` units of `holder`'s: its release once the work may run, or null when refused or shed. */
  enter: (holder: string, size?: number) => Promise<Release | null>;
  /**
   * Charges `holder` `cost` now, next to the running time of its work: what a piece of work was found to
   * cost while it runs (a request's cost units, http/load-gate.ts). Its next waiting work goes behind
   * holders that used less.
   */
  charge: (holder: string, cost: number) => void;
  /** Pieces `holder` has, running and waiting (0: none). */
  holds: (holder: string) => number;
  /** `holder`'s usage now (http/fair-usage.ts), the measure of the rotation. */
  usage: (holder: string) => number;
  /** Units taken, pieces waiting, holders with work running or waiting. */
  load: () => { running: number; waiting: number; holders: number };
};

type Waiter = { size: number; admit: (release: Release | null) => void; timer: ReturnType<typeof setTimeout> };

type Holder = { pieces: number; waiters: Waiter[] };

export const createFairScheduler = (
  limits: FairLimits,
  clock: () => number = Date.now,
  ledger: UsageLedger = createUsageLedger(clock),
): FairScheduler => {
  let running = 0;
  let waitingTotal = 0;
  /** Holders with work running or waiting; map order is the rotation's (served holders go to the back). */
  const holders = new Map<string, Holder>();

  const holderOf = (name: string): Holder => {
    let holder = holders.get(name);
    if (!holder) {
      holder = { pieces: 0, waiters: [] };
      holders.set(name, holder);
    }
    return holder;
  };
  const giveBack = (name: string) => {
    const holder = holders.get(name);
    if (!holder) return;
    holder.pieces -= 1;
    if (holder.pieces <= 0) holders.delete(name);
  };

  const start = (name: string, size: number): Release => {
    running += size;
    const finish = ledger.begin(name);
    let released = false;
    return (cost) => {
      if (released) return;
      released = true;
      running -= size;
      finish(cost);
      giveBack(name);
      dispatch();
    };
  };

  /** Of the holders with waiters, the one that used least lately; the first in rotation on a tie. */
  const nextHolder = (): string | null => {
    const now = clock();
    let chosen: string | null = null;
    let least = Infinity;
    for (const [name, holder] of holders) {
      if (holder.waiters.length === 0) continue;
      const used = ledger.usage(name, now);
      if (used < least) {
        least = used;
        chosen = name;
      }
    }
    return chosen;
  };

  /** Of the holders with waiters, the one that used most lately; the last in rotation on a tie. */
  const heaviestWaiting = (): string | null => {
    const now = clock();
    let chosen: string | null = null;
    let most = -Infinity;
    for (const [name, holder] of holders) {
      if (holder.waiters.length === 0) continue;
      const used = ledger.usage(name, now);
      if (used >= most) {
        most = used;
        chosen = name;
      }
    }
    return chosen;
  };

  /** Gives free units to waiters in fair order, while the chosen holder's first waiter fits. */
  const dispatch = () => {
    while (waitingTotal > 0) {
      const name = nextHolder();
      if (name === null) return;
      const holder = holders.get(name)!;
      const waiter = holder.waiters[0]!;
      if (running + waiter.size > limits.capacity) return;
      holder.waiters.shift();
      waitingTotal -= 1;
      // To the back of the rotation: an equally light holder goes next.
      holders.delete(name);
      holders.set(name, holder);
      clearTimeout(waiter.timer);
      waiter.admit(start(name, waiter.size));
    }
  };

  /** Takes `waiter` out of `name`'s queue (shed or timed out): its place and its piece are given back. */
  const drop = (name: string, waiter: Waiter): boolean => {
    const holder = holders.get(name);
    const at = holder?.waiters.indexOf(waiter) ?? -1;
    if (!holder || at < 0) return false;
    holder.waiters.splice(at, 1);
    waitingTotal -= 1;
    clearTimeout(waiter.timer);
    giveBack(name);
    waiter.admit(null);
    return true;
  };

  /** Whether room in a full queue is made for `name`: the heaviest other holder's newest waiter is shed. */
  const displaceFor = (name: string): boolean => {
    const heaviest = heaviestWaiting();
    if (heaviest === null || heaviest === name) return false;
    const now = clock();
    if (ledger.usage(heaviest, now) <= ledger.usage(name, now)) return false;
    const waiters = holders.get(heaviest)!.waiters;
    return drop(heaviest, waiters[waiters.length - 1]!);
  };

  return {
    enter(name, asked = 1) {
      // More than the capacity runs alone.
      const size = Math.min(Math.max(0, asked), limits.capacity);
      if (waitingTotal === 0 && running + size <= limits.capacity) {
        holderOf(name).pieces += 1;
        return Promise.resolve(start(name, size));
      }
      if ((holders.get(name)?.pieces ?? 0) >= limits.maxPerHolder || limits.maxWaitMs <= 0 || limits.maxWaiting <= 0)
        return Promise.resolve(null);
      if (waitingTotal >= limits.maxWaiting && !displaceFor(name)) return Promise.resolve(null);
      const holder = holderOf(name);
      holder.pieces += 1;
      waitingTotal += 1;
      return new Promise<Release | null>((resolve) => {
        const waiter: Waiter = {
          size,
          admit: resolve,
          timer: setTimeout(() => {
            // A large waiter leaving may let smaller ones behind it in.
            if (drop(name, waiter)) dispatch();
          }, limits.maxWaitMs),
        };
        holder.waiters.push(waiter);
      });
    },
    charge: (name, cost) => ledger.add(name, cost),
    holds: (name) => holders.get(name)?.pieces ?? 0,
    usage: (name) => ledger.usage(name),
    load: () => ({ running, waiting: waitingTotal, holders: holders.size }),
  };
};

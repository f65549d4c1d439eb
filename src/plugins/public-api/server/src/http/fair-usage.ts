/**
 * What each holder (an API key, a client address class) has used lately, the measure fair scheduling
 * orders waiters by (http/fair-scheduler.ts for keyed requests, assets/fair-queue.ts for transforms). Pure:
 * no Strapi, no database; the clock is injected.
 *
 * - A finished piece of work is charged its cost: what the caller reports, else its running time by the
 *   clock. The charges decay, halved every `USAGE_HALF_LIFE_MS`, so what a holder did minutes ago weighs
 *   little and a holder that comes back is neither owed nor owing much.
 * - A cost known while the work runs (a request's cost units, once charged) is added at once with `add`:
 *   the holder is heavy from then on, not only once its work ends.
 * - Work still running counts as its running time so far: a holder with a hundred requests at work is
 *   heavy now, not only once they end (otherwise it would look light exactly while it floods).
 * - Bounded: charges are remembered for at most `USAGE_MAX_HOLDERS` holders, the least recently active
 *   forgotten first; a holder with work running is always known (that count is bounded by the turns).
 */

/** How fast a holder's past cost is forgotten. */
export const USAGE_HALF_LIFE_MS = 30_000;
/** Holders whose charges are remembered at most; the least recently active are forgotten first. */
export const USAGE_MAX_HOLDERS = 10_000;

/** Ends one piece of work: charges `cost` (by default its running time), once; later calls do nothing. */
export type Finish = (cost?: number) => void;

export type UsageLedger = {
  /** Starts a piece of work of `holder`'s: counted as running until it is finished. */
  begin: (holder: string) => Finish;
  /** Charges `holder` `cost` now, besides its running time (what is no finite positive number is nothing). */
  add: (holder: string, cost: number) => void;
  /** `holder`'s usage now: its decayed charges plus the running time so far of its work at work. */
  usage: (holder: string, now?: number) => number;
  /** Holders remembered (charged lately or with work running). */
  size: () => number;
};

type Charged = { cost: number; at: number };
type Running = { count: number; startedSum: number };

export const createUsageLedger = (clock: () => number = Date.now, maxHolders = USAGE_MAX_HOLDERS): UsageLedger => {
  /** Each holder's decayed charges; map order is least recently charged first. */
  const charged = new Map<string, Charged>();
  /** Each holder's work at work: how many, and the sum of their start times (elapsed = count * now - sum). */
  const running = new Map<string, Running>();

  const chargedOf = (holder: string, now: number): number => {
    const entry = charged.get(holder);
    return entry ? entry.cost * 0.5 ** (Math.max(0, now - entry.at) / USAGE_HALF_LIFE_MS) : 0;
  };

  const charge = (holder: string, cost: number) => {
    const now = clock();
    const total = chargedOf(holder, now) + cost;
    charged.delete(holder);
    charged.set(holder, { cost: total, at: now });
    if (charged.size > maxHolders) charged.delete(charged.keys().next().value as string);
  };

  return {
    begin(holder) {
      const started = clock();
      const entry = running.get(holder) ?? { count: 0, startedSum: 0 };
      running.set(holder, { count: entry.count + 1, startedSum: entry.startedSum + started });
      let finished = false;
      return (cost) => {
        if (finished) return;
        finished = true;
        const now = clock();
        const at = running.get(holder)!;
        if (at.count > 1) running.set(holder, { count: at.count - 1, startedSum: at.startedSum - started });
        else running.delete(holder);
        // A reported cost that is no number (NaN, negative) is not trusted: the running time stands in.
        charge(holder, cost !== undefined && Number.isFinite(cost) && cost >= 0 ? cost : Math.max(0, now - started));
      };
    },
    add(holder, cost) {
      if (Number.isFinite(cost) && cost > 0) charge(holder, cost);
    },
    usage(holder, now = clock()) {
      const at = running.get(holder);
      return chargedOf(holder, now) + (at ? Math.max(0, at.count * now - at.startedSum) : 0);
    },
    size: () => new Set([...charged.keys(), ...running.keys()]).size,
  };
};

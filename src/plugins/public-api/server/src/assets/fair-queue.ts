/**
 * The transform queue's order and bounds (contract section 13, "Assets"). Pure: no Strapi, no sharp.
 *
 * - At most `running` transforms run at once; the rest wait.
 * - Waiting is fair between clients: a freed turn goes to the waiting client that has used the least
 *   transform time lately (running time, halved every `USAGE_HALF_LIFE_MS`, transforms still running
 *   counted as their time so far), ties in round-robin order: the rule of the load gate between keys,
 *   on the same ledger (http/fair-usage.ts, http/fair-scheduler.ts).
 *   A client with a hundred requests waiting never delays another client's one request by its hundred,
 *   and a client that asks rarely (a visitor's first thumbnail) goes before clients that flood, so it
 *   waits for one turn to free up, not for one turn per flooding client.
 * - Bounded: a client holds at most `perClient` turns, running and waiting together, and at most
 *   `waiting` requests wait in all; past either, a request is refused at once (the caller answers 503),
 *   except that with the queue full a lighter client's newcomer takes the place of the heaviest waiting
 *   client's newest request, which is refused instead (shedding the heaviest first).
 * - A request waits at most `maxWaitMs`; then it leaves the queue, timed out.
 * - A lane for cheap transforms (small outputs, assets/transform-cost.ts): `cheap` turns besides the
 *   `running` ones that only cheap transforms take. A cheap transform takes a free turn of either kind;
 *   when every turn is taken by heavy work, it still runs on the lane without waiting behind the heavy
 *   ones, so a visitor's first thumbnail never waits for a large AVIF encoding to end. Heavy transforms
 *   never take the lane. Waiters for the lane are served in the same fair order, among cheap ones.
 * - A client's share, in cost (assets/transform-cost.ts): a client with transforms running starts
 *   another only while their estimated costs together stay within `clientCost`; one with nothing
 *   running always may. So one address's flood of expensive variants (a large AVIF) holds one turn, and
 *   the other turns stay free for other addresses, while cheap transforms may run side by side. It holds
 *   even when no one else waits: the turns must already be free when another client comes, since a
 *   running transform is only stopped at its time limit.
 * - Expensive transforms (cost over `expensiveCost`) hold at most `expensiveTurns` general turns in all,
 *   whichever clients ask: a flood from many addresses of large AVIF variants leaves a general turn to
 *   the medium transforms (a 1000-pixel WebP) of everyone else, which the cheap lane does not take.
 */
import { createUsageLedger } from '../http/fair-usage';

export type FairQueueLimits = {
  running: number;
  /** Turns only cheap transforms take, besides `running` (0: no lane). */
  cheap: number;
  waiting: number;
  perClient: number;
  maxWaitMs: number;
  /** The estimated cost one client's running transforms may add up to (Infinity: no share). */
  clientCost?: number;
  /** Above this cost a transform is expensive (Infinity: none is). */
  expensiveCost?: number;
  /** General turns expensive transforms may hold at once, all clients together. */
  expensiveTurns?: number;
};

/** What a transform costs, as the queue tells them apart. */
export type TransformWeight = 'cheap' | 'heavy';

/** How fast a client's past transform time is forgotten. */
export { USAGE_HALF_LIFE_MS } from '../http/fair-usage';

/** Gives the turn back (once; later calls do nothing). */
export type Release = () => void;

export type Admission = { kind: 'admitted'; release: Release } | { kind: 'refused' } | { kind: 'timed_out' };

type Waiter = {
  weight: TransformWeight;
  cost: number;
  admit: (release: Release) => void;
  /** Answers it without a turn (timed out, or shed for a lighter client's newcomer). */
  leave: (kind: 'refused' | 'timed_out') => void;
  timer: ReturnType<typeof setTimeout>;
};

type Lane = 'general' | 'cheap';

export type FairQueue = {
  /**
   * A turn for `client`'s transform of `weight` and estimated `cost`: admitted once it may run, refused
   * when over a bound, timed out after waiting.
   */
  enter: (client: string, weight: TransformWeight, cost?: number) => Promise<Admission>;
  /** What runs (on the general turns, on the cheap lane) and what waits now, in all and per client. */
  load: () => { running: number; cheap: number; waiting: number; clients: number };
};

export const createFairQueue = (limits: FairQueueLimits, clock: () => number = Date.now): FairQueue => {
  let running = 0;
  let cheapRunning = 0;
  /** Cheap requests waiting, in all (they may take a turn of the lane). */
  let cheapWaiting = 0;
  /** Each client's recent transform time (bounded: the least recently active are forgotten first). */
  const usage = createUsageLedger(clock);
  let waitingTotal = 0;
  /** Turns each client holds, running or waiting; a client with none is not in here. */
  const held = new Map<string, number>();
  /** Each waiting client's requests, first come first; map order is the round-robin order. */
  const queues = new Map<string, Waiter[]>();

  const take = (client: string) => held.set(client, (held.get(client) ?? 0) + 1);
  const giveBack = (client: string) => {
    const left = (held.get(client) ?? 1) - 1;
    if (left > 0) held.set(client, left);
    else held.delete(client);
  };

  /** The estimated cost of each client's running transforms; a client with none is not in here. */
  const runningCost = new Map<string, { cost: number; count: number }>();
  const clientCost = limits.clientCost ?? Infinity;
  const expensiveCost = limits.expensiveCost ?? Infinity;
  const expensiveTurns = limits.expensiveTurns ?? limits.running;
  /** Expensive transforms running on general turns. */
  let expensiveRunning = 0;
  /** Whether a transform of `cost` may take a general turn, by the bound on expensive ones. */
  const generalFits = (cost: number) => cost <= expensiveCost || expensiveRunning < expensiveTurns;
  /** Whether `client` may start a transform of `cost` now, by its share. */
  const withinShare = (client: string, cost: number) => {
    const spent = runningCost.get(client);
    return spent === undefined || spent.cost + cost <= clientCost;
  };

  /**
   * The next waiter a free turn of `lane` goes to: of the clients with a request that fits (the lane,
   * and the client's share), the one that used least lately, the first in line on a tie; its first such
   * request. The client goes to the back.
   */
  const nextWaiter = (lane: Lane): { client: string; waiter: Waiter } | null => {
    const now = clock();
    let chosen: { client: string; waiters: Waiter[]; at: number } | null = null;
    let least = Infinity;
    for (const [client, waiters] of queues) {
      const at = waiters.findIndex(
        (waiter) => (lane === 'general' ? generalFits(waiter.cost) : waiter.weight === 'cheap') && withinShare(client, waiter.cost),
      );
      if (at < 0) continue;
      const used = usage.usage(client, now);
      if (used < least) {
        least = used;
        chosen = { client, waiters, at };
      }
    }
    if (!chosen) return null;
    const { client, waiters, at } = chosen;
    const waiter = waiters.splice(at, 1)[0]!;
    queues.delete(client);
    if (waiters.length > 0) queues.set(client, waiters);
    waitingTotal -= 1;
    if (waiter.weight === 'cheap') cheapWaiting -= 1;
    return { client, waiter };
  };

  /** Takes a turn of `lane` for `client`'s transform of `cost`; the release gives it back. */
  const start = (client: string, lane: Lane, cost: number): Release => {
    const expensive = lane === 'general' && cost > expensiveCost;
    if (lane === 'general') running += 1;
    else cheapRunning += 1;
    if (expensive) expensiveRunning += 1;
    const spent = runningCost.get(client) ?? { cost: 0, count: 0 };
    runningCost.set(client, { cost: spent.cost + cost, count: spent.count + 1 });
    let released = false;
    const finish = usage.begin(client);
    return () => {
      if (released) return;
      released = true;
      finish();
      giveBack(client);
      const spent = runningCost.get(client)!;
      if (spent.count > 1) runningCost.set(client, { cost: spent.cost - cost, count: spent.count - 1 });
      else runningCost.delete(client);
      if (lane === 'general') running -= 1;
      else cheapRunning -= 1;
      if (expensive) expensiveRunning -= 1;
      dispatch();
    };
  };

  /**
   * Gives free turns to waiters that fit, general turns first. Afterwards, a free turn means no waiter
   * fits it: a newcomer that fits may take it without overtaking anyone.
   */
  const dispatch = () => {
    while (running < limits.running) {
      const next = nextWaiter('general');
      if (!next) break;
      clearTimeout(next.waiter.timer);
      next.waiter.admit(start(next.client, 'general', next.waiter.cost));
    }
    while (cheapRunning < limits.cheap && cheapWaiting > 0) {
      const next = nextWaiter('cheap');
      if (!next) break;
      clearTimeout(next.waiter.timer);
      next.waiter.admit(start(next.client, 'cheap', next.waiter.cost));
    }
  };

  /** Takes `waiter` out of `client`'s queue, answered `kind`: its place and its turn are given back. */
  const drop = (client: string, waiter: Waiter, kind: 'refused' | 'timed_out'): boolean => {
    const waiters = queues.get(client);
    const at = waiters?.indexOf(waiter) ?? -1;
    if (!waiters || at < 0) return false;
    waiters.splice(at, 1);
    if (waiters.length === 0) queues.delete(client);
    waitingTotal -= 1;
    if (waiter.weight === 'cheap') cheapWaiting -= 1;
    clearTimeout(waiter.timer);
    giveBack(client);
    waiter.leave(kind);
    return true;
  };

  /**
   * Shedding the heaviest first: with the queue full, a newcomer of a client lighter than the heaviest
   * waiting client takes the place of that client's newest waiter (refused: 503), as in the load gate
   * (http/fair-scheduler.ts). A newcomer of the heaviest client, or of one as heavy, is refused itself.
   */
  const displaceFor = (client: string): boolean => {
    const now = clock();
    let heaviest: string | null = null;
    let most = -Infinity;
    for (const name of queues.keys()) {
      const used = usage.usage(name, now);
      if (used >= most) {
        most = used;
        heaviest = name;
      }
    }
    if (heaviest === null || heaviest === client || most <= usage.usage(client, now)) return false;
    const waiters = queues.get(heaviest)!;
    return drop(heaviest, waiters[waiters.length - 1]!, 'refused');
  };

  const admitNow = (client: string, lane: Lane, cost: number): Promise<Admission> => {
    take(client);
    return Promise.resolve({ kind: 'admitted', release: start(client, lane, cost) });
  };

  return {
    enter(client, weight, cost = 0) {
      if ((held.get(client) ?? 0) >= limits.perClient) return Promise.resolve({ kind: 'refused' });
      // A free turn means no waiter fits it (dispatch): a newcomer that fits never overtakes one there.
      if (withinShare(client, cost)) {
        if (running < limits.running && generalFits(cost)) return admitNow(client, 'general', cost);
        // The lane is cheap transforms' own: heavy ones waiting for a general turn do not hold it up.
        if (weight === 'cheap' && cheapRunning < limits.cheap) return admitNow(client, 'cheap', cost);
      }
      if (waitingTotal >= limits.waiting && !displaceFor(client)) return Promise.resolve({ kind: 'refused' });
      take(client);
      waitingTotal += 1;
      if (weight === 'cheap') cheapWaiting += 1;
      return new Promise<Admission>((resolve) => {
        const waiter: Waiter = {
          weight,
          cost,
          admit: (release) => resolve({ kind: 'admitted', release }),
          leave: (kind) => resolve({ kind }),
          timer: setTimeout(() => drop(client, waiter, 'timed_out'), limits.maxWaitMs),
        };
        const waiters = queues.get(client);
        if (waiters) waiters.push(waiter);
        else queues.set(client, [waiter]);
      });
    },
    load: () => ({ running, cheap: cheapRunning, waiting: waitingTotal, clients: held.size }),
  };
};

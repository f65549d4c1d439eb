/**
 * The transform queue's order and bounds (contract section 13, "Assets"). Pure: no Strapi, no sharp.
 *
 * - At most `running` transforms run at once; the rest wait.
 * - Waiting is fair between clients: a freed turn goes to the waiting client that has used the least
 *   transform time lately (running time, halved every `USAGE_HALF_LIFE_MS`), ties in round-robin order.
 *   A client with a hundred requests waiting never delays another client's one request by its hundred,
 *   and a client that asks rarely (a visitor's first thumbnail) goes before clients that flood, so it
 *   waits for one turn to free up, not for one turn per flooding client.
 * - Bounded: a client holds at most `perClient` turns, running and waiting together, and at most
 *   `waiting` requests wait in all; past either, a request is refused at once (the caller answers 503).
 * - A request waits at most `maxWaitMs`; then it leaves the queue, timed out.
 * - A lane for cheap transforms (small outputs, assets/transform-cost.ts): `cheap` turns besides the
 *   `running` ones that only cheap transforms take. A cheap transform takes a free turn of either kind;
 *   when every turn is taken by heavy work, it still runs on the lane without waiting behind the heavy
 *   ones, so a visitor's first thumbnail never waits for a large AVIF encoding to end. Heavy transforms
 *   never take the lane. Waiters for the lane are served in the same fair order, among cheap ones.
 */
export type FairQueueLimits = {
  running: number;
  /** Turns only cheap transforms take, besides `running` (0: no lane). */
  cheap: number;
  waiting: number;
  perClient: number;
  maxWaitMs: number;
};

/** What a transform costs, as the queue tells them apart. */
export type TransformWeight = 'cheap' | 'heavy';

/** How fast a client's past transform time is forgotten. */
export const USAGE_HALF_LIFE_MS = 30_000;
/** Clients whose usage is remembered at most; the least recently active are forgotten first. */
const USAGE_MAX_CLIENTS = 10_000;

type Usage = { ms: number; at: number };

/** Gives the turn back (once; later calls do nothing). */
export type Release = () => void;

export type Admission = { kind: 'admitted'; release: Release } | { kind: 'refused' } | { kind: 'timed_out' };

type Waiter = { weight: TransformWeight; admit: (release: Release) => void; timer: ReturnType<typeof setTimeout> };

type Lane = 'general' | 'cheap';

export type FairQueue = {
  /**
   * A turn for `client`'s transform of `weight`: admitted once it may run, refused when over a bound,
   * timed out after waiting.
   */
  enter: (client: string, weight: TransformWeight) => Promise<Admission>;
  /** What runs (on the general turns, on the cheap lane) and what waits now, in all and per client. */
  load: () => { running: number; cheap: number; waiting: number; clients: number };
};

export const createFairQueue = (limits: FairQueueLimits, clock: () => number = Date.now): FairQueue => {
  let running = 0;
  let cheapRunning = 0;
  /** Cheap requests waiting, in all (they may take a turn of the lane). */
  let cheapWaiting = 0;
  /** Each client's recent transform time; map order is least recently active first. */
  const usage = new Map<string, Usage>();
  const usageOf = (client: string, now: number): number => {
    const entry = usage.get(client);
    return entry ? entry.ms * 0.5 ** ((now - entry.at) / USAGE_HALF_LIFE_MS) : 0;
  };
  const charge = (client: string, ms: number) => {
    const now = clock();
    const total = usageOf(client, now) + ms;
    usage.delete(client);
    usage.set(client, { ms: total, at: now });
    if (usage.size > USAGE_MAX_CLIENTS) usage.delete(usage.keys().next().value as string);
  };
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

  /**
   * The next waiter a freed turn of `lane` goes to: of the client that used least lately (among clients
   * with a cheap request waiting, for the lane), that client's first such request, the first client in
   * line on a tie; the client goes to the back.
   */
  const nextWaiter = (lane: Lane): { client: string; waiter: Waiter } | null => {
    const fits = (waiter: Waiter) => lane === 'general' || waiter.weight === 'cheap';
    const now = clock();
    let chosen: [string, Waiter[]] | null = null;
    let least = Infinity;
    for (const entry of queues) {
      if (lane === 'cheap' && !entry[1].some(fits)) continue;
      const used = usageOf(entry[0], now);
      if (used < least) {
        least = used;
        chosen = entry;
      }
    }
    if (!chosen) return null;
    const [client, waiters] = chosen;
    const waiter = waiters.splice(waiters.findIndex(fits), 1)[0]!;
    queues.delete(client);
    if (waiters.length > 0) queues.set(client, waiters);
    waitingTotal -= 1;
    if (waiter.weight === 'cheap') cheapWaiting -= 1;
    return { client, waiter };
  };

  const turnOf = (client: string, lane: Lane): Release => {
    let released = false;
    const started = clock();
    return () => {
      if (released) return;
      released = true;
      charge(client, clock() - started);
      giveBack(client);
      const next = lane === 'cheap' && cheapWaiting === 0 ? null : nextWaiter(lane);
      if (next) {
        clearTimeout(next.waiter.timer);
        next.waiter.admit(turnOf(next.client, lane));
      } else if (lane === 'general') {
        running -= 1;
      } else {
        cheapRunning -= 1;
      }
    };
  };

  const admitNow = (client: string, lane: Lane): Promise<Admission> => {
    if (lane === 'general') running += 1;
    else cheapRunning += 1;
    take(client);
    return Promise.resolve({ kind: 'admitted', release: turnOf(client, lane) });
  };

  return {
    enter(client, weight) {
      if ((held.get(client) ?? 0) >= limits.perClient) return Promise.resolve({ kind: 'refused' });
      // Waiters exist only while every general turn is taken: a newcomer never overtakes them there.
      if (running < limits.running && waitingTotal === 0) return admitNow(client, 'general');
      // The lane is cheap transforms' own: heavy ones waiting for a general turn do not hold it up.
      if (weight === 'cheap' && cheapRunning < limits.cheap && cheapWaiting === 0) return admitNow(client, 'cheap');
      if (waitingTotal >= limits.waiting) return Promise.resolve({ kind: 'refused' });
      take(client);
      waitingTotal += 1;
      if (weight === 'cheap') cheapWaiting += 1;
      return new Promise<Admission>((resolve) => {
        const waiter: Waiter = {
          weight,
          admit: (release) => resolve({ kind: 'admitted', release }),
          timer: setTimeout(() => {
            const waiters = queues.get(client);
            const at = waiters?.indexOf(waiter) ?? -1;
            if (!waiters || at < 0) return;
            waiters.splice(at, 1);
            if (waiters.length === 0) queues.delete(client);
            waitingTotal -= 1;
            if (weight === 'cheap') cheapWaiting -= 1;
            giveBack(client);
            resolve({ kind: 'timed_out' });
          }, limits.maxWaitMs),
        };
        const waiters = queues.get(client);
        if (waiters) waiters.push(waiter);
        else queues.set(client, [waiter]);
      });
    },
    load: () => ({ running, cheap: cheapRunning, waiting: waitingTotal, clients: held.size }),
  };
};

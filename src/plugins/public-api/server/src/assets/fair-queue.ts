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
 */
export type FairQueueLimits = {
  running: number;
  waiting: number;
  perClient: number;
  maxWaitMs: number;
};

/** How fast a client's past transform time is forgotten. */
export const USAGE_HALF_LIFE_MS = 30_000;
/** Clients whose usage is remembered at most; the least recently active are forgotten first. */
const USAGE_MAX_CLIENTS = 10_000;

type Usage = { ms: number; at: number };

/** Gives the turn back (once; later calls do nothing). */
export type Release = () => void;

export type Admission = { kind: 'admitted'; release: Release } | { kind: 'refused' } | { kind: 'timed_out' };

type Waiter = { admit: (release: Release) => void; timer: ReturnType<typeof setTimeout> };

export type FairQueue = {
  /** A turn for `client`: admitted once it may run, refused when over a bound, timed out after waiting. */
  enter: (client: string) => Promise<Admission>;
  /** What runs and what waits now, in all and per client. */
  load: () => { running: number; waiting: number; clients: number };
};

export const createFairQueue = (limits: FairQueueLimits, clock: () => number = Date.now): FairQueue => {
  let running = 0;
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

  /** The next waiter: of the client that used least lately, the first in line on a tie; it goes to the back. */
  const nextWaiter = (): { client: string; waiter: Waiter } | null => {
    const now = clock();
    let chosen: [string, Waiter[]] | null = null;
    let least = Infinity;
    for (const entry of queues) {
      const used = usageOf(entry[0], now);
      if (used < least) {
        least = used;
        chosen = entry;
      }
    }
    if (!chosen) return null;
    const [client, waiters] = chosen;
    const waiter = waiters.shift()!;
    queues.delete(client);
    if (waiters.length > 0) queues.set(client, waiters);
    waitingTotal -= 1;
    return { client, waiter };
  };

  const turnOf = (client: string): Release => {
    let released = false;
    const started = clock();
    return () => {
      if (released) return;
      released = true;
      charge(client, clock() - started);
      giveBack(client);
      const next = nextWaiter();
      if (next) {
        clearTimeout(next.waiter.timer);
        next.waiter.admit(turnOf(next.client));
      } else {
        running -= 1;
      }
    };
  };

  return {
    enter(client) {
      if ((held.get(client) ?? 0) >= limits.perClient) return Promise.resolve({ kind: 'refused' });
      if (running < limits.running && waitingTotal === 0) {
        running += 1;
        take(client);
        return Promise.resolve({ kind: 'admitted', release: turnOf(client) });
      }
      if (waitingTotal >= limits.waiting) return Promise.resolve({ kind: 'refused' });
      take(client);
      waitingTotal += 1;
      return new Promise<Admission>((resolve) => {
        const waiter: Waiter = {
          admit: (release) => resolve({ kind: 'admitted', release }),
          timer: setTimeout(() => {
            const waiters = queues.get(client);
            const at = waiters?.indexOf(waiter) ?? -1;
            if (!waiters || at < 0) return;
            waiters.splice(at, 1);
            if (waiters.length === 0) queues.delete(client);
            waitingTotal -= 1;
            giveBack(client);
            resolve({ kind: 'timed_out' });
          }, limits.maxWaitMs),
        };
        const waiters = queues.get(client);
        if (waiters) waiters.push(waiter);
        else queues.set(client, [waiter]);
      });
    },
    load: () => ({ running, waiting: waitingTotal, clients: held.size }),
  };
};

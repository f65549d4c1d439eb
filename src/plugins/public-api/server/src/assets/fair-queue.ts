/**
 * The transform queue's order and bounds (contract section 13, "Assets"). Pure: no Strapi, no sharp.
 *
 * - At most `running` transforms run at once; the rest wait.
 * - Waiting is fair between clients: a freed turn goes to the next client in round-robin order, so a
 *   client with a hundred requests waiting delays another client's one request by at most one turn per
 *   client, never by its hundred.
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

export const createFairQueue = (limits: FairQueueLimits): FairQueue => {
  let running = 0;
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

  /** The next waiter in round-robin order: its client goes to the back of the line. */
  const nextWaiter = (): { client: string; waiter: Waiter } | null => {
    const first = queues.entries().next();
    if (first.done) return null;
    const [client, waiters] = first.value;
    const waiter = waiters.shift()!;
    queues.delete(client);
    if (waiters.length > 0) queues.set(client, waiters);
    waitingTotal -= 1;
    return { client, waiter };
  };

  const turnOf = (client: string): Release => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
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

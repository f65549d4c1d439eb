/**
 * The transform queue's order and bounds (assets/fair-queue.ts): turns in flight, the client that used
 * least lately first and round-robin on ties, the per-client and total bounds, and the wait limit.
 * The lane of cheap transforms: turns that only cheap transforms take, so that they never wait behind
 * heavy ones. Tests of the order stop the clock (every client has used no time) unless they are about
 * usage.
 */
import fc from 'fast-check';
import {
  USAGE_HALF_LIFE_MS,
  createFairQueue,
  type Admission,
  type Release,
} from '../../src/plugins/public-api/server/src/assets/fair-queue';

afterEach(() => {
  jest.useRealTimers();
});

const LONG = 60_000;
const stopped = () => 0;
const admitted = (admission: Admission): Release => {
  if (admission.kind !== 'admitted') throw new Error(`expected a turn, got ${admission.kind}`);
  return admission.release;
};
const tick = async () => {
  for (let i = 0; i < 3; i += 1) await Promise.resolve();
};

test('a flooding client cannot starve another: freed turns go round-robin between clients', async () => {
  const queue = createFairQueue({ cheap: 0, running: 1, waiting: 100, perClient: 100, maxWaitMs: LONG }, stopped);
  const order: string[] = [];
  const first = admitted(await queue.enter('flood', 'heavy'));
  const served: Promise<void>[] = [];
  const enter = (client: string, label: string) =>
    served.push(
      queue.enter(client, 'heavy').then((admission) => {
        order.push(label);
        admitted(admission)();
      }),
    );
  for (let n = 1; n <= 5; n += 1) enter('flood', `flood-${n}`);
  enter('quiet', 'quiet-1');
  first();
  await Promise.all(served);
  // The quiet client waited behind one of the flood's requests, not five.
  expect(order).toEqual(['flood-1', 'quiet-1', 'flood-2', 'flood-3', 'flood-4', 'flood-5']);
  expect(queue.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
});

test('a client holds at most perClient turns, running and waiting together; others still get in', async () => {
  const queue = createFairQueue({ cheap: 0, running: 1, waiting: 100, perClient: 2, maxWaitMs: LONG }, stopped);
  const running = admitted(await queue.enter('a', 'heavy'));
  const waiting = queue.enter('a', 'heavy');
  expect(await queue.enter('a', 'heavy')).toEqual({ kind: 'refused' });
  const other = queue.enter('b', 'heavy');
  expect(queue.load()).toEqual({ running: 1, cheap: 0, waiting: 2, clients: 2 });
  running();
  admitted(await waiting)();
  admitted(await other)();
  // Turns given back make room for the client again.
  admitted(await queue.enter('a', 'heavy'))();
  expect(queue.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
});

test('past the total of waiting requests, a client no lighter than the heaviest waiting is refused at once', async () => {
  const queue = createFairQueue({ cheap: 0, running: 1, waiting: 2, perClient: 10, maxWaitMs: LONG }, stopped);
  const held = admitted(await queue.enter('a', 'heavy'));
  const waiters = [queue.enter('b', 'heavy'), queue.enter('c', 'heavy')];
  expect(await queue.enter('d', 'heavy')).toEqual({ kind: 'refused' });
  held();
  admitted(await waiters[0]!)();
  admitted(await waiters[1]!)();
});

test("with the queue full, a lighter client's newcomer takes the place of the heaviest client's newest waiter", async () => {
  let now = 0;
  const queue = createFairQueue({ cheap: 0, running: 1, waiting: 2, perClient: 10, maxWaitMs: LONG }, () => now);
  // The flood has used 5 s of transforms; its next one runs, two more wait and fill the queue.
  const first = admitted(await queue.enter('flood', 'heavy'));
  now += 5_000;
  first();
  const held = admitted(await queue.enter('flood', 'heavy'));
  const older = queue.enter('flood', 'heavy');
  const newest = queue.enter('flood', 'heavy');
  // Its own newcomer is refused: it is the heaviest.
  expect(await queue.enter('flood', 'heavy')).toEqual({ kind: 'refused' });
  // A visitor's is not: the flood's newest waiter is refused in its place.
  const visitor = queue.enter('visitor', 'heavy');
  expect(await newest).toEqual({ kind: 'refused' });
  expect(queue.load()).toEqual({ running: 1, cheap: 0, waiting: 2, clients: 2 });
  held();
  // The visitor, lighter, goes first.
  admitted(await visitor)();
  admitted(await older)();
  expect(queue.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
});

test('a request that waits longer than maxWaitMs times out and gives its place back', async () => {
  jest.useFakeTimers();
  const queue = createFairQueue({ cheap: 0, running: 1, waiting: 10, perClient: 1, maxWaitMs: 1_000 }, stopped);
  const held = admitted(await queue.enter('a', 'heavy'));
  const waiting = queue.enter('b', 'heavy');
  jest.advanceTimersByTime(999);
  expect(queue.load().waiting).toBe(1);
  jest.advanceTimersByTime(1);
  expect(await waiting).toEqual({ kind: 'timed_out' });
  expect(queue.load()).toEqual({ running: 1, cheap: 0, waiting: 0, clients: 1 });
  // b's turn (its one under perClient) was given back.
  const again = queue.enter('b', 'heavy');
  held();
  admitted(await again)();
  expect(queue.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
});

test('property: the bounds hold at every step, and every turn comes back', async () => {
  type Step = { kind: 'enter'; client: number } | { kind: 'release'; index: number };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.integer({ min: 0, max: 3 }).map((client): Step => ({ kind: 'enter', client })),
    fc.nat(40).map((index): Step => ({ kind: 'release', index })),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 3 }),
      fc.integer({ min: 0, max: 6 }),
      fc.integer({ min: 1, max: 4 }),
      fc.array(step, { maxLength: 80 }),
      async (running, waiting, perClient, steps) => {
        const queue = createFairQueue({ cheap: 0, running, waiting, perClient, maxWaitMs: LONG }, stopped);
        const held: { client: number; release: Release }[] = [];
        /** Turns each client holds by the model: admitted or still waiting, not yet given back. */
        const holding = new Map<number, number>();
        for (const current of steps) {
          if (current.kind === 'enter') {
            const { client } = current;
            const before = holding.get(client) ?? 0;
            let refused = false;
            void queue.enter(`c${client}`, 'heavy').then((admission) => {
              if (admission.kind === 'admitted') held.push({ client, release: admission.release });
              else refused = true;
            });
            await tick();
            if (before >= perClient) expect(refused).toBe(true);
            if (!refused) holding.set(client, before + 1);
          } else if (held.length > 0) {
            const [turn] = held.splice(current.index % held.length, 1);
            turn!.release();
            holding.set(turn!.client, holding.get(turn!.client)! - 1);
            await tick();
          }
          const load = queue.load();
          expect(load.running).toBeLessThanOrEqual(running);
          expect(load.waiting).toBeLessThanOrEqual(waiting);
          expect(load.running).toBe(held.length);
          expect(load.running + load.waiting).toBe([...holding.values()].reduce((sum, count) => sum + count, 0));
          for (const count of holding.values()) expect(count).toBeLessThanOrEqual(perClient);
        }
        while (held.length > 0) {
          held.shift()!.release();
          await tick();
        }
        expect(queue.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
      },
    ),
  );
});

test('property: waiting requests are served round-robin between clients, each client first come first served', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 40 }), async (arrivals) => {
      const queue = createFairQueue({ cheap: 0, running: 1, waiting: 1_000, perClient: 1_000, maxWaitMs: LONG }, stopped);
      const holder = admitted(await queue.enter('holder', 'heavy'));
      const order: string[] = [];
      const served = arrivals.map((client, n) =>
        queue.enter(`c${client}`, 'heavy').then((admission) => {
          order.push(`c${client}#${n}`);
          admitted(admission)();
        }),
      );
      holder();
      await Promise.all(served);
      // The model: clients in line in order of arrival; one served goes to the back while it has more.
      const lines = new Map<string, string[]>();
      arrivals.forEach((client, n) => {
        const line = lines.get(`c${client}`) ?? [];
        line.push(`c${client}#${n}`);
        lines.set(`c${client}`, line);
      });
      const expected: string[] = [];
      while (lines.size > 0) {
        const [client, line] = lines.entries().next().value as [string, string[]];
        expected.push(line.shift()!);
        lines.delete(client);
        if (line.length > 0) lines.set(client, line);
      }
      expect(order).toEqual(expected);
    }),
  );
});

test('a freed turn goes to the waiting client that used the least transform time lately', async () => {
  let now = 0;
  const queue = createFairQueue({ cheap: 0, running: 1, waiting: 100, perClient: 100, maxWaitMs: 10 * LONG }, () => now);
  // The flood uses 10 s of transforms; the quiet client none.
  const flood = admitted(await queue.enter('flood', 'heavy'));
  now += 10_000;
  const order: string[] = [];
  const served: Promise<void>[] = [];
  const enter = (client: string, label: string, runMs: number) =>
    served.push(
      queue.enter(client, 'heavy').then((admission) => {
        order.push(label);
        const release = admitted(admission);
        now += runMs;
        release();
      }),
    );
  enter('flood', 'flood-1', 5_000);
  enter('flood', 'flood-2', 5_000);
  enter('other', 'other-1', 4_000);
  enter('quiet', 'quiet-1', 100);
  flood();
  await Promise.all(served);
  // quiet and other (no time used) go before the flood; once other has used 4 s, the flood's 10 s, halved
  // over time, still weighs more until its turns come: every waiter is served, none starves.
  expect(order.slice(0, 2)).toEqual(['other-1', 'quiet-1']);
  expect(order.slice(2)).toEqual(['flood-1', 'flood-2']);
  expect(queue.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
});

test('usage is forgotten over time: after a few half-lives a past flood weighs nothing', async () => {
  let now = 0;
  const queue = createFairQueue({ cheap: 0, running: 1, waiting: 100, perClient: 100, maxWaitMs: 100 * LONG }, () => now);
  const flood = admitted(await queue.enter('flood', 'heavy'));
  now += 10_000;
  flood();
  now += 20 * USAGE_HALF_LIFE_MS;
  // 10 s halved 20 times is under 0.01 ms; another client that just used 1 ms now weighs more.
  const other = admitted(await queue.enter('other', 'heavy'));
  now += 1;
  const order: string[] = [];
  const both = [
    queue.enter('other', 'heavy').then((admission) => {
      order.push('other');
      admitted(admission)();
    }),
    queue.enter('flood', 'heavy').then((admission) => {
      order.push('flood');
      admitted(admission)();
    }),
  ];
  other();
  await Promise.all(both);
  expect(order).toEqual(['flood', 'other']);
});

describe('the lane of cheap transforms', () => {
  test('a cheap transform runs on the lane while heavy ones hold every turn and more wait; heavy ones never take it', async () => {
    const queue = createFairQueue({ running: 1, cheap: 1, waiting: 100, perClient: 100, maxWaitMs: LONG }, stopped);
    const heavy = admitted(await queue.enter('flood', 'heavy'));
    const waitingHeavy = queue.enter('flood', 'heavy');
    const otherHeavy = queue.enter('other', 'heavy');
    await tick();
    expect(queue.load()).toEqual({ running: 1, cheap: 0, waiting: 2, clients: 2 });
    const thumbnail = admitted(await queue.enter('visitor', 'cheap'));
    expect(queue.load()).toEqual({ running: 1, cheap: 1, waiting: 2, clients: 3 });
    // The lane freed: the heavy ones still wait for the general turn.
    thumbnail();
    await tick();
    expect(queue.load()).toEqual({ running: 1, cheap: 0, waiting: 2, clients: 2 });
    heavy();
    admitted(await waitingHeavy)();
    admitted(await otherHeavy)();
    expect(queue.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
  });

  test('a cheap transform takes a free general turn first, and the lane only when none is free', async () => {
    const queue = createFairQueue({ running: 1, cheap: 1, waiting: 100, perClient: 100, maxWaitMs: LONG }, stopped);
    const first = admitted(await queue.enter('a', 'cheap'));
    expect(queue.load()).toMatchObject({ running: 1, cheap: 0 });
    const second = admitted(await queue.enter('b', 'cheap'));
    expect(queue.load()).toMatchObject({ running: 1, cheap: 1 });
    first();
    second();
    expect(queue.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
  });

  test('with the lane taken, a cheap transform waits in the fair order for whichever turn frees first', async () => {
    const queue = createFairQueue({ running: 1, cheap: 1, waiting: 100, perClient: 100, maxWaitMs: LONG }, stopped);
    const heavy = admitted(await queue.enter('flood', 'heavy'));
    const lane = admitted(await queue.enter('a', 'cheap'));
    const order: string[] = [];
    const served = [
      queue.enter('flood', 'heavy').then((admission) => order.push(`flood:${admitted(admission) && 'admitted'}`)),
      queue.enter('b', 'cheap').then((admission) => order.push(`b:${admitted(admission) && 'admitted'}`)),
    ];
    await tick();
    expect(queue.load()).toEqual({ running: 1, cheap: 1, waiting: 2, clients: 3 });
    // The lane frees: it goes to b, not to the heavy request that came first.
    lane();
    await tick();
    expect(order).toEqual(['b:admitted']);
    expect(queue.load()).toMatchObject({ running: 1, cheap: 1, waiting: 1 });
    heavy();
    await Promise.all(served);
    expect(order).toEqual(['b:admitted', 'flood:admitted']);
  });

  test('property: heavy transforms never hold more than the general turns, the lane is never exceeded, and a cheap one never waits while the lane is free', async () => {
    type Step = { kind: 'enter'; client: number; cheap: boolean } | { kind: 'release'; index: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ client: fc.integer({ min: 0, max: 3 }), cheap: fc.boolean() }).map((entry): Step => ({ kind: 'enter', ...entry })),
      fc.nat(40).map((index): Step => ({ kind: 'release', index })),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 2 }),
        fc.array(step, { maxLength: 80 }),
        async (running, cheap, steps) => {
          const queue = createFairQueue({ running, cheap, waiting: 6, perClient: 4, maxWaitMs: LONG }, stopped);
          const held: { cheap: boolean; release: Release }[] = [];
          const entered: { cheap: boolean; settled: boolean }[] = [];
          for (const current of steps) {
            if (current.kind === 'enter') {
              const entry = { cheap: current.cheap, settled: false };
              entered.push(entry);
              void queue.enter(`c${current.client}`, current.cheap ? 'cheap' : 'heavy').then((admission) => {
                entry.settled = true;
                if (admission.kind === 'admitted') held.push({ cheap: current.cheap, release: admission.release });
              });
              await tick();
            } else if (held.length > 0) {
              const [turn] = held.splice(current.index % held.length, 1);
              turn!.release();
              await tick();
            }
            const load = queue.load();
            const waiting = entered.filter((entry) => !entry.settled);
            expect(load.running).toBeLessThanOrEqual(running);
            expect(load.cheap).toBeLessThanOrEqual(cheap);
            expect(load.running + load.cheap).toBe(held.length);
            expect(load.waiting).toBe(waiting.length);
            expect(held.filter((turn) => !turn.cheap).length).toBeLessThanOrEqual(running);
            // Nobody waits while a general turn is free; no cheap transform waits while the lane is free.
            if (load.running < running) expect(waiting).toEqual([]);
            if (load.cheap < cheap) expect(waiting.filter((entry) => entry.cheap)).toEqual([]);
          }
          while (held.length > 0) {
            held.shift()!.release();
            await tick();
          }
          expect(queue.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
        },
      ),
    );
  });
});

describe("a client's share of cost", () => {
  const limits = { cheap: 0, running: 3, waiting: 100, perClient: 100, maxWaitMs: LONG, clientCost: 8 };

  test('a client runs transforms side by side within its share; past it, one waits while a turn stays free for others', async () => {
    const queue = createFairQueue(limits, stopped);
    const first = admitted(await queue.enter('flood', 'heavy', 3));
    const second = admitted(await queue.enter('flood', 'heavy', 3));
    // 3 + 3 + 3 is over 8: it waits, though a turn is free.
    let third: Release | null = null;
    void queue.enter('flood', 'heavy', 3).then((admission) => {
      third = admitted(admission);
    });
    await tick();
    expect(third).toBeNull();
    expect(queue.load()).toEqual({ running: 2, cheap: 0, waiting: 1, clients: 1 });
    // Another client takes the free turn at once.
    const other = admitted(await queue.enter('other', 'heavy', 3));
    expect(queue.load()).toEqual({ running: 3, cheap: 0, waiting: 1, clients: 2 });
    // A turn of another client frees: the flood is still over its share, the turn stays free.
    other();
    await tick();
    expect(third).toBeNull();
    expect(queue.load()).toEqual({ running: 2, cheap: 0, waiting: 1, clients: 1 });
    // One of its own ends: its waiting transform fits again and starts.
    first();
    await tick();
    expect(third).not.toBeNull();
    second();
    third!();
    expect(queue.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
  });

  test('a client with nothing running may start one transform of any cost, and no second beside it', async () => {
    const queue = createFairQueue(limits, stopped);
    const large = admitted(await queue.enter('a', 'heavy', 246));
    let small: Release | null = null;
    void queue.enter('a', 'heavy', 0.6).then((admission) => {
      small = admitted(admission);
    });
    await tick();
    expect(small).toBeNull();
    large();
    await tick();
    small!();
    expect(queue.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
  });

  test('a freed turn skips a client over its share for the next client that fits, whoever used less', async () => {
    let now = 0;
    const queue = createFairQueue({ ...limits, running: 2 }, () => now);
    const other = admitted(await queue.enter('other', 'heavy', 1));
    const flood = admitted(await queue.enter('flood', 'heavy', 20));
    // The flood has used nothing yet, the other client has: still, the flood's next cannot start.
    now = 1_000;
    const floodNext = queue.enter('flood', 'heavy', 20);
    const otherNext = queue.enter('other', 'heavy', 1);
    other();
    admitted(await otherNext)();
    flood();
    admitted(await floodNext)();
    expect(queue.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
  });

  test('expensive transforms of many clients hold at most expensiveTurns; a medium one takes the turn left, at once', async () => {
    const queue = createFairQueue({ ...limits, running: 2, expensiveCost: 4, expensiveTurns: 1 }, stopped);
    const first = admitted(await queue.enter('a', 'heavy', 7));
    let second: Release | null = null;
    void queue.enter('b', 'heavy', 7).then((admission) => {
      second = admitted(admission);
    });
    await tick();
    expect(second).toBeNull();
    expect(queue.load()).toEqual({ running: 1, cheap: 0, waiting: 1, clients: 2 });
    const medium = admitted(await queue.enter('c', 'heavy', 2));
    // The medium one ends: the expensive one still may not take its turn.
    medium();
    await tick();
    expect(second).toBeNull();
    // The expensive one ends: the next starts.
    first();
    await tick();
    second!();
    expect(queue.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
  });

  test('property: a client runs more than one transform only within its share, expensive ones hold at most expensiveTurns, and a free turn never has a waiter that fits', async () => {
    type Step = { kind: 'enter'; client: number; cost: number } | { kind: 'release'; index: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc
        .tuple(fc.integer({ min: 0, max: 2 }), fc.constantFrom(0.3, 1, 3, 6, 20))
        .map(([client, cost]): Step => ({ kind: 'enter', client, cost })),
      fc.nat(20).map((index): Step => ({ kind: 'release', index })),
    );
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.array(step, { maxLength: 60 }), async (running, steps) => {
        const expensiveTurns = Math.max(1, running - 1);
        const queue = createFairQueue({ ...limits, running, expensiveCost: 4, expensiveTurns }, stopped);
        const held: { client: number; cost: number; release: Release }[] = [];
        const waiting: { client: number; cost: number }[] = [];
        for (const current of steps) {
          if (current.kind === 'enter') {
            const entry = { client: current.client, cost: current.cost };
            waiting.push(entry);
            void queue.enter(`c${current.client}`, 'heavy', current.cost).then((admission) => {
              waiting.splice(waiting.indexOf(entry), 1);
              held.push({ ...entry, release: admitted(admission) });
            });
          } else if (held.length > 0) {
            held.splice(current.index % held.length, 1)[0]!.release();
          }
          await tick();
          const spent = new Map<number, { cost: number; count: number }>();
          for (const { client, cost } of held) {
            const before = spent.get(client) ?? { cost: 0, count: 0 };
            spent.set(client, { cost: before.cost + cost, count: before.count + 1 });
          }
          for (const { cost, count } of spent.values()) if (count > 1) expect(cost).toBeLessThanOrEqual(8);
          expect(held.length).toBeLessThanOrEqual(running);
          const expensive = held.filter((entry) => entry.cost > 4).length;
          expect(expensive).toBeLessThanOrEqual(expensiveTurns);
          if (held.length < running) {
            for (const waiter of waiting) {
              const of = spent.get(waiter.client);
              const overShare = of !== undefined && of.cost + waiter.cost > 8;
              expect(overShare || (waiter.cost > 4 && expensive === expensiveTurns)).toBe(true);
            }
          }
        }
        for (const entry of held.splice(0)) entry.release();
        while (held.length > 0 || waiting.length > 0) {
          await tick();
          for (const entry of held.splice(0)) entry.release();
        }
        expect(queue.load()).toEqual({ running: 0, cheap: 0, waiting: 0, clients: 0 });
      }),
    );
  });
});

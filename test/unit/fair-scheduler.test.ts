/**
 * The weighted fair scheduler (http/fair-scheduler.ts) and its usage ledger (http/fair-usage.ts), on a
 * clock of the test's own: rotation between holders, weights by cost, work running counted as it runs,
 * shedding the heaviest holder first, the bounds, timeouts; and, as a property, that no bound is ever
 * passed and every piece of work admitted is released.
 */
import fc from 'fast-check';
import { createFairScheduler, type FairLimits, type Release } from '../../src/plugins/public-api/server/src/http/fair-scheduler';
import { createUsageLedger, USAGE_HALF_LIFE_MS } from '../../src/plugins/public-api/server/src/http/fair-usage';

afterEach(() => {
  jest.useRealTimers();
});

let now = 0;
const clock = () => now;
beforeEach(() => {
  now = 1_000_000;
});

const limits = (overrides: Partial<FairLimits> = {}): FairLimits => ({
  capacity: 1,
  maxWaiting: 100,
  maxWaitMs: 60_000,
  maxPerHolder: Infinity,
  ...overrides,
});

/** Lets resolved promises' callbacks run. */
const settle = async () => {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
};

type Running = { holder: string; release: Release };

/** Enters `holder`'s work; once admitted, its name goes to `served` and its release to `running`. */
const queue = (scheduler: ReturnType<typeof createFairScheduler>, holder: string, served: string[], running: Running[], size = 1) =>
  scheduler.enter(holder, size).then((release) => {
    if (release) {
      served.push(holder);
      running.push({ holder, release });
    }
    return release;
  });

/** Releases the oldest running piece, charged `costs[its holder]`, `turns` times or until none runs. */
const drain = async (running: Running[], costs: Record<string, number>, turns: number) => {
  for (let turn = 0; turn < turns && running.length > 0; turn += 1) {
    const piece = running.shift()!;
    piece.release(costs[piece.holder]);
    await settle();
  }
};

test('holders with waiting work take turns in rotation, one each per round, however many each has waiting', async () => {
  const scheduler = createFairScheduler(limits({ maxWaiting: 1_000 }), clock);
  const served: string[] = [];
  const releases: Running[] = [];
  await queue(scheduler, 'flood', served, releases);
  // The flood has a hundred waiting; two other keys have one or two.
  const pending = Array.from({ length: 100 }, () => queue(scheduler, 'flood', served, releases));
  pending.push(
    queue(scheduler, 'one', served, releases),
    queue(scheduler, 'two', served, releases),
    queue(scheduler, 'two', served, releases),
  );
  await settle();
  expect(scheduler.load()).toEqual({ running: 1, waiting: 103, holders: 3 });
  await drain(releases, { flood: 10, one: 10, two: 10 }, 8);
  // The flood's first turn ran; then each key in rotation, the flood getting no more than the others.
  expect(served.slice(0, 8)).toEqual(['flood', 'one', 'two', 'flood', 'two', 'flood', 'flood', 'flood']);
  await drain(releases, { flood: 10 }, 200);
  await Promise.all(pending);
  expect(scheduler.load()).toEqual({ running: 0, waiting: 0, holders: 0 });
});

test('turns are weighted by cost: a key whose requests cost three times as much gets a third of the turns', async () => {
  const scheduler = createFairScheduler(limits(), clock);
  const served: string[] = [];
  const releases: Running[] = [];
  await queue(scheduler, 'light', served, releases);
  const pending = [
    ...Array.from({ length: 20 }, () => queue(scheduler, 'heavy', served, releases)),
    ...Array.from({ length: 20 }, () => queue(scheduler, 'light', served, releases)),
  ];
  await settle();
  await drain(releases, { heavy: 30, light: 10 }, 16);
  const first = served.slice(0, 16);
  expect(first.filter((holder) => holder === 'heavy')).toHaveLength(4);
  expect(first.filter((holder) => holder === 'light')).toHaveLength(12);
  await drain(releases, { heavy: 30, light: 10 }, 100);
  await Promise.all(pending);
  expect(scheduler.load().running).toBe(0);
});

test('costs charged while work runs weigh next to its time: the expensive key waits behind the cheap one', async () => {
  // Two keys with twenty waiting each, every piece taking 10 ms; the expensive key's pieces are charged
  // 40 (4 cost units of 10 ms) while they run, the cheap key's 10 (1 unit): 50 against 20 a piece.
  const scheduler = createFairScheduler(limits(), clock);
  const served: string[] = [];
  const running: Running[] = [];
  await queue(scheduler, 'cheap', served, running);
  const pending = [
    ...Array.from({ length: 20 }, () => queue(scheduler, 'expensive', served, running)),
    ...Array.from({ length: 20 }, () => queue(scheduler, 'cheap', served, running)),
  ];
  await settle();
  const charges: Record<string, number> = { expensive: 40, cheap: 10 };
  for (let turn = 0; turn < 14; turn += 1) {
    const piece = running.shift()!;
    scheduler.charge(piece.holder, charges[piece.holder]!);
    now += 10;
    // Released without a cost: its running time is charged, the cost units already were.
    piece.release();
    await settle();
  }
  // Fourteen turns: the cheap key's usage grows by 20 a turn, the expensive one's by 50, so the cheap key
  // gets five turns for every two of the other (the lighter first; on a tie, the rotation).
  const first = served.slice(0, 14);
  expect(first).toEqual([
    'cheap',
    'expensive',
    'cheap',
    'cheap',
    'expensive',
    'cheap',
    'cheap',
    'expensive',
    'cheap',
    'cheap',
    'cheap',
    'expensive',
    'cheap',
    'cheap',
  ]);
  expect(first.filter((holder) => holder === 'cheap')).toHaveLength(10);
  // Their usage is now even (4 x 50 against 10 x 20, less a little decay): shares by cost, not by turns.
  expect(Math.abs(scheduler.usage('expensive') - scheduler.usage('cheap'))).toBeLessThan(1);
  // A charge that is no positive number changes nothing.
  const before = scheduler.usage('cheap');
  for (const cost of [Number.NaN, -10, 0, Number.POSITIVE_INFINITY]) scheduler.charge('cheap', cost);
  expect(scheduler.usage('cheap')).toBe(before);
  await drain(running, {}, 100);
  await Promise.all(pending);
  expect(scheduler.load()).toEqual({ running: 0, waiting: 0, holders: 0 });
});

test("a cost charged while a piece runs counts at once: the key's next waiting piece goes behind a lighter key's", async () => {
  const scheduler = createFairScheduler(limits(), clock);
  const atomic = (await scheduler.enter('atomic'))!;
  const order: string[] = [];
  const next = scheduler.enter('atomic').then((release) => (order.push('atomic'), release!));
  const other = scheduler.enter('other').then((release) => (order.push('other'), release!));
  now += 5;
  // The running request paid 101 units (a hundred operations): heavy now, before it ends.
  scheduler.charge('atomic', 1_010);
  expect(scheduler.usage('atomic')).toBe(1_015);
  atomic();
  (await other)();
  (await next)();
  expect(order).toEqual(['other', 'atomic']);
});

test('without a reported cost, the running time is charged; work still running counts as its time so far', async () => {
  const scheduler = createFairScheduler(limits({ capacity: 2 }), clock);
  const slow = (await scheduler.enter('slow'))!;
  now += 400;
  // Still running: 400 ms so far.
  expect(scheduler.usage('slow')).toBe(400);
  const quick = (await scheduler.enter('quick'))!;
  now += 100;
  quick();
  expect(scheduler.usage('quick')).toBe(100);
  expect(scheduler.usage('slow')).toBe(500);
  // Both turns taken, both keys wait: the one that used less goes first, though it came second.
  const other = (await scheduler.enter('other'))!;
  const order: string[] = [];
  const waits = [
    scheduler.enter('slow').then((release) => (order.push('slow'), release!)),
    scheduler.enter('quick').then((release) => (order.push('quick'), release!)),
  ];
  await settle();
  slow();
  await settle();
  expect(order).toEqual(['quick']);
  other();
  await settle();
  expect(order).toEqual(['quick', 'slow']);
  for (const release of await Promise.all(waits)) release();
  expect(scheduler.load()).toEqual({ running: 0, waiting: 0, holders: 0 });
});

test('usage decays: a key heavy a while ago is not held back for long', () => {
  const ledger = createUsageLedger(clock);
  ledger.begin('past')(1_000);
  expect(ledger.usage('past')).toBe(1_000);
  now += USAGE_HALF_LIFE_MS;
  expect(ledger.usage('past')).toBeCloseTo(500);
  // A cost that is no number is not trusted: the running time is charged instead.
  const finish = ledger.begin('liar');
  now += 20;
  finish(Number.NaN);
  expect(ledger.usage('liar')).toBe(20);
  ledger.begin('negative')(-5);
  expect(ledger.usage('negative')).toBe(0);
});

test('the ledger remembers a bounded number of holders, the least recently charged forgotten first', () => {
  const ledger = createUsageLedger(clock, 3);
  for (const holder of ['a', 'b', 'c', 'd']) ledger.begin(holder)(10);
  expect(ledger.size()).toBe(3);
  expect(ledger.usage('a')).toBe(0);
  expect(ledger.usage('d')).toBe(10);
});

test("when the queue is full, a lighter key's newcomer takes the place of the heaviest key's newest waiter", async () => {
  const scheduler = createFairScheduler(limits({ maxWaiting: 3 }), clock);
  const running = (await scheduler.enter('flood'))!;
  now += 1_000;
  const first = scheduler.enter('flood');
  const second = scheduler.enter('other');
  const newest = scheduler.enter('flood');
  expect(scheduler.load().waiting).toBe(3);
  // The flood's own newcomer: it is the heaviest, so it is refused, not someone else.
  expect(await scheduler.enter('flood')).toBeNull();
  // A light key's newcomer: the flood's newest waiter is shed for it.
  const light = scheduler.enter('light');
  expect(await newest).toBeNull();
  expect(scheduler.load()).toEqual({ running: 1, waiting: 3, holders: 3 });
  // A newcomer as heavy as the heaviest waiting key (both used nothing) is refused.
  const fresh = createFairScheduler(limits({ maxWaiting: 1 }), clock);
  const held = (await fresh.enter('a'))!;
  const waiting = fresh.enter('b');
  expect(await fresh.enter('c')).toBeNull();
  held(0);
  (await waiting)!();
  // The survivors are served, lightest first.
  running();
  const order: string[] = [];
  for (const [name, wait] of [
    ['first', first],
    ['second', second],
    ['light', light],
  ] as const)
    void wait.then((release) => {
      order.push(name);
      release!(0);
    });
  await settle();
  await settle();
  expect(order).toEqual(['second', 'light', 'first']);
  expect(scheduler.load()).toEqual({ running: 0, waiting: 0, holders: 0 });
});

test('a holder has at most maxPerHolder pieces once work must wait; work-conserving while units are free', async () => {
  const scheduler = createFairScheduler(limits({ capacity: 3, maxPerHolder: 2 }), clock);
  const turns = [(await scheduler.enter('site'))!, (await scheduler.enter('site'))!, (await scheduler.enter('site'))!];
  expect(turns.every((turn) => typeof turn === 'function')).toBe(true);
  // No unit is free: now the bound counts.
  expect(await scheduler.enter('site')).toBeNull();
  const other = scheduler.enter('other');
  expect(scheduler.holds('other')).toBe(1);
  turns[0]!();
  (await other)!();
  for (const turn of turns.slice(1)) turn();
  expect(scheduler.load()).toEqual({ running: 0, waiting: 0, holders: 0 });
});

test('work waits at most maxWaitMs; a large waiter that leaves lets the ones behind it in', async () => {
  jest.useFakeTimers();
  const scheduler = createFairScheduler(limits({ capacity: 1_000, maxWaitMs: 500 }), clock);
  const held = (await scheduler.enter('k', 900))!;
  const big = scheduler.enter('k', 500);
  jest.advanceTimersByTime(250);
  const fits = scheduler.enter('k', 100);
  jest.advanceTimersByTime(250);
  expect(await big).toBeNull();
  const fitting = await fits;
  expect(fitting).toBeInstanceOf(Function);
  held();
  fitting!();
  // More than the capacity runs alone.
  const huge = await scheduler.enter('k', 5_000);
  expect(scheduler.load().running).toBe(1_000);
  huge!();
});

test('with no wait allowed, or no queue, work that cannot start at once is refused', async () => {
  for (const bounds of [{ maxWaitMs: 0 }, { maxWaiting: 0 }]) {
    const scheduler = createFairScheduler(limits(bounds), clock);
    const held = (await scheduler.enter('a'))!;
    expect(await scheduler.enter('b')).toBeNull();
    held();
    expect(scheduler.load()).toEqual({ running: 0, waiting: 0, holders: 0 });
  }
});

type Step =
  | { kind: 'enter'; holder: number; size: number }
  | { kind: 'release'; index: number; cost: number | undefined }
  | { kind: 'time'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('enter' as const), holder: fc.nat(3), size: fc.integer({ min: 0, max: 12 }) }),
  fc.record({
    kind: fc.constant('release' as const),
    index: fc.nat(50),
    cost: fc.option(fc.integer({ min: -5, max: 500 }), { nil: undefined }),
  }),
  fc.record({ kind: fc.constant('time' as const), ms: fc.integer({ min: 0, max: 400 }) }),
);

test('property: no bound is ever passed, every piece is answered once, and every admitted piece is released', async () => {
  jest.useFakeTimers();
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 10 }),
      fc.integer({ min: 0, max: 6 }),
      fc.integer({ min: 1, max: 4 }),
      fc.array(step, { maxLength: 80 }),
      async (capacity, maxWaiting, maxPerHolder, steps) => {
        const bounds = { capacity, maxWaiting, maxWaitMs: 1_000, maxPerHolder };
        const scheduler = createFairScheduler(bounds, () => Date.now());
        const running: { holder: string; release: Release }[] = [];
        let entered = 0;
        let answered = 0;
        const check = () => {
          const load = scheduler.load();
          expect(load.running).toBeLessThanOrEqual(capacity);
          expect(load.waiting).toBeLessThanOrEqual(maxWaiting);
          expect(load.waiting).toBeGreaterThanOrEqual(0);
          for (const holder of ['h0', 'h1', 'h2', 'h3']) {
            const mine = running.filter((piece) => piece.holder === holder).length;
            expect(scheduler.holds(holder)).toBeGreaterThanOrEqual(mine);
          }
        };
        for (const current of steps) {
          if (current.kind === 'enter') {
            const holder = `h${current.holder}`;
            const before = scheduler.load();
            const startsAtOnce = before.waiting === 0 && before.running + Math.min(current.size, capacity) <= capacity;
            const piecesBefore = scheduler.holds(holder);
            entered += 1;
            let admitted = false;
            void scheduler.enter(holder, current.size).then((release) => {
              answered += 1;
              if (release) {
                admitted = true;
                running.push({ holder, release });
              }
            });
            await Promise.resolve();
            await Promise.resolve();
            // Work-conserving: free units and nobody waiting means it runs.
            if (startsAtOnce) expect(admitted).toBe(true);
            // Past its share while others wait, a holder gets no more pieces.
            else expect(scheduler.holds(holder)).toBeLessThanOrEqual(Math.max(maxPerHolder, piecesBefore));
          } else if (current.kind === 'release') {
            if (running.length > 0) running.splice(current.index % running.length, 1)[0]!.release(current.cost);
          } else {
            jest.advanceTimersByTime(current.ms);
          }
          await Promise.resolve();
          await Promise.resolve();
          check();
        }
        // Releasing what runs, and letting waiters time out, empties the scheduler: nothing is lost.
        for (let round = 0; round < 200 && (running.length > 0 || scheduler.load().waiting > 0); round += 1) {
          while (running.length > 0) running.shift()!.release();
          jest.advanceTimersByTime(1_000);
          await Promise.resolve();
          await Promise.resolve();
          await Promise.resolve();
        }
        expect(running).toHaveLength(0);
        expect(scheduler.load()).toEqual({ running: 0, waiting: 0, holders: 0 });
        expect(answered).toBe(entered);
      },
    ),
    { numRuns: 200 },
  );
});

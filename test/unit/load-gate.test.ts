/**
 * Load shedding, the pure gate (contract section 13): at most `maxInFlight` turns at once, a bounded wait
 * (first come first served within a key, in rotation between keys: http/fair-scheduler.ts), and shedding
 * past either bound.
 */
import fc from 'fast-check';
import { COST_UNIT_MS, createLoadGate, type Release } from '../../src/plugins/public-api/server/src/http/load-gate';

afterEach(() => {
  jest.useRealTimers();
});

test('turns up to the bound are given at once; the next waits and gets the first freed turn', async () => {
  const gate = createLoadGate({ maxPerHolder: 100, maxInFlight: 2, maxWaiting: 4, maxWaitMs: 10_000 });
  const first = (await gate.enter('k'))!;
  const second = (await gate.enter('k'))!;
  expect(first).toBeInstanceOf(Function);
  expect(second).toBeInstanceOf(Function);
  let third: Release | null | undefined;
  const waiting = gate.enter('k').then((release) => (third = release));
  await Promise.resolve();
  expect(third).toBeUndefined();
  expect(gate.load()).toEqual({ inFlight: 2, waiting: 1, holders: 1 });
  first();
  await waiting;
  expect(third).toBeInstanceOf(Function);
  expect(gate.load()).toEqual({ inFlight: 2, waiting: 0, holders: 1 });
  // A release given twice frees one turn only.
  first();
  expect(gate.load()).toEqual({ inFlight: 2, waiting: 0, holders: 1 });
  second();
  third!();
  expect(gate.load()).toEqual({ inFlight: 0, waiting: 0, holders: 0 });
});

test('a request that waits longer than maxWaitMs is shed, and leaves the queue', async () => {
  jest.useFakeTimers();
  const gate = createLoadGate({ maxPerHolder: 100, maxInFlight: 1, maxWaiting: 4, maxWaitMs: 500 });
  const held = (await gate.enter('k'))!;
  const shed = gate.enter('k');
  jest.advanceTimersByTime(499);
  expect(gate.load().waiting).toBe(1);
  jest.advanceTimersByTime(1);
  expect(await shed).toBeNull();
  expect(gate.load()).toEqual({ inFlight: 1, waiting: 0, holders: 1 });
  held();
  expect(gate.load()).toEqual({ inFlight: 0, waiting: 0, holders: 0 });
});

test('past maxWaiting, or with no wait configured, a request is shed at once', async () => {
  const full = createLoadGate({ maxPerHolder: 100, maxInFlight: 1, maxWaiting: 1, maxWaitMs: 10_000 });
  const held = (await full.enter('k'))!;
  const queued = full.enter('k');
  expect(await full.enter('k')).toBeNull();
  held();
  const next = (await queued)!;
  next();
  expect(full.load()).toEqual({ inFlight: 0, waiting: 0, holders: 0 });

  const noWait = createLoadGate({ maxPerHolder: 100, maxInFlight: 1, maxWaiting: 10, maxWaitMs: 0 });
  const only = (await noWait.enter('k'))!;
  expect(await noWait.enter('k')).toBeNull();
  only();
  expect(await noWait.enter('k')).toBeInstanceOf(Function);
});

test('a holder has at most maxPerHolder turns, running and waiting together; other holders still get in', async () => {
  const gate = createLoadGate({ maxPerHolder: 2, maxInFlight: 2, maxWaiting: 4, maxWaitMs: 10_000 });
  const first = (await gate.enter('flood'))!;
  const second = (await gate.enter('flood'))!;
  // Its share is taken: shed at once, though the queue has room.
  expect(await gate.enter('flood')).toBeNull();
  expect(gate.load()).toEqual({ inFlight: 2, waiting: 0, holders: 1 });
  const other = gate.enter('other');
  expect(gate.load()).toEqual({ inFlight: 2, waiting: 1, holders: 2 });
  first();
  (await other)!();
  // A turn given back is room for the holder again.
  const again = (await gate.enter('flood'))!;
  second();
  again();
  expect(gate.load()).toEqual({ inFlight: 0, waiting: 0, holders: 0 });
});

test('work-conserving: a holder past its share still runs while turns are free and nobody waits', async () => {
  const gate = createLoadGate({ maxPerHolder: 2, maxInFlight: 4, maxWaiting: 4, maxWaitMs: 10_000 });
  const turns = [(await gate.enter('site'))!, (await gate.enter('site'))!, (await gate.enter('site'))!];
  expect(turns.every((turn) => typeof turn === 'function')).toBe(true);
  expect(gate.load()).toEqual({ inFlight: 3, waiting: 0, holders: 1 });
  const fourth = (await gate.enter('site'))!;
  // No turn is free: now the share counts, and this holder already has four.
  expect(await gate.enter('site')).toBeNull();
  // Another holder waits for the next free turn, and gets it before the first holder's newcomers.
  const other = gate.enter('other');
  expect(gate.load()).toEqual({ inFlight: 4, waiting: 1, holders: 2 });
  turns[0]!();
  expect(await gate.enter('site')).toBeNull();
  (await other)!();
  for (const turn of [...turns.slice(1), fourth]) turn();
  expect(gate.load()).toEqual({ inFlight: 0, waiting: 0, holders: 0 });
});

test('a waiter shed after maxWaitMs gives its share back', async () => {
  jest.useFakeTimers();
  const gate = createLoadGate({ maxPerHolder: 1, maxInFlight: 1, maxWaiting: 4, maxWaitMs: 500 });
  const held = (await gate.enter('a'))!;
  const shed = gate.enter('b');
  jest.advanceTimersByTime(500);
  expect(await shed).toBeNull();
  expect(gate.load()).toEqual({ inFlight: 1, waiting: 0, holders: 1 });
  held();
  expect(await gate.enter('b')).toBeInstanceOf(Function);
});

test('a newcomer never overtakes a waiting request', async () => {
  const gate = createLoadGate({ maxPerHolder: 100, maxInFlight: 1, maxWaiting: 4, maxWaitMs: 10_000 });
  const held = (await gate.enter('k'))!;
  const order: string[] = [];
  const a = gate.enter('k').then((release) => {
    order.push('a');
    return release!;
  });
  held();
  // The freed turn went to a, so b waits behind it.
  const b = gate.enter('k').then((release) => {
    order.push('b');
    return release!;
  });
  (await a)();
  (await b)();
  expect(order).toEqual(['a', 'b']);
  expect(gate.load()).toEqual({ inFlight: 0, waiting: 0, holders: 0 });
});

test('property: in flight never exceeds the bound, waiting never exceeds its bound, and all turns come back', async () => {
  type Step = { kind: 'enter' } | { kind: 'release'; index: number };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.constant<Step>({ kind: 'enter' }),
    fc.nat(50).map((index): Step => ({ kind: 'release', index })),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 0, max: 5 }),
      fc.array(step, { maxLength: 60 }),
      async (maxInFlight, maxWaiting, steps) => {
        const gate = createLoadGate({ maxPerHolder: 100, maxInFlight, maxWaiting, maxWaitMs: 60_000 });
        const held: Release[] = [];
        const pending: Promise<void>[] = [];
        let shed = 0;
        for (const current of steps) {
          if (current.kind === 'enter') {
            const before = gate.load();
            pending.push(
              gate.enter('k').then((release) => {
                if (release) held.push(release);
                else shed += 1;
              }),
            );
            // Shed only when every turn is taken and the queue is full.
            await Promise.resolve();
            await Promise.resolve();
            if (before.inFlight < maxInFlight && before.waiting === 0) expect(held.length).toBeGreaterThan(0);
          } else if (held.length > 0) {
            held.splice(current.index % held.length, 1)[0]!();
            await Promise.resolve();
            await Promise.resolve();
          }
          const { inFlight, waiting } = gate.load();
          expect(inFlight).toBeLessThanOrEqual(maxInFlight);
          expect(waiting).toBeLessThanOrEqual(maxWaiting);
          expect(inFlight).toBe(held.length);
        }
        // Releasing everything admits every waiter in turn, and leaves the gate empty.
        while (gate.load().inFlight > 0) {
          held.shift()!();
          await Promise.resolve();
          await Promise.resolve();
        }
        await Promise.all(pending);
        expect(gate.load()).toEqual({ inFlight: 0, waiting: 0, holders: 0 });
        expect(held.length + shed).toBeLessThanOrEqual(steps.filter((s) => s.kind === 'enter').length);
      },
    ),
  );
});

test("a key with a hundred requests waiting does not delay another key's one by its hundred", async () => {
  let now = 0;
  const gate = createLoadGate({ maxPerHolder: 200, maxInFlight: 1, maxWaiting: 200, maxWaitMs: 60_000 }, () => now);
  const held = (await gate.enter('flood'))!;
  const order: string[] = [];
  const waits = Array.from({ length: 100 }, () => gate.enter('flood').then((release) => (order.push('flood'), release!)));
  now += 50;
  const other = gate.enter('other').then((release) => (order.push('other'), release!));
  held();
  // The flood has used 50 ms, the other key nothing: it goes next, ahead of the hundred.
  (await other)();
  expect(order).toEqual(['other']);
  for (const wait of waits) (await wait)();
  expect(order).toHaveLength(101);
  expect(gate.load()).toEqual({ inFlight: 0, waiting: 0, holders: 0 });
});

test('cost units paid weigh in the rotation: a key whose requests cost more waits behind one whose cost less', async () => {
  const now = 0;
  const gate = createLoadGate({ maxPerHolder: 200, maxInFlight: 1, maxWaiting: 200, maxWaitMs: 60_000 }, () => now);
  const held = (await gate.enter('includes'))!;
  // Its request paid 21 units (1,000 records included); the other key's earlier request its one.
  gate.charged('includes', 21);
  gate.charged('pages', 1);
  const order: string[] = [];
  const heavy = gate.enter('includes').then((release) => (order.push('includes'), release!));
  const light = [1, 2, 3].map(() => gate.enter('pages').then((release) => (order.push('pages'), release!)));
  held();
  // The pages key has used 1 unit, the include key 21: its three pages go first (each adds its unit).
  for (const wait of light) (await wait)();
  for (const _ of light) gate.charged('pages', 1);
  (await heavy)();
  expect(order).toEqual(['pages', 'pages', 'pages', 'includes']);
  expect(COST_UNIT_MS).toBeGreaterThan(0);
  expect(gate.load()).toEqual({ inFlight: 0, waiting: 0, holders: 0 });
});

/**
 * The budget of records expanded at once (http/record-budget.ts): reservations up to the capacity at
 * once, a larger one alone, first come first served within a key and in rotation between keys, shed
 * after the wait limit.
 */
import fc from 'fast-check';
import { createRecordBudget, type Release } from '../../src/plugins/public-api/server/src/http/record-budget';

afterEach(() => {
  jest.useRealTimers();
});

test('reservations fit together up to the capacity; the next waits for room and gets it first come first served', async () => {
  const budget = createRecordBudget({ capacity: 1_000, maxWaitMs: 10_000 });
  const a = (await budget.reserve(600, 'k'))!;
  const b = (await budget.reserve(400, 'k'))!;
  expect(budget.load()).toEqual({ reserved: 1_000, waiting: 0 });
  const order: string[] = [];
  const large = budget.reserve(700, 'k').then((release) => (order.push('large'), release!));
  // Smaller, but behind the large one: it does not overtake it.
  const small = budget.reserve(10, 'k').then((release) => (order.push('small'), release!));
  await Promise.resolve();
  expect(budget.load()).toEqual({ reserved: 1_000, waiting: 2 });
  b();
  await Promise.resolve();
  expect(order).toEqual([]);
  a();
  (await large)();
  (await small)();
  expect(order).toEqual(['large', 'small']);
  expect(budget.load()).toEqual({ reserved: 0, waiting: 0 });
});

test('a read larger than the whole budget runs alone, and nothing runs beside it', async () => {
  const budget = createRecordBudget({ capacity: 1_000, maxWaitMs: 10_000 });
  const huge = (await budget.reserve(5_000, 'k'))!;
  expect(budget.load().reserved).toBe(1_000);
  let other: Release | null | undefined;
  const waiting = budget.reserve(1, 'k').then((release) => (other = release));
  await Promise.resolve();
  expect(other).toBeUndefined();
  huge();
  await waiting;
  other!();
  // Reading nothing through include takes no room.
  expect(await budget.reserve(0, 'k')).toBeInstanceOf(Function);
  expect(budget.load()).toEqual({ reserved: 0, waiting: 0 });
});

test('a reservation that waits past maxWaitMs is shed; one behind it that fits is let in', async () => {
  jest.useFakeTimers();
  const budget = createRecordBudget({ capacity: 1_000, maxWaitMs: 500 });
  const held = (await budget.reserve(900, 'k'))!;
  const big = budget.reserve(500, 'k');
  jest.advanceTimersByTime(250);
  const fits = budget.reserve(100, 'k');
  jest.advanceTimersByTime(250);
  expect(await big).toBeNull();
  // The shed one no longer blocks the line: the small one fits beside what is held.
  expect(await fits).toBeInstanceOf(Function);
  held();
});

test('a holder with room held or awaited is crowded while the budget is taken; others and free budgets are not', async () => {
  const budget = createRecordBudget({ capacity: 100, maxWaitMs: 10_000 });
  const a = (await budget.reserve(60, 'a'))!;
  // Room is left and nobody waits: not crowded, even for a.
  expect(budget.crowded('a')).toBe(false);
  const b = budget.reserve(60, 'b');
  expect(budget.crowded('a')).toBe(true);
  expect(budget.crowded('b')).toBe(true);
  expect(budget.crowded('c')).toBe(false);
  a();
  (await b)!();
  expect(budget.crowded('a')).toBe(false);
  expect(budget.crowded('b')).toBe(false);
});

test('property: what is reserved never exceeds the capacity, and everything comes back', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 50 }),
      fc.array(fc.oneof(fc.integer({ min: 0, max: 80 }), fc.constant(-1)), { maxLength: 60 }),
      async (capacity, steps) => {
        const budget = createRecordBudget({ capacity, maxWaitMs: 60_000 });
        const held: Release[] = [];
        const pending: Promise<void>[] = [];
        for (const step of steps) {
          if (step >= 0) pending.push(budget.reserve(step, 'k').then((release) => void (release && held.push(release))));
          else held.shift()?.();
          await Promise.resolve();
          await Promise.resolve();
          expect(budget.load().reserved).toBeLessThanOrEqual(capacity);
        }
        while (held.length > 0 || budget.load().waiting > 0) {
          held.shift()?.();
          await Promise.resolve();
          await Promise.resolve();
        }
        await Promise.all(pending);
        expect(budget.load()).toEqual({ reserved: 0, waiting: 0 });
      },
    ),
  );
});

test('room that frees goes to the key that used least, not to the first in line', async () => {
  let now = 0;
  const budget = createRecordBudget({ capacity: 1_000, maxWaitMs: 60_000 }, () => now);
  const held = (await budget.reserve(1_000, 'flood'))!;
  const order: string[] = [];
  const flood = budget.reserve(800, 'flood').then((release) => (order.push('flood'), release!));
  const other = budget.reserve(800, 'other').then((release) => (order.push('other'), release!));
  now += 2_000;
  held();
  (await other)();
  (await flood)();
  expect(order).toEqual(['other', 'flood']);
  expect(budget.load()).toEqual({ reserved: 0, waiting: 0 });
});

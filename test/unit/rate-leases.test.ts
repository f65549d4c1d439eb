/**
 * Leases of rate-limit points (database/rate-leases.ts): a busy key is counted in the store a batch at a time,
 * a quiet one and one near its limit one request at a time, no instance ever admits a request the store
 * did not count, and a changed limit applies on the next request.
 */
import fc from 'fast-check';
import { createRateLeases, type CountInStore, type CounterState } from '../../src/plugins/public-api/server/src/database/rate-leases';

const clock = () => {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
};

/** A fixed-window counter like the shared store's: every count adds its points, the window ends at resetAt. */
const sharedStore = (windowMs: number, time: { now: () => number }) => {
  let consumed = 0;
  let endsAt = 0;
  const calls: number[] = [];
  const count: CountInStore = async (_name, points) => {
    calls.push(points);
    if (time.now() >= endsAt) {
      consumed = 0;
      endsAt = time.now() + windowMs;
    }
    consumed += points;
    return { consumed, resetMs: endsAt - time.now() };
  };
  return { count, calls, consumed: () => consumed };
};

const LIMIT = { requests: 600, window: 60 };

test("a key's first request of a window takes one point, exactly as without leases", async () => {
  const time = clock();
  const store = sharedStore(60_000, time);
  const leases = createRateLeases({ now: time.now });
  expect(await leases.count('key:1', LIMIT, store.count)).toEqual({ consumed: 1, resetMs: 60_000 });
  expect(store.calls).toEqual([1]);
});

test('a busy key leases what it used in the horizon; the count it reports stays exact', async () => {
  const time = clock();
  const store = sharedStore(60_000, time);
  const leases = createRateLeases({ now: time.now, horizonMs: 50, maxSize: 100 });
  const reported: number[] = [];
  // One request every millisecond: 1,000 a second, so a lease of 50 points covers 50 ms.
  for (let i = 0; i < 300; i += 1) {
    time.advance(1);
    reported.push((await leases.count('key:1', { requests: 100_000, window: 60 }, store.count))!.consumed);
  }
  expect(reported).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
  expect(store.calls.slice(0, 2)).toEqual([1, 50]);
  expect(store.calls.every((points) => points <= 100)).toBe(true);
  expect(store.calls.length).toBeLessThan(15);
});

test('a quiet key is counted one request at a time', async () => {
  const time = clock();
  const store = sharedStore(60_000, time);
  const leases = createRateLeases({ now: time.now });
  for (let i = 0; i < 20; i += 1) {
    time.advance(200);
    await leases.count('key:1', LIMIT, store.count);
  }
  expect(store.calls).toEqual(Array(20).fill(1));
});

test('near its limit a key is counted one request at a time, and refused at the limit exactly', async () => {
  const time = clock();
  const store = sharedStore(60_000, time);
  const leases = createRateLeases({ now: time.now, maxSize: 100 });
  const limit = { requests: 40, window: 60 };
  const answers: CounterState[] = [];
  for (let i = 0; i < 45; i += 1) answers.push((await leases.count('key:1', limit, store.count))!);
  // Never more than an eighth of what was left.
  expect(Math.max(...store.calls)).toBeLessThanOrEqual(5);
  expect(store.calls.slice(-5)).toEqual([1, 1, 1, 1, 1]);
  expect(answers.map((answer) => answer.consumed)).toEqual(Array.from({ length: 45 }, (_, i) => i + 1));
  expect(answers.filter((answer) => answer.consumed > limit.requests)).toHaveLength(5);
});

test('a lowered limit applies to points already held; a raised one to the next request', async () => {
  const time = clock();
  const store = sharedStore(60_000, time);
  const leases = createRateLeases({ now: time.now });
  const high = { requests: 10_000, window: 60 };
  await leases.count('key:1', high, store.count);
  await leases.count('key:1', high, store.count);
  expect(store.calls).toEqual([1, 50]);
  // 2 requests counted; held points are judged against the limit of each request.
  const lowered = (await leases.count('key:1', { requests: 2, window: 60 }, store.count))!;
  expect(lowered.consumed).toBe(3);
  const raised = (await leases.count('key:1', high, store.count))!;
  expect(raised.consumed).toBe(4);
  expect(store.calls).toHaveLength(2);
});

test("a lease ends with its window: the next request starts the new window's count", async () => {
  const time = clock();
  const store = sharedStore(1_000, time);
  const leases = createRateLeases({ now: time.now });
  const limit = { requests: 10_000, window: 1 };
  await leases.count('key:1', limit, store.count);
  await leases.count('key:1', limit, store.count);
  time.advance(1_000);
  expect(await leases.count('key:1', limit, store.count)).toEqual({ consumed: 1, resetMs: 1_000 });
  expect(store.calls).toEqual([1, 50, 1]);
});

test('requests arriving while a lease is taken wait for it instead of each taking one', async () => {
  const time = clock();
  const store = sharedStore(60_000, time);
  const leases = createRateLeases({ now: time.now });
  const limit = { requests: 10_000, window: 60 };
  await leases.count('key:1', limit, store.count);
  const answers = await Promise.all(Array.from({ length: 30 }, () => leases.count('key:1', limit, store.count)));
  expect(store.calls).toEqual([1, 50]);
  expect(answers.map((answer) => answer!.consumed).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 2));
});

test('a store that cannot count gives null and no lease; the next request asks it again', async () => {
  const time = clock();
  const leases = createRateLeases({ now: time.now });
  let fail = true;
  const calls: number[] = [];
  const store: CountInStore = async (_name, points) => {
    calls.push(points);
    return fail ? null : { consumed: points, resetMs: 60_000 };
  };
  expect(await leases.count('key:1', LIMIT, store)).toBeNull();
  fail = false;
  expect(await leases.count('key:1', LIMIT, store)).toEqual({ consumed: 1, resetMs: 60_000 });
  expect(calls).toEqual([1, 1]);
});

test('subjects lease apart, and memory is bounded by capacity', async () => {
  const time = clock();
  const store = sharedStore(60_000, time);
  const leases = createRateLeases({ now: time.now, capacity: 2 });
  const limit = { requests: 10_000, window: 60 };
  for (const name of ['key:1', 'key:2', 'key:3', 'key:1']) await leases.count(name, limit, store.count);
  // key:1 was forgotten when key:3 came, so its second request starts over with one point.
  expect(store.calls).toEqual([1, 1, 1, 1]);
});

test('whatever the timing, instances sharing a store never admit more than the limit', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 300 }),
      fc.array(fc.record({ instance: fc.integer({ min: 0, max: 2 }), gap: fc.integer({ min: 0, max: 30 }) }), { maxLength: 400 }),
      async (requests, arrivals) => {
        const time = clock();
        const store = sharedStore(60_000, time);
        const instances = [0, 1, 2].map(() => createRateLeases({ now: time.now }));
        const limit = { requests, window: 60 };
        let admitted = 0;
        for (const arrival of arrivals) {
          time.advance(arrival.gap);
          const state = await instances[arrival.instance].count('key:1', limit, store.count);
          if (state!.consumed <= limit.requests) admitted += 1;
        }
        expect(admitted).toBeLessThanOrEqual(requests);
        // Every admitted request was counted in the store.
        expect(store.consumed()).toBeGreaterThanOrEqual(admitted);
      },
    ),
  );
});

test('with one instance, every request is admitted up to the limit and none past it', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 300 }),
      fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 400 }),
      async (requests, gaps) => {
        const time = clock();
        const store = sharedStore(600_000, time);
        const leases = createRateLeases({ now: time.now });
        const limit = { requests, window: 600 };
        const consumed: number[] = [];
        for (const gap of gaps) {
          time.advance(gap);
          consumed.push((await leases.count('key:1', limit, store.count))!.consumed);
        }
        expect(consumed).toEqual(gaps.map((_, i) => i + 1));
      },
    ),
  );
});

describe("a request's further cost (take, giveBack, settle)", () => {
  test('points held unused are taken first, and given back when the charge is refused', async () => {
    const time = clock();
    const store = sharedStore(60_000, time);
    const leases = createRateLeases({ now: time.now, horizonMs: 50, maxSize: 100 });
    const limit = { requests: 100_000, window: 60 };
    // Two requests 1 ms apart: the second leases 50 points and holds 49.
    await leases.count('key:1', limit, store.count);
    time.advance(1);
    expect(await leases.count('key:1', limit, store.count)).toEqual({ consumed: 2, resetMs: 59_999 });
    expect(store.consumed()).toBe(51);
    expect(leases.take('key:1', 10)).toEqual({ taken: 10, state: { consumed: 12, resetMs: 59_999 } });
    expect(leases.take('key:1', 100)).toEqual({ taken: 39, state: { consumed: 51, resetMs: 59_999 } });
    leases.giveBack('key:1', 39);
    expect(leases.take('key:1', 5)).toEqual({ taken: 5, state: { consumed: 17, resetMs: 59_999 } });
    // No lease, or one whose window ended: nothing to take.
    expect(leases.take('key:2', 5)).toBeNull();
    time.advance(60_000);
    expect(leases.take('key:1', 5)).toBeNull();
  });

  test("a count made outside the lease moves the lease's count, the points it holds still not spent", async () => {
    const time = clock();
    const store = sharedStore(60_000, time);
    const leases = createRateLeases({ now: time.now, horizonMs: 50, maxSize: 100 });
    const limit = { requests: 100_000, window: 60 };
    await leases.count('key:1', limit, store.count);
    time.advance(1);
    await leases.count('key:1', limit, store.count);
    // 49 held; 30 more counted in the store for a charge.
    const counted = await store.count('key:1', 30);
    expect(leases.settle('key:1', counted!)).toEqual({ consumed: 81 - 49, resetMs: counted!.resetMs });
    // The next request is served from the lease, counted after the charge.
    expect((await leases.count('key:1', limit, store.count))!.consumed).toBe(33);
    // A state older than the lease's own count does not move it back.
    expect(leases.settle('key:1', { consumed: 10, resetMs: 59_000 })).toEqual({ consumed: 33, resetMs: 59_000 });
  });
});

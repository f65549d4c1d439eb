/**
 * drainPool (database/drain.ts): before the database closes, wait until no query runs or waits, for a
 * bounded time.
 */
import { drainPool, type PoolCounts } from '../../src/plugins/public-api/server/src/database/drain';

/** A pool whose counts follow a script: one entry per look, the last repeated. */
const scripted = (looks: { used?: number; acquiring?: number; creating?: number }[]) => {
  let look = 0;
  let seen = looks[0]!;
  const pool: PoolCounts & { looks: () => number } = {
    // drain reads `numUsed` first in every look: that read moves the script on.
    numUsed: () => {
      seen = looks[Math.min(look, looks.length - 1)]!;
      look += 1;
      return seen.used ?? 0;
    },
    numPendingAcquires: () => seen.acquiring ?? 0,
    numPendingCreates: () => seen.creating ?? 0,
    looks: () => look,
  };
  return pool;
};

test('an idle pool drains at once (after the quiet looks)', async () => {
  const pool = scripted([{}]);
  expect(await drainPool(pool, { intervalMs: 1, quietChecks: 3 })).toBe(true);
  expect(pool.looks()).toBe(3);
});

test('waits while queries run, wait for a connection or a connection is being made', async () => {
  const pool = scripted([{ used: 1 }, { acquiring: 2 }, { creating: 1 }, {}, {}, {}]);
  expect(await drainPool(pool, { intervalMs: 1, quietChecks: 3 })).toBe(true);
  expect(pool.looks()).toBe(6);
});

test('work that starts between two idle looks resets the count', async () => {
  const pool = scripted([{}, {}, { acquiring: 1 }, {}, {}, {}]);
  expect(await drainPool(pool, { intervalMs: 1, quietChecks: 3 })).toBe(true);
  expect(pool.looks()).toBe(6);
});

test('gives up after the timeout when a query never ends', async () => {
  const pool = scripted([{ used: 1 }]);
  const started = Date.now();
  expect(await drainPool(pool, { intervalMs: 5, timeoutMs: 40 })).toBe(false);
  expect(Date.now() - started).toBeGreaterThanOrEqual(40);
});

test('no pool (the database never opened) is drained', async () => {
  expect(await drainPool(undefined)).toBe(true);
});

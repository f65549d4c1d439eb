/**
 * The SQLite rate limit counter with its statements prepared once (database/sqlite-rate-limiter.ts), over
 * a real knex + better-sqlite3 database in memory: it counts exactly as rate-limiter-flexible's own
 * RateLimiterSQLite does (same rows, same answers, windows that end and start again), its statements are
 * prepared once per connection however many requests it counts, and two limiters on one table (two
 * instances of the application) share one counter.
 */
import knexFactory, { type Knex } from 'knex';
import { RateLimiterRes, RateLimiterSQLite, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { PreparedRateLimiterSQLite } from '../../src/plugins/public-api/server/src/database/sqlite-rate-limiter';

let knex: Knex;

beforeAll(() => {
  knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
});
afterAll(() => knex.destroy());

type LimiterClass = typeof RateLimiterSQLite;

const limiterOf = (Limiter: LimiterClass, tableName: string, duration = 60): Promise<RateLimiterAbstract> =>
  new Promise((resolve, reject) => {
    const limiter: RateLimiterAbstract = new Limiter(
      { storeClient: knex, storeType: 'knex', tableName, keyPrefix: 'test', points: 1_000_000, duration },
      (error?: unknown) => (error ? reject(error) : resolve(limiter)),
    );
  });

/** What a count answers, without the times that move between two calls. */
const counted = (result: RateLimiterRes) => ({ consumed: result.consumedPoints, remaining: result.remainingPoints });

afterEach(() => jest.useRealTimers());

test('counts as the library does: the same answers and the same rows', async () => {
  const library = await limiterOf(RateLimiterSQLite, 'library_counts');
  const prepared = await limiterOf(PreparedRateLimiterSQLite, 'prepared_counts');
  for (const subject of ['key:a', 'key:a', 'address:1', 'key:a', 'address:1']) {
    expect(counted(await prepared.consume(subject, 1))).toEqual(counted(await library.consume(subject, 1)));
  }
  const rows = async (table: string) => (await knex(table).select('key', 'points').orderBy('key')) as unknown[];
  expect(await rows('prepared_counts')).toEqual(await rows('library_counts'));
  expect(await rows('prepared_counts')).toEqual([
    { key: 'test:address:1', points: 2 },
    { key: 'test:key:a', points: 3 },
  ]);
  const peeked = await prepared.get('key:a');
  expect(peeked && counted(peeked)).toEqual({ consumed: 3, remaining: 1_000_000 - 3 });
  expect(await prepared.get('key:never-seen')).toBeNull();
});

test('a window that ended starts a new count; a peek does not see the ended one', async () => {
  const limiter = await limiterOf(PreparedRateLimiterSQLite, 'windows', 1);
  const start = Date.now();
  jest.useFakeTimers({ now: start, doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
  await limiter.consume('key:w', 1);
  const second = await limiter.consume('key:w', 1);
  expect(second.consumedPoints).toBe(2);
  expect(second.msBeforeNext).toBeGreaterThan(0);
  expect(second.msBeforeNext).toBeLessThanOrEqual(1000);
  jest.setSystemTime(start + 1001);
  expect(await limiter.get('key:w')).toBeNull();
  expect((await limiter.consume('key:w', 1)).consumedPoints).toBe(1);
});

test('its statements are prepared once per connection, however many requests it counts', async () => {
  const limiter = await limiterOf(PreparedRateLimiterSQLite, 'prepared_once');
  const connection = (await knex.client.acquireConnection()) as { prepare: (sql: string) => unknown };
  knex.client.releaseConnection(connection);
  const prepare = jest.spyOn(connection, 'prepare');
  try {
    for (let i = 0; i < 20; i += 1) {
      await limiter.get('key:p');
      await limiter.consume('key:p', 1);
    }
    // The upsert and the read, once each (the spy was set before the limiter's first count).
    expect(prepare).toHaveBeenCalledTimes(2);
    // Every placeholder written +?, so that SQLite does not plan them again at each run (sqlite-stable-plans.ts).
    for (const [sql] of prepare.mock.calls as [string][]) expect(sql).not.toMatch(/(?<!\+)\?/);
    expect((await limiter.get('key:p'))?.consumedPoints).toBe(20);
  } finally {
    prepare.mockRestore();
  }
});

test('two limiters on one table (two instances) share one counter', async () => {
  const one = await limiterOf(PreparedRateLimiterSQLite, 'shared');
  const other = await limiterOf(PreparedRateLimiterSQLite, 'shared');
  await one.consume('key:s', 1);
  await other.consume('key:s', 1);
  expect((await one.consume('key:s', 1)).consumedPoints).toBe(3);
  expect((await other.get('key:s'))?.consumedPoints).toBe(3);
});

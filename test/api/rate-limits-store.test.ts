/**
 * Contract section 13: where the counters live, when that place fails or fills.
 *
 * - Redis configured but not answering: each instance counts in its own memory (the insurance limiter), so
 *   limits still hold (per instance) and requests are never refused because the counter is unreachable.
 * - Counters in the database: rows whose window ended over an hour ago are swept, so the table does not
 *   grow with every address that ever failed to authenticate.
 */
import { bootApp, type TestApp } from '../helpers/app';
import { createKey } from '../helpers/keys';

const EVENTS_READ = { resources: { 'native:events': { actions: ['read'], read: ['title'] } } };
const RATE_LIMIT_TABLE = 'public_api_rate_limits';

type RateLimits = {
  count: (subject: { kind: 'key' | 'address'; id: string }, limit: { requests: number; window: number }) => Promise<unknown>;
  sweepExpired: (now?: number) => Promise<number>;
};
const rateLimits = (app: TestApp) => app.strapi.plugin('public-api').service('rate-limits') as RateLimits;

describe('Redis configured but unreachable', () => {
  let app: TestApp;
  beforeAll(async () => {
    // Port 1 on loopback: nothing listens, every connection is refused at once.
    app = await bootApp({ REDIS_URL: 'redis://127.0.0.1:1', PUBLIC_API_RATE_LIMIT_REQUESTS: '3', PUBLIC_API_RATE_LIMIT_WINDOW: '60' });
  });
  afterAll(async () => {
    await app?.close();
  });

  test('requests are answered and the limit still holds, counted in memory', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const res = await app.http().get('/api/v2/events').set('Authorization', key.auth);
      statuses.push(res.status);
      remaining.push(res.headers.ratelimit);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(remaining.slice(0, 3).map((field) => /r=(\d+)/.exec(field)?.[1])).toEqual(['2', '1', '0']);
  });
});

describe('counters in the database', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await bootApp({ REDIS_URL: '', PUBLIC_API_RATE_LIMIT_REQUESTS: '600' });
  });
  afterAll(async () => {
    await app?.close();
  });

  test('the sweep removes counters whose window ended over an hour ago, and only those', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    // A request creates the table and this key's current counter.
    const first = await app.http().get('/api/v2/events').set('Authorization', key.auth);
    expect(first.status).toBe(200);
    const remainingAfterFirst = Number(/r=(\d+)/.exec(first.headers.ratelimit)?.[1]);
    const knex = app.strapi.db.connection;
    const now = Date.now();
    await knex(RATE_LIMIT_TABLE).insert([
      { key: 'test:w60:address:203.0.113.1', points: 7, expire: now - 2 * 60 * 60_000 },
      { key: 'test:w60:address:203.0.113.2', points: 7, expire: now - 30 * 60_000 },
    ]);
    const before = (await knex(RATE_LIMIT_TABLE).select('key')).map((row: { key: string }) => row.key);
    expect(before).toHaveLength(3);

    expect(await rateLimits(app).sweepExpired(now)).toBe(1);

    const after = (await knex(RATE_LIMIT_TABLE).select('key')).map((row: { key: string }) => row.key).sort();
    expect(after).toEqual(before.filter((name: string) => name !== 'test:w60:address:203.0.113.1').sort());
    // The key's own counter is still counting.
    const res = await app.http().get('/api/v2/events').set('Authorization', key.auth);
    expect(Number(/r=(\d+)/.exec(res.headers.ratelimit)?.[1])).toBe(remainingAfterFirst - 1);
  });
});

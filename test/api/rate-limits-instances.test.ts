/**
 * Contract section 13: the rate limit counter is shared by every instance. Two application processes on
 * one PostgreSQL or MariaDB database, first counting in the database (the plugin's table), then in Redis
 * (REDIS_URL, 127.0.0.1:6379, under a counter prefix of this run's own). Requests alternate between the
 * instances; together they spend one quota, the further cost of atomic requests included.
 *
 * PostgreSQL and MariaDB (TEST_DATABASE=postgres or mariadb); skipped on SQLite, one file for one process.
 */
import { randomUUID } from 'node:crypto';
import { bootApp, type TestApp } from '../helpers/app';
import { testDatabase } from '../helpers/database';
import { createKey } from '../helpers/keys';
import { startApp, type RunningApp } from '../helpers/processes';
import { listenOnce } from '../helpers/writes';

const describeOnServer = testDatabase() === 'sqlite' ? describe.skip : describe;
const EVENTS_READ = { resources: { 'native:events': { actions: ['read'], read: ['title'] } } };
const EVENTS_WRITE = { resources: { 'native:events': { actions: ['read', 'create'], read: '*', write: '*' } } };
const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const sharedCounter = (store: string, env: Record<string, string>) =>
  describeOnServer(`two instances counting in ${store}`, () => {
    let app: TestApp;
    let second: RunningApp;
    let urls: string[];

    beforeAll(async () => {
      app = await bootApp(env);
      await listenOnce(app);
      const address = app.strapi.server.httpServer.address() as { port: number };
      // The second instance gets this process's database settings (set by bootApp) and the same store.
      second = await startApp(env);
      urls = [`http://127.0.0.1:${address.port}`, second.url];
    }, 120_000);
    afterAll(async () => {
      await second?.stop();
      await app?.close();
    });

    test('six requests over both instances spend a quota of six; the seventh is 429 on either', async () => {
      const key = await createKey(app.strapi, EVENTS_READ, { limits: { requests: 6, window: 60 } });
      const get = (instance: number) => fetch(`${urls[instance]}/api/v2/events`, { headers: { Authorization: key.auth } });
      for (let i = 0; i < 6; i += 1) {
        const res = await get(i % 2);
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-policy')).toBe('"key";q=6;w=60');
        expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"key";r=${5 - i};t=\\d+$`));
      }
      for (const instance of [0, 1]) {
        const refused = await get(instance);
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    });

    test("a request's further cost is charged to the shared counter: atomic operations on one instance spend the other's units", async () => {
      const key = await createKey(app.strapi, EVENTS_WRITE, { limits: { requests: 30, window: 60 } });
      const remaining = (res: Response) => Number(/^"key";r=(\d+);t=\d+$/.exec(res.headers.get('ratelimit') ?? '')?.[1]);
      const get = (instance: number) => fetch(`${urls[instance]}/api/v2/events`, { headers: { Authorization: key.auth } });
      const prefix = `Shared ${randomUUID()}`;
      const atomic = (instance: number, count: number) =>
        fetch(`${urls[instance]}/api/v2/operations`, {
          method: 'POST',
          headers: { Authorization: key.auth, 'Content-Type': ATOMIC },
          body: JSON.stringify({
            'atomic:operations': Array.from({ length: count }, (_, index) => ({
              op: 'add',
              data: {
                type: 'events',
                attributes: { title: `${prefix} ${index}`, startsAt: '2027-06-01T19:00:00.000Z', category: 'concert' },
              },
            })),
          }),
        });
      // 1 + 10 units on the first instance, 1 on the second.
      const ten = await atomic(0, 10);
      expect(ten.status).toBe(200);
      expect(remaining(ten)).toBe(19);
      expect(remaining(await get(1))).toBe(18);
      // 1 + 20 units on the second with 18 left: refused, the 20 not spent on either instance.
      const twenty = await atomic(1, 20);
      expect(twenty.status).toBe(429);
      expect(remaining(twenty)).toBe(17);
      expect(remaining(await get(0))).toBe(16);
      const published = await app.strapi.db
        .query('api::event.event' as never)
        .count({ where: { title: { $startsWith: `${prefix} ` }, publishedAt: { $notNull: true } } });
      expect(published).toBe(10);
    });
  });

sharedCounter('the database', {});
sharedCounter('Redis', { REDIS_URL, PUBLIC_API_RATE_LIMIT_PREFIX: `test-${randomUUID()}` });

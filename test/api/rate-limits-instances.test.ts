/**
 * Contract section 13: the rate limit counter is shared by every instance. Two application processes on
 * one PostgreSQL database, first counting in the database (the plugin's table), then in Redis
 * (REDIS_URL, 127.0.0.1:6379, under a counter prefix of this run's own). Requests alternate between the
 * instances; together they spend one quota.
 *
 * PostgreSQL only (TEST_DATABASE=postgres): SQLite is one file for one process.
 */
import { randomUUID } from 'node:crypto';
import { bootApp, type TestApp } from '../helpers/app';
import { usingPostgres } from '../helpers/database';
import { createKey } from '../helpers/keys';
import { startApp, type RunningApp } from '../helpers/processes';
import { listenOnce } from '../helpers/writes';

const describeOnPostgres = usingPostgres() ? describe : describe.skip;
const EVENTS_READ = { resources: { 'native:events': { actions: ['read'], read: ['title'] } } };
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const sharedCounter = (store: string, env: Record<string, string>) =>
  describeOnPostgres(`two instances counting in ${store}`, () => {
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
  });

sharedCounter('the database', {});
sharedCounter('Redis', { REDIS_URL, PUBLIC_API_RATE_LIMIT_PREFIX: `test-${randomUUID()}` });

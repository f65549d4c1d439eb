/**
 * Per-key usage (issue 19): the counters match the traffic a test sends (statuses by class, resources,
 * rate-limit refusals, latency), several tallies on one database add up (additive upserts), a second
 * instance's counts arrive (PostgreSQL: a second process, flushed on its graceful shutdown), the rollup
 * from minutes to hours to days keeps every sum, and the admin route's permissions and refusals.
 */
import type { Core } from '@strapi/strapi';
import { bootApp, type TestApp } from '../helpers/app';
import { adminWith, allActionsBut, superAdmin, type AdminSession } from '../helpers/admin';
import { usingPostgres } from '../helpers/database';
import { createKey } from '../helpers/keys';
import { startApp, type RunningApp } from '../helpers/processes';
import { listenOnce } from '../helpers/writes';
import usageFactory from '../../src/plugins/public-api/server/src/services/usage';
import type { KeyUsage } from '../../src/plugins/public-api/shared/contracts/usage';

type UsageService = ReturnType<typeof usageFactory>;

let app: TestApp;
let admin: AdminSession;

beforeAll(async () => {
  app = await bootApp();
  // One port for the whole suite: the documents' links (and so their ETags) stay the same.
  await listenOnce(app);
  admin = await superAdmin(app);
}, 120_000);
afterAll(async () => {
  await app?.close();
});

const usageService = (strapi: Core.Strapi = app.strapi) => strapi.plugin('public-api').service('usage') as UsageService;
const EVENTS_READ = { resources: { 'native:events': { actions: ['read'], read: ['title'] } } };
const MINUTE = 60_000;

/** Waits until the responses' counts are in the tally (they are added once the response has gone), then writes them. */
const settleAndFlush = async (strapi: Core.Strapi = app.strapi) => {
  await new Promise((resolve) => setTimeout(resolve, 100));
  await usageService(strapi).flush();
};

const usageOf = async (keyId: number, window = '24h', session = admin) =>
  app.http().get(`/public-api/keys/${keyId}/usage?window=${window}`).set('Authorization', session.auth);

describe('the counters match the traffic', () => {
  test('statuses by class, resources, rate-limit refusals and latency of the requests sent', async () => {
    const key = await createKey(app.strapi, EVENTS_READ, { limits: { requests: 10, window: 60 } });
    const get = (path: string, headers: Record<string, string> = {}) =>
      app.http().get(`/api/v2${path}`).set('Authorization', key.auth).set(headers);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await get('/events')).status);
    const first = await get('/events', { 'Accept-Encoding': 'identity' });
    statuses.push(first.status);
    statuses.push((await get('/events', { 'Accept-Encoding': 'identity', 'If-None-Match': String(first.headers.etag) })).status);
    statuses.push((await get('/events/no-such-event')).status, (await get('/events/another')).status);
    statuses.push((await get('/buildings')).status);
    statuses.push((await get('/')).status);
    statuses.push((await get('/events')).status);
    // The quota of 10 is spent: the next two are the key's rate limit.
    statuses.push((await get('/events')).status, (await get('/')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 304, 404, 404, 403, 200, 200, 429, 429]);
    // A request without a valid key is no key's usage.
    await app.http().get('/api/v2/events').set('Authorization', 'Bearer pdk_nonsense');
    await settleAndFlush();

    const res = await usageOf(key.id);
    expect(res.status).toBe(200);
    const usage: KeyUsage = res.body.data;
    expect(usage.window).toBe('24h');
    expect(usage.stepMinutes).toBe(60);
    expect(usage.points).toHaveLength(24);
    expect(usage.totals).toMatchObject({
      requests: 12,
      byClass: { '2xx': 6, '3xx': 1, '4xx': 5, '5xx': 0 },
      rateLimited: 2,
      errorRate: 5 / 12,
    });
    expect(usage.totals.p50Ms).toEqual(expect.any(Number));
    expect(usage.totals.p95Ms! >= usage.totals.p50Ms!).toBe(true);
    // The last point is the current hour: every request of the test is in it (or in the one before, at an hour's turn).
    const counted = usage.points.slice(-2).reduce((sum, point) => sum + point.requests, 0);
    expect(counted).toBe(12);
    expect(usage.topResources).toEqual([
      { resource: 'native:events', requests: 9, errors: 3, rateLimited: 1 },
      { resource: '(index)', requests: 2, errors: 1, rateLimited: 1 },
      { resource: 'native:buildings', requests: 1, errors: 1, rateLimited: 0 },
    ]);
    // Aggregated rows, never a row per request: one per minute and resource.
    const rows = await usageService().rows(key.id);
    expect(rows.every((row) => row.grain === 'minute')).toBe(true);
    expect(rows.length).toBeLessThanOrEqual(6);
    expect(rows.reduce((sum, row) => sum + row.requests, 0)).toBe(12);
  });

  test('a path naming no resource is counted as (unknown): what a client sends never becomes a name', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    for (const path of ['/nothing-here-1', '/nothing-here-2', '/cms/no-site/no-collection']) {
      expect((await app.http().get(`/api/v2${path}`).set('Authorization', key.auth)).status).toBe(404);
    }
    await settleAndFlush();
    const usage: KeyUsage = (await usageOf(key.id)).body.data;
    expect(usage.topResources).toEqual([{ resource: '(unknown)', requests: 3, errors: 3, rateLimited: 0 }]);
  });

  test('a key without traffic has a window of zeros and no quantiles', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    const usage: KeyUsage = (await usageOf(key.id, '30d')).body.data;
    expect(usage.points).toHaveLength(30);
    expect(usage.stepMinutes).toBe(1440);
    expect(usage.totals).toEqual({
      requests: 0,
      byClass: { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 },
      rateLimited: 0,
      p50Ms: null,
      p95Ms: null,
      errorRate: null,
    });
    expect(usage.topResources).toEqual([]);
    expect((await usageOf(key.id, '7d')).body.data.points).toHaveLength(168);
  });
});

describe('instances add up', () => {
  test('two tallies flushing into one database add their counts into the same rows', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    const other = usageFactory({ strapi: app.strapi });
    const at = Date.now();
    const observation = { apiKey: key.id, resource: 'native:events', durationMs: 12, rateLimited: false, at };
    for (let i = 0; i < 5; i += 1) usageService().record({ ...observation, status: 200 });
    for (let i = 0; i < 7; i += 1) other.record({ ...observation, status: i < 2 ? 500 : 200 });
    // Both flush at once, as two instances would.
    await Promise.all([usageService().flush(), other.flush()]);
    await other.stop();
    const rows = await usageService().rows(key.id);
    expect(rows).toEqual([{ grain: 'minute', bucket: Math.floor(at / MINUTE), resource: 'native:events', requests: 12 }]);
    const usage: KeyUsage = (await usageOf(key.id)).body.data;
    expect(usage.totals).toMatchObject({ requests: 12, byClass: { '2xx': 10, '3xx': 0, '4xx': 0, '5xx': 2 }, p50Ms: 13, p95Ms: 13 });
  });

  (usingPostgres() ? test : test.skip)(
    'PostgreSQL: requests to two processes on one database add up; the second writes its counts on shutdown',
    async () => {
      const address = app.strapi.server.httpServer.address() as { port: number };
      let second: RunningApp | undefined;
      try {
        second = await startApp({});
        const key = await createKey(app.strapi, EVENTS_READ);
        const urls = [`http://127.0.0.1:${address.port}`, second.url];
        const statuses: number[] = [];
        for (let i = 0; i < 10; i += 1) {
          const res = await fetch(`${urls[i % 2]}/api/v2/events${i % 5 === 4 ? '/missing' : ''}`, { headers: { Authorization: key.auth } });
          statuses.push(res.status);
        }
        expect(statuses.filter((status) => status === 200)).toHaveLength(8);
        // A graceful stop writes what the second instance counted (destroy flushes the tally).
        await second.stop();
        second = undefined;
        await settleAndFlush();
        const usage: KeyUsage = (await usageOf(key.id)).body.data;
        expect(usage.totals).toMatchObject({ requests: 10, byClass: { '2xx': 8, '3xx': 0, '4xx': 2, '5xx': 0 } });
        expect(usage.topResources).toEqual([{ resource: 'native:events', requests: 10, errors: 2, rateLimited: 0 }]);
      } finally {
        await second?.stop();
      }
    },
    180_000,
  );
});

describe('rollup', () => {
  test('minutes into hours into days keeps every sum; past the last retention rows go; a second run changes nothing', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    const usage = usageService();
    // Half past an hour that has passed: "eight hours ago" and the minute after it share their hour
    // whatever the clock says (at a minute past the hour they did not, and the expected rows split).
    const now = Math.floor(Date.now() / (60 * MINUTE)) * 60 * MINUTE - 30 * MINUTE;
    const record = (ago: number, status: number, durationMs: number, resource = 'native:events', rateLimited = false) =>
      usage.record({ apiKey: key.id, resource, status, durationMs, rateLimited, at: now - ago });
    // Eight hours ago (rolled into its hour), over two minutes and two resources.
    record(8 * 60 * MINUTE, 200, 4);
    record(8 * 60 * MINUTE, 404, 40);
    record(8 * 60 * MINUTE - MINUTE, 200, 700, '(index)');
    record(8 * 60 * MINUTE - MINUTE, 429, 1, 'native:events', true);
    // Ten days ago (rolled into an hour, then that hour into its day).
    record(10 * 1440 * MINUTE, 500, 3000);
    record(10 * 1440 * MINUTE, 200, 9);
    // 401 days ago: past every retention.
    record(401 * 1440 * MINUTE, 200, 2);
    // Now: stays a minute.
    record(0, 304, 1);
    await usage.flush();

    const before = { day: await usage.series(key.id, '30d', now), hour: await usage.series(key.id, '7d', now) };
    expect(before.day.totals).toMatchObject({ requests: 7, byClass: { '2xx': 3, '3xx': 1, '4xx': 2, '5xx': 1 }, rateLimited: 1 });
    expect(before.hour.totals.requests).toBe(5);

    // Two rollups at once (two instances): no row is counted twice.
    await Promise.all([usage.rollup(now), usage.rollup(now)]);
    const rows = await usage.rows(key.id);
    const hourOf = (ago: number) => Math.floor((now - ago) / (60 * MINUTE)) * 60;
    const dayOf = (ago: number) => Math.floor((now - ago) / (1440 * MINUTE)) * 1440;
    expect(rows).toEqual(
      [
        { grain: 'day', bucket: dayOf(10 * 1440 * MINUTE), resource: 'native:events', requests: 2 },
        { grain: 'hour', bucket: hourOf(8 * 60 * MINUTE), resource: '(index)', requests: 1 },
        { grain: 'hour', bucket: hourOf(8 * 60 * MINUTE), resource: 'native:events', requests: 3 },
        { grain: 'minute', bucket: Math.floor(now / MINUTE), resource: 'native:events', requests: 1 },
      ].sort((a, b) => (a.grain + a.bucket + a.resource < b.grain + b.bucket + b.resource ? -1 : 1)),
    );
    // Every window reads the same sums, points and quantiles as before.
    expect(await usage.series(key.id, '30d', now)).toEqual(before.day);
    expect(await usage.series(key.id, '7d', now)).toEqual(before.hour);

    await usage.rollup(now);
    expect(await usage.rows(key.id)).toEqual(rows);
  });
});

describe('the admin route', () => {
  test('needs the read permission; an unknown key is 404; a window not offered is 400', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    const reader = await adminWith(app, ['read']);
    const others = await adminWith(app, allActionsBut('read'));
    expect((await usageOf(key.id, '24h', reader)).status).toBe(200);
    expect((await usageOf(key.id, '24h', others)).status).toBe(403);
    expect((await app.http().get(`/public-api/keys/${key.id}/usage`)).status).toBe(401);
    expect((await usageOf(999_999)).status).toBe(404);
    const refused = await usageOf(key.id, '1y');
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.errors).toEqual([
      { path: ['window'], message: 'The window is one of 24h, 7d, 30d.', name: 'ValidationError' },
    ]);
    const unknown = await app.http().get(`/public-api/keys/${key.id}/usage?from=0`).set('Authorization', admin.auth);
    expect(unknown.status).toBe(400);
  });
});

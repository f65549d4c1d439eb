/**
 * The pure parts of per-key usage and the audit log: the latency histogram and its error bound, the
 * bounded tally, the series of a window, and the audit diff.
 */
import {
  LATENCY_BOUNDS_MS,
  LATENCY_BUCKETS,
  latencyBucket,
  latencyQuantile,
} from '../../src/plugins/public-api/server/src/usage/histogram';
import { createTally } from '../../src/plugins/public-api/server/src/usage/tally';
import { buildUsage, windowStart } from '../../src/plugins/public-api/server/src/usage/series';
import { keyChanges, websiteChanges, type KeySnapshot } from '../../src/plugins/public-api/server/src/audit/diff';

describe('latency histogram', () => {
  test('a quantile is never below the true value and at most 1.67 times it, or 1 ms more (within the bounds)', () => {
    for (let ms = 0.5; ms <= 10_000; ms *= 1.13) {
      const counts = new Array<number>(LATENCY_BUCKETS).fill(0);
      counts[latencyBucket(ms)] = 1;
      const reported = latencyQuantile(counts, 0.95)!;
      expect(reported).toBeGreaterThanOrEqual(ms);
      expect(reported).toBeLessThanOrEqual(Math.max(ms + 1, ms * 1.67));
    }
  });

  test('quantiles of a known distribution; none of an empty one; beyond the last bound, the last bound', () => {
    const counts = new Array<number>(LATENCY_BUCKETS).fill(0);
    for (let i = 0; i < 90; i += 1) counts[latencyBucket(4)]! += 1;
    for (let i = 0; i < 10; i += 1) counts[latencyBucket(450)]! += 1;
    expect(latencyQuantile(counts, 0.5)).toBe(5);
    expect(latencyQuantile(counts, 0.9)).toBe(5);
    expect(latencyQuantile(counts, 0.95)).toBe(500);
    expect(latencyQuantile(new Array<number>(LATENCY_BUCKETS).fill(0), 0.5)).toBeNull();
    expect(latencyBucket(60_000)).toBe(LATENCY_BOUNDS_MS.length);
    const slow = new Array<number>(LATENCY_BUCKETS).fill(0);
    slow[LATENCY_BOUNDS_MS.length] = 1;
    expect(latencyQuantile(slow, 0.5)).toBe(10_000);
  });
});

describe('tally', () => {
  const observation = { apiKey: 1, resource: 'native:events', status: 200, durationMs: 3, rateLimited: false, at: 60_000 * 1000 };

  test('one cell per key, minute and resource; statuses by class; 429s of the key counted', () => {
    const tally = createTally(10);
    tally.add(observation);
    tally.add({ ...observation, status: 304 });
    tally.add({ ...observation, status: 429, rateLimited: true });
    tally.add({ ...observation, at: observation.at + 60_000 });
    const cells = tally.take(10);
    expect(cells).toHaveLength(2);
    expect(cells[0]).toMatchObject({ minute: 1000, requests: 3, byClass: { '2xx': 1, '3xx': 1, '4xx': 1, '5xx': 0 }, rateLimited: 1 });
    expect(tally.size()).toBe(0);
  });

  test('bounded: past maxCells an observation is dropped and counted; a restore adds within the bound', () => {
    const tally = createTally(2);
    expect(tally.add(observation)).toBe(true);
    expect(tally.add({ ...observation, apiKey: 2 })).toBe(true);
    expect(tally.add({ ...observation, apiKey: 3 })).toBe(false);
    expect(tally.add(observation)).toBe(true);
    expect(tally.takeDropped()).toBe(1);
    const taken = tally.take(1);
    tally.add({ ...observation, apiKey: 4 });
    tally.restore(taken);
    expect(tally.size()).toBe(2);
    expect(tally.takeDropped()).toBe(2);
  });
});

describe('series', () => {
  test('every step of the window is a point; zeros where nothing was counted', () => {
    const now = Date.UTC(2026, 10, 27, 14, 30);
    const nowMinute = now / 60_000;
    expect(windowStart('24h', nowMinute)).toBe(Math.floor(nowMinute / 60) * 60 - 23 * 60);
    const latency = new Array<number>(LATENCY_BUCKETS).fill(0);
    latency[latencyBucket(7)] = 4;
    const slot = Math.floor(nowMinute / 60);
    const usage = buildUsage(
      '24h',
      now,
      [{ slot, requests: 4, byClass: { '2xx': 3, '3xx': 0, '4xx': 1, '5xx': 0 }, rateLimited: 1, latency }],
      [],
      5,
    );
    expect(usage.points).toHaveLength(24);
    expect(usage.points[23]).toEqual({
      start: '2026-11-27T14:00:00.000Z',
      requests: 4,
      byClass: { '2xx': 3, '3xx': 0, '4xx': 1, '5xx': 0 },
      rateLimited: 1,
      p50Ms: 8,
      p95Ms: 8,
    });
    expect(usage.points[0]).toMatchObject({ start: '2026-11-26T15:00:00.000Z', requests: 0, p50Ms: null });
    expect(usage.totals).toEqual({
      requests: 4,
      byClass: { '2xx': 3, '3xx': 0, '4xx': 1, '5xx': 0 },
      rateLimited: 1,
      p50Ms: 8,
      p95Ms: 8,
      errorRate: 0.25,
    });
  });
});

describe('audit diff', () => {
  const key: KeySnapshot = {
    name: 'Site',
    description: null,
    expiresAt: null,
    limits: null,
    cache: null,
    preview: false,
    revoked: false,
    grants: { resources: { 'native:events': { actions: ['read'], read: ['title'], write: [] } }, commands: [], origins: [] },
  };

  test('nothing changed: no changes, whatever order stored objects have', () => {
    expect(
      keyChanges({ ...key, limits: { requests: 5, window: 60 } }, { ...key, limits: { window: 60, requests: 5 } } as KeySnapshot),
    ).toEqual([]);
  });

  test('a grant narrowed and an origin removed', () => {
    const after: KeySnapshot = {
      ...key,
      grants: { resources: { 'native:events': { actions: [], read: [], write: [] } }, commands: [], origins: [] },
    };
    const before: KeySnapshot = { ...key, grants: { ...key.grants, origins: ['https://a.example'] } };
    expect(keyChanges(before, after)).toEqual([
      {
        kind: 'resource',
        resource: 'native:events',
        status: 'changed',
        actions: { added: [], removed: ['read'] },
        read: { added: [], removed: ['title'] },
        write: { added: [], removed: [] },
      },
      { kind: 'list', field: 'origins', added: [], removed: ['https://a.example'] },
    ]);
  });

  test('a publication whose mode changed', () => {
    const site = {
      name: 'A',
      slug: 'a',
      publications: [{ collection: 'pages', contentType: 'api::page.page', mode: 'collection' as const }],
    };
    expect(websiteChanges(site, { ...site, publications: [{ ...site.publications[0]!, mode: 'singleton' as const }] })).toEqual([
      {
        kind: 'publication',
        collection: 'pages',
        status: 'changed',
        from: { contentType: 'api::page.page', mode: 'collection' },
        to: { contentType: 'api::page.page', mode: 'singleton' },
      },
    ]);
  });
});

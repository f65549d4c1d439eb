/**
 * The OpenAPI document on the demo content (src/seed): how long a key with every grant waits for its
 * document (the figure in docs/benchmarks.md), and every resource of the demo read with that key,
 * page by page and with every relation expanded, checked against the document it was served.
 */
import { performance } from 'node:perf_hooks';
import type { Response } from 'supertest';
import { bootApp, type TestApp } from '../helpers/app';
import { createKey, keysService } from '../helpers/keys';
import { checkResponses, responseCheckerOf, type OpenApiDocument } from '../helpers/openapi';
import { buildOpenApiDocument } from '../../src/plugins/public-api/server/src/openapi/document';
import { COMMANDS } from '../../src/plugins/public-api/server/src/commands';
import type { ApiKey } from '../../src/plugins/public-api/server/src/keys/types';
import type { Resource } from '../../src/plugins/public-api/server/src/registry/types';

let app: TestApp;
let key: Awaited<ReturnType<typeof createKey>>;

beforeAll(async () => {
  // The database starts with the demo content seeded (the demo template, test/helpers/templates.js).
  app = await checkResponses(await bootApp({}, { template: 'demo' }));
  key = await createKey(app.strapi, 'all');
}, 600_000);
afterAll(async () => {
  await app?.close();
});

type OpenApiService = {
  document: (key: ApiKey, baseUrl: string) => Promise<{ text: string; etag: string }>;
  clearCache: () => void;
};

const service = () => app.strapi.plugin('public-api').service('openapi') as OpenApiService;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: +percentile(sorted, 50).toFixed(2), p95: +percentile(sorted, 95).toFixed(2), max: +sorted.at(-1)!.toFixed(2) };
};

// Measures (for docs/benchmarks.md) but asserts no time: tests never do. The aim, under 50 ms uncached, is
// judged from the printed figures.
test('generating the document of a key with every grant: figures, and the cache serves the same document', async () => {
  const apiKey = (await keysService(app.strapi).findOne(key.id))!;
  const baseUrl = 'http://127.0.0.1/api/v2';
  const resources = (await (app.strapi.plugin('public-api').service('resources') as { all: () => Promise<Resource[]> }).all());
  const locales = ['de', 'en'];
  const RUNS = 60;

  // Warm up the code paths once; the figures are then steady-state generation, not module loading.
  service().clearCache();
  await service().document(apiKey, baseUrl);

  const build: number[] = [];
  const uncached: number[] = [];
  const cached: number[] = [];
  let size = 0;
  for (let run = 0; run < RUNS; run += 1) {
    let started = performance.now();
    const text = JSON.stringify(buildOpenApiDocument({ baseUrl, grants: apiKey.grants, resources, locales, commands: COMMANDS }));
    build.push(performance.now() - started);
    size = text.length;

    service().clearCache();
    started = performance.now();
    await service().document(apiKey, baseUrl);
    uncached.push(performance.now() - started);

    started = performance.now();
    await service().document(apiKey, baseUrl);
    cached.push(performance.now() - started);
  }

  // Unchecked requests: the checker would fetch the document once more per request.
  const raw = responseCheckerOf(app)!.raw;
  const http: number[] = [];
  for (let run = 0; run < 20; run += 1) {
    const started = performance.now();
    const res = await raw().get('/api/v2/openapi.json').set('Authorization', key.auth);
    http.push(performance.now() - started);
    expect(res.status).toBe(200);
  }

  const figures = {
    resources: resources.length,
    documentBytes: size,
    buildAndSerializeMs: summary(build),
    uncachedServiceMs: summary(uncached),
    cachedServiceMs: summary(cached),
    httpRoundTripMs: summary(http),
  };
  // The figure docs/benchmarks.md reports.
  console.log(`OpenAPI document of a key with every grant on the demo content: ${JSON.stringify(figures, null, 2)}`);
  service().clearCache();
  const fresh = await service().document(apiKey, baseUrl);
  const again = await service().document(apiKey, baseUrl);
  expect(JSON.stringify(again)).toBe(JSON.stringify(fresh));
});

test('every demo resource, read page by page with every relation expanded, answers as the document says', async () => {
  const res = await app.http().get('/api/v2/openapi.json').set('Authorization', key.auth);
  const document = JSON.parse(res.text) as OpenApiDocument;
  const checker = responseCheckerOf(app)!;
  const before = checker.counts.described;
  let records = 0;
  for (const [template, item] of Object.entries(document.paths)) {
    const get = item.get as { parameters?: { name?: string; schema?: { items?: { enum?: string[] } } }[] } | undefined;
    if (!get || template.includes('{') || ['/', '/schema', '/openapi', '/openapi.json'].includes(template)) continue;
    const include = get.parameters?.find((parameter) => parameter.name === 'include')?.schema?.items?.enum ?? [];
    const oneLevel = include.filter((path) => !path.includes('.')).slice(0, 10);
    const query = oneLevel.length ? `include=${oneLevel.join(',')}` : '';
    const recordPath = document.paths[`${template}/{record}`];
    if (!recordPath) {
      // A singleton, in each locale.
      for (const locale of ['en', 'de']) await app.http().get(`/api/v2${template}?${query}&locale=${locale}`).set('Authorization', key.auth);
      continue;
    }
    let next: string | undefined = `/api/v2${template}?limit=100${query ? `&${query}` : ''}`;
    const slugs: string[] = [];
    while (next) {
      const page: Response = await app.http().get(next).set('Authorization', key.auth);
      expect(page.status).toBe(200);
      records += page.body.data.length;
      for (const record of page.body.data as { meta: { slug: string | null }; id: string }[]) slugs.push(record.meta.slug ?? record.id);
      next = page.body.links.next ? new URL(page.body.links.next).pathname + new URL(page.body.links.next).search : undefined;
    }
    // Deep includes and single records, on a few of them.
    const deep = include.filter((path) => path.split('.').length === 3).slice(0, 10);
    if (deep.length) expect((await app.http().get(`/api/v2${template}?limit=10&include=${deep.join(',')}`).set('Authorization', key.auth)).status).toBe(200);
    for (const slug of slugs.slice(0, 3)) {
      expect((await app.http().get(`/api/v2${template}/${encodeURIComponent(slug)}?${query}`).set('Authorization', key.auth)).status).toBe(200);
    }
  }
  expect(records).toBeGreaterThan(200);
  expect(checker.counts.described - before).toBeGreaterThan(20);
});

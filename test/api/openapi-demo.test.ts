/**
 * The OpenAPI document on the demo content (src/seed): the document of a key with every grant, served
 * and cached (how long it takes: bench/openapi.ts), and every resource of the demo read with that key,
 * page by page and with every relation expanded, checked against the document it was served.
 */
import type { Response } from 'supertest';
import { bootApp, type TestApp } from '../helpers/app';
import { createKey, keysService } from '../helpers/keys';
import { checkResponses, responseCheckerOf, type OpenApiDocument } from '../helpers/openapi';
import type { ApiKey } from '../../src/plugins/public-api/server/src/keys/types';

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

// How long this takes is bench/openapi.ts's (`npm run bench:openapi`, docs/benchmarks.md); here, what the
// benchmark relies on: the document is served over HTTP, and the cache gives back the document it built.
test('the document of a key with every grant: served, and the cache gives back the document it built', async () => {
  const apiKey = (await keysService(app.strapi).findOne(key.id))!;
  const baseUrl = 'http://127.0.0.1/api/v2';
  const res = await responseCheckerOf(app)!.raw().get('/api/v2/openapi.json').set('Authorization', key.auth);
  expect(res.status).toBe(200);
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
      for (const locale of ['en', 'de'])
        await app.http().get(`/api/v2${template}?${query}&locale=${locale}`).set('Authorization', key.auth);
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
    if (deep.length)
      expect(
        (
          await app
            .http()
            .get(`/api/v2${template}?limit=10&include=${deep.join(',')}`)
            .set('Authorization', key.auth)
        ).status,
      ).toBe(200);
    for (const slug of slugs.slice(0, 3)) {
      expect(
        (
          await app
            .http()
            .get(`/api/v2${template}/${encodeURIComponent(slug)}?${query}`)
            .set('Authorization', key.auth)
        ).status,
      ).toBe(200);
    }
  }
  expect(records).toBeGreaterThan(200);
  expect(checker.counts.described - before).toBeGreaterThan(20);
});

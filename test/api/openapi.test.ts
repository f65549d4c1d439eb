/**
 * GET /api/v2/schema (and /openapi, /openapi.json): the OpenAPI 3.1 document of the calling key
 * (contract section 9). Several differently granted keys' documents are validated with swagger-parser
 * and linted with Redocly CLI; a narrow key's document leaks nothing; openapi-typescript generates
 * types from the document of a key with every grant, and a small client compiled against them reads
 * a collection page. Every /api/v2 response of this suite is checked against its key's document.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { Response } from 'supertest';
import { bootApp, type TestApp, APP_ROOT } from '../helpers/app';
import { BLOCKS, ensureLocale, localize, publish, uploadImage, website } from '../helpers/fixtures';
import { createKey, keysService } from '../helpers/keys';
import { checkResponses, responseCheckerOf, type OpenApiDocument } from '../helpers/openapi';
import { leakedNames } from '../helpers/openapi-leaks';
import type { Resource } from '../../src/plugins/public-api/server/src/registry/types';
import type { KeyGrants } from '../../src/plugins/public-api/server/src/grants/types';

const run = promisify(execFile);
const ARTIFACTS = path.join(APP_ROOT, 'test', '.artifacts', `openapi-${process.pid}`);
const bin = (relative: string) => path.join(APP_ROOT, 'node_modules', relative);
const TOOL_ENV = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

let app: TestApp;
type Key = Awaited<ReturnType<typeof createKey>>;

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const s = app.strapi;
  await ensureLocale(s, 'de', 'German');
  const image = await uploadImage(s, 'hall.png', 64, 48);
  const hall = await publish(s, 'api::building.building', {
    name: 'Main Hall',
    slug: 'main-hall',
    sort: 1,
    floors: 3,
    images: [image.id],
    description: BLOCKS,
  });
  const fest = await publish(s, 'api::festival.festival', {
    name: 'Summer Fest',
    slug: 'summer-fest',
    startsOn: '2027-06-01',
    endsOn: '2027-06-03',
  });
  const jazz = await publish(s, 'api::event.event', {
    title: 'Jazz Night',
    slug: 'jazz-night',
    sort: 2,
    startsAt: '2027-06-01T19:30:00.000Z',
    category: 'concert',
    tags: ['jazz'],
    price: 25.5,
    venue: hall.documentId,
    festival: fest.documentId,
    cover: image.id,
    body: BLOCKS,
  });
  await localize(s, 'api::event.event', jazz.documentId, 'de', {
    title: 'Jazznacht',
    slug: 'jazznacht',
    startsAt: '2027-06-01T19:30:00.000Z',
    category: 'concert',
  });
  await publish(s, 'api::event.event', { title: 'Talk', slug: 'talk', sort: 1, startsAt: '2027-07-01T10:00:00.000Z', category: 'talk' });
  await publish(s, 'api::job.job', {
    title: 'Engineer',
    slug: 'engineer',
    department: 'engineering',
    employmentType: 'full-time',
    description: '# Role',
  });
  await publish(s, 'api::product.product', {
    name: 'Tote',
    slug: 'tote',
    sku: 'TOTE-1',
    price: 12,
    currency: 'EUR',
    event: jazz.documentId,
  });
  const siteA = await website(s, 'site-a', [
    { collection: 'pages', contentType: 'api::page.page', mode: 'collection' },
    { collection: 'settings', contentType: 'api::setting.setting', mode: 'singleton' },
    { collection: 'home', contentType: 'api::homepage.homepage', mode: 'singleton' },
  ]);
  const siteB = await website(s, 'site-b', [{ collection: 'pages', contentType: 'api::page.page', mode: 'collection' }]);
  await publish(s, 'api::page.page', { title: 'About A', slug: 'about-a', website: siteA.documentId, body: BLOCKS });
  await publish(s, 'api::page.page', { title: 'About B', slug: 'about-b', website: siteB.documentId });
  await publish(s, 'api::setting.setting', { siteName: 'Site A', website: siteA.documentId });
  await publish(s, 'api::homepage.homepage', { headline: 'Welcome', featuredEvents: [jazz.documentId] });
});
afterAll(async () => {
  fs.rmSync(ARTIFACTS, { recursive: true, force: true });
  await app?.close();
});

const fetchDocument = async (key: Key, at = '/api/v2/openapi.json') => {
  const res = await app.http().get(at).set('Authorization', key.auth);
  if (res.status !== 200) throw new Error(`${at}: ${res.status} ${res.text}`);
  return { res, document: JSON.parse(res.text) as OpenApiDocument & Record<string, any> };
};

const registry = () => app.strapi.plugin('public-api').service('resources') as { all: () => Promise<Resource[]> };

const KEYS: Record<string, unknown> = {
  all: 'all',
  narrowRead: { resources: { 'native:jobs': { actions: ['read'], read: ['title', 'department'] } } },
  readAndExpand: {
    resources: {
      'native:events': { actions: ['read'], read: ['title', 'startsAt', 'venue', 'festival', 'cover', 'body', 'tags'] },
      'native:buildings': { actions: ['read'], read: ['name', 'events', 'images'] },
    },
  },
  writeOnly: {
    resources: {
      'native:events': { actions: ['create', 'update', 'delete'], write: ['title', 'startsAt', 'category', 'venue', 'body', 'cover'] },
      'native:jobs': { actions: ['delete'] },
      'native:buildings': { actions: ['create'], write: ['name'] },
    },
  },
  cmsOnly: {
    resources: {
      'cms:site-a/pages': { actions: ['read', 'update'], read: '*', write: ['title', 'summary'] },
      'cms:site-a/home': { actions: ['read'], read: ['headline', 'featuredEvents'] },
      'cms:site-a/settings': { actions: ['read', 'update'], read: ['siteName'], write: ['siteName'] },
    },
  },
  none: { resources: {} },
};

test('served at /schema, /openapi and /openapi.json: one document, as application/json, revalidated by ETag', async () => {
  const key = await createKey(app.strapi, KEYS.readAndExpand);
  const answers = await Promise.all(['/api/v2/schema', '/api/v2/openapi', '/api/v2/openapi.json'].map((at) => fetchDocument(key, at)));
  for (const { res } of answers) {
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.headers.vary).toMatch(/Accept/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers.etag).toBe(answers[0]!.res.headers.etag);
    expect(res.text).toBe(answers[0]!.res.text);
  }
  const { document } = answers[0]!;
  expect(document.openapi).toBe('3.1.0');
  expect(document.servers).toEqual([{ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2$/), description: 'This service.' }]);

  const again = await app.http().get('/api/v2/schema').set('Authorization', key.auth).set('If-None-Match', answers[0]!.res.headers.etag);
  expect(again.status).toBe(304);
  expect(again.text).toBe('');
  const head = await app.http().head('/api/v2/openapi').set('Authorization', key.auth);
  expect(head.status).toBe(200);
});

test('content negotiation: JSON or the OpenAPI media type; 406 for an Accept that excludes both', async () => {
  const key = await createKey(app.strapi, KEYS.none);
  const accept = (value: string) => app.http().get('/api/v2/openapi.json').set('Authorization', key.auth).set('Accept', value);
  expect((await accept('application/vnd.oai.openapi+json')).headers['content-type']).toMatch(/^application\/vnd\.oai\.openapi\+json/);
  expect((await accept('application/vnd.oai.openapi+json;version=3.1, application/json;q=0.5')).headers['content-type']).toMatch(
    /^application\/vnd\.oai\.openapi\+json/,
  );
  expect((await accept('application/json')).headers['content-type']).toMatch(/^application\/json/);
  expect((await accept('*/*')).headers['content-type']).toMatch(/^application\/json/);
  expect((await accept('application/*')).headers['content-type']).toMatch(/^application\/json/);
  expect((await accept('application/json;q=0, */*')).headers['content-type']).toMatch(/^application\/vnd\.oai\.openapi\+json/);
  for (const value of ['application/vnd.api+json', 'text/html', 'application/json;q=0']) {
    const res = await accept(value);
    expect(res.status).toBe(406);
    expect(res.headers['content-type']).toMatch(/^application\/vnd\.api\+json/);
    expect(res.body.errors[0]).toMatchObject({ code: 'not_acceptable', source: { header: 'Accept' } });
  }
  // The JSON:API endpoints keep their own rule.
  expect((await app.http().get('/api/v2/').set('Authorization', key.auth).set('Accept', 'application/json')).status).toBe(406);
});

test('the document answers like every endpoint: 401 without a key, 400 for a query parameter', async () => {
  const key = await createKey(app.strapi, KEYS.none);
  const anonymous = await app.http().get('/api/v2/schema');
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
  const withQuery = await app.http().get('/api/v2/schema?format=yaml').set('Authorization', key.auth);
  expect(withQuery.status).toBe(400);
  expect(withQuery.body.errors[0].source).toEqual({ parameter: 'format' });
});

describe('documents of differently granted keys', () => {
  const documents: Record<string, OpenApiDocument & Record<string, any>> = {};
  const grantsOf: Record<string, KeyGrants> = {};

  beforeAll(async () => {
    for (const [name, grants] of Object.entries(KEYS)) {
      const key = await createKey(app.strapi, grants, { name });
      documents[name] = (await fetchDocument(key)).document;
      grantsOf[name] = (await keysService(app.strapi).findOne(key.id))!.grants;
      fs.writeFileSync(path.join(ARTIFACTS, `${name}.json`), JSON.stringify(documents[name], null, 2));
    }
  });

  test('each is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    for (const [name, document] of Object.entries(documents)) {
      await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
      expect({ name, openapi: document.openapi }).toEqual({ name, openapi: '3.1.0' });
    }
  });

  test('each passes Redocly CLI lint with the checked-in configuration: no errors, no warnings', async () => {
    const files = Object.keys(documents).map((name) => path.join(ARTIFACTS, `${name}.json`));
    const { stdout } = await run(
      process.execPath,
      [bin('@redocly/cli/bin/cli.js'), 'lint', ...files, '--config', path.join(APP_ROOT, 'redocly.yaml'), '--format=json'],
      {
        cwd: APP_ROOT,
        env: TOOL_ENV,
        maxBuffer: 64 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`Redocly lint failed:\n${error.stdout}\n${error.stderr}`);
    });
    // One JSON report per file, concatenated.
    const reports = stdout
      .split(/(?=\{\s*"totals")/)
      .map((part) => JSON.parse(part) as { totals: { errors: number; warnings: number }; problems: unknown[] });
    expect(reports).toHaveLength(files.length);
    for (const report of reports)
      expect({ totals: report.totals, problems: report.problems }).toEqual({
        totals: { errors: 0, warnings: 0, ignored: 0 },
        problems: [],
      });
  });

  test('each holds exactly the paths and methods its key may use', () => {
    const methods = (document: OpenApiDocument) =>
      Object.fromEntries(
        Object.entries(document.paths).map(([p, item]) => [
          p,
          Object.keys(item).filter((k) => ['get', 'post', 'patch', 'delete'].includes(k)),
        ]),
      );
    // Self-description every key may call: the index, the document, the (maybe empty) list of its commands.
    const service = { '/': ['get'], '/schema': ['get'], '/openapi': ['get'], '/openapi.json': ['get'], '/commands/schema': ['get'] };
    expect(methods(documents.none!)).toEqual(service);
    // A key that reads some resource has the sync feed (contract section 16).
    expect(methods(documents.narrowRead!)).toEqual({ ...service, '/sync': ['get'], '/jobs': ['get'], '/jobs/{record}': ['get'] });
    expect(methods(documents.writeOnly!)).toEqual({
      ...service,
      '/buildings': ['post'],
      '/events': ['post'],
      '/events/{record}': ['patch', 'delete'],
      '/jobs/{record}': ['delete'],
      // A key that may write has atomic operations (contract section 17).
      '/operations': ['post'],
    });
    expect(methods(documents.cmsOnly!)).toEqual({
      ...service,
      '/sync': ['get'],
      '/operations': ['post'],
      '/cms/site-a/pages': ['get'],
      '/cms/site-a/pages/{record}': ['get', 'patch'],
      '/cms/site-a/settings': ['get', 'patch'],
      '/cms/site-a/home': ['get'],
    });
    const all = methods(documents.all!);
    expect(all).toMatchObject({
      '/sync': ['get'],
      '/events': ['get', 'post'],
      '/events/{record}': ['get', 'patch', 'delete'],
      '/cms/site-b/pages/{record}': ['get', 'patch', 'delete'],
      '/operations': ['post'],
    });
    expect(documents.all!.paths['/events/{record}']['x-service']).toEqual({ identifier: ['slug', 'id'] });
    expect(documents.all!.paths['/cms/site-a/pages/{record}']['x-service']).toEqual({ identifier: ['slug', 'id'] });
    expect(documents.all!.components.parameters.Locale!.schema).toEqual({ type: 'string', enum: ['de', 'en'] });
  });

  test('a narrowly granted key: no name of a resource, field or command outside its grants', async () => {
    const resources = await registry().all();
    for (const name of ['narrowRead', 'readAndExpand', 'writeOnly', 'cmsOnly', 'none']) {
      expect({ name, leaked: leakedNames({ document: documents[name]!, grants: grantsOf[name]!, resources, commands: [] }) }).toEqual({
        name,
        leaked: [],
      });
    }
    const narrow = JSON.stringify(documents.narrowRead);
    for (const word of ['events', 'buildings', 'site-a', 'pages', 'salaryMin', 'employmentType', 'remote', 'festival'])
      expect(narrow).not.toContain(word);
  });
});

test('every GET the all-grants key is described for answers as described', async () => {
  const key = await createKey(app.strapi, 'all');
  const { document } = await fetchDocument(key);
  const checker = responseCheckerOf(app)!;
  const before = checker.counts.described;
  for (const [template, item] of Object.entries(document.paths)) {
    if (!item.get || template.includes('{')) continue;
    const res = await app
      .http()
      .get(`/api/v2${template === '/' ? '/' : template}`)
      .set('Authorization', key.auth);
    expect([200, 404]).toContain(res.status);
    const recordTemplate = `${template}/{record}`;
    if (res.status === 200 && Array.isArray(res.body.data) && document.paths[recordTemplate] && template !== '/') {
      for (const record of res.body.data as { id: string; meta: { slug: string | null } }[]) {
        const id = record.meta.slug ?? record.id;
        expect(
          (
            await app
              .http()
              .get(`/api/v2${template}/${encodeURIComponent(id)}`)
              .set('Authorization', key.auth)
          ).status,
        ).toBe(200);
      }
      // With every expandable path the key has, one level deep.
      const include = (item.get.parameters as { name?: string; schema?: { items?: { enum?: string[] } } }[]).find(
        (p) => p.name === 'include',
      );
      const paths = include?.schema?.items?.enum?.filter((p) => !p.includes('.')).slice(0, 10);
      if (paths?.length)
        expect(
          (
            await app
              .http()
              .get(`/api/v2${template}?include=${paths.join(',')}`)
              .set('Authorization', key.auth)
          ).status,
        ).toBe(200);
    }
  }
  expect(
    (
      await app
        .http()
        .get('/api/v2/events?locale=de&sort=-startsAt&filter[category]=concert&include=venue.events')
        .set('Authorization', key.auth)
    ).status,
  ).toBe(200);
  expect(checker.counts.described - before).toBeGreaterThan(15);
});

test('a response that drifts from the document fails the check', async () => {
  const key = await createKey(app.strapi, KEYS.narrowRead);
  const checker = responseCheckerOf(app)!;
  const res = await app.http().get('/api/v2/jobs').set('Authorization', key.auth);
  const url = 'http://127.0.0.1/api/v2/jobs';
  await expect(checker.check('GET', url, key.auth, res)).resolves.toBeUndefined();
  const drift = (body: unknown, status = 200) => ({ ...res, status, text: JSON.stringify(body) }) as Response;
  const record = res.body.data[0];
  await expect(
    checker.check('GET', url, key.auth, drift({ ...res.body, data: [{ ...record, attributes: { ...record.attributes, salaryMin: 1 } }] })),
  ).rejects.toThrow(/does not match/);
  await expect(
    checker.check(
      'GET',
      url,
      key.auth,
      drift({ ...res.body, data: [{ ...record, attributes: { ...record.attributes, department: 'astrology' } }] }),
    ),
  ).rejects.toThrow(/does not match/);
  await expect(checker.check('GET', url, key.auth, drift(res.body, 418))).rejects.toThrow(/does not list status 418/);
  await expect(checker.check('GET', 'http://127.0.0.1/api/v2/events', key.auth, drift(res.body))).rejects.toThrow(/does not describe/);
});

test('the document follows grant and publication changes on the very next request', async () => {
  const key = await createKey(app.strapi, { resources: { 'cms:site-a/home': { actions: ['read'], read: ['headline'] } } });
  const first = await fetchDocument(key);
  expect(Object.keys(first.document.paths)).toContain('/cms/site-a/home');
  expect(Object.keys(first.document.components.schemas.SiteA_HomeAttributes!.properties!)).toEqual(['headline']);

  await keysService(app.strapi).update(key.id, {
    grants: { resources: { 'cms:site-a/home': { actions: ['read', 'update'], read: ['headline', 'intro'], write: ['headline'] } } },
  });
  const widened = await fetchDocument(key);
  expect(widened.res.headers.etag).not.toBe(first.res.headers.etag);
  expect(Object.keys(widened.document.components.schemas.SiteA_HomeAttributes!.properties!)).toEqual(['headline', 'intro']);
  expect(Object.keys(widened.document.paths['/cms/site-a/home'])).toEqual(['get', 'patch']);

  await keysService(app.strapi).update(key.id, { grants: { resources: { 'cms:site-a/home': { actions: ['read'], read: ['headline'] } } } });
  expect((await fetchDocument(key)).res.headers.etag).toBe(first.res.headers.etag);

  const websites = app.strapi.db.query('plugin::public-api.website');
  const site = await websites.findOne({ where: { slug: 'site-a' } });
  await websites.update({
    where: { id: site.id },
    data: { publications: site.publications.filter((p: { collection: string }) => p.collection !== 'home') },
  });
  try {
    const unpublished = await fetchDocument(key);
    expect(Object.keys(unpublished.document.paths)).not.toContain('/cms/site-a/home');
    expect(JSON.stringify(unpublished.document)).not.toContain('headline');
  } finally {
    await websites.update({ where: { id: site.id }, data: { publications: site.publications } });
  }
  expect((await fetchDocument(key)).res.headers.etag).toBe(first.res.headers.etag);
});

test('openapi-typescript generates types from the all-grants document, and a client compiled against them reads a page', async () => {
  const key = await createKey(app.strapi, 'all');
  const server = app.strapi.server.httpServer;
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`;
  const dir = path.join(ARTIFACTS, 'client');
  fs.mkdirSync(dir, { recursive: true });

  const response = await fetch(`${baseUrl}/openapi.json`, { headers: { Authorization: key.auth } });
  expect(response.status).toBe(200);
  fs.writeFileSync(path.join(dir, 'openapi.json'), await response.text());
  const generated = await run(
    process.execPath,
    [bin('openapi-typescript/bin/cli.js'), path.join(dir, 'openapi.json'), '--output', path.join(dir, 'api.d.ts')],
    { cwd: dir, env: TOOL_ENV },
  );
  expect(generated.stderr).not.toMatch(/error/i);
  expect(fs.readFileSync(path.join(dir, 'api.d.ts'), 'utf8')).toContain('EventsCreateWritableAttributes');

  fs.writeFileSync(
    path.join(dir, 'client.ts'),
    `import type { components, paths } from './api';

type EventsPage = paths['/events']['get']['responses'][200]['content']['application/vnd.api+json'];
type EventsQuery = NonNullable<paths['/events']['get']['parameters']['query']>;
type SortKey = NonNullable<EventsQuery['sort']>[number];
type NewEvent = components['schemas']['EventsCreateWritableAttributes'];

/** Reads one page of events: the query and the answer are typed by the key's own document. */
export const readEvents = async (baseUrl: string, key: string, query: EventsQuery): Promise<EventsPage> => {
  const search = new URLSearchParams();
  if (query.limit !== undefined) search.set('limit', String(query.limit));
  if (query.sort) search.set('sort', query.sort.join(','));
  if (query.locale) search.set('locale', query.locale);
  if (query.include) search.set('include', query.include.join(','));
  const res = await fetch(\`\${baseUrl}/events?\${search}\`, { headers: { Authorization: \`Bearer \${key}\`, Accept: 'application/vnd.api+json' } });
  if (res.status !== 200) throw new Error(\`events: \${res.status}\`);
  return (await res.json()) as EventsPage;
};

// Attributes are optional in the types (a sparse fieldset may leave any out); this page asks for all of them.
export const titles = (page: EventsPage): string[] => page.data.map((record) => record.attributes.title ?? '');
export const venues = (page: EventsPage): (string | null)[] =>
  page.data.map((record) => {
    const venue = record.attributes.venue;
    return venue == null ? null : 'collection' in venue ? venue.slug : (venue.attributes.name ?? null);
  });

// The types are as narrow as the document: these lines only compile if they are.
export const newest: SortKey = '-startsAt';
// @ts-expect-error body is not a sortable key
export const notSortable: SortKey = 'body';
// @ts-expect-error a locale that is not configured
export const klingon: EventsQuery['locale'] = 'tlh';
export const draft: NewEvent = { title: 'New', startsAt: '2027-01-01T00:00:00.000Z', category: 'talk' };
// @ts-expect-error title is required on create
export const untitled: NewEvent = { startsAt: '2027-01-01T00:00:00.000Z', category: 'talk' };
`,
  );
  await run(
    process.execPath,
    [
      bin('typescript/bin/tsc'),
      '--strict',
      '--noUncheckedIndexedAccess',
      '--target',
      'ES2022',
      '--module',
      'commonjs',
      '--lib',
      'ES2022,DOM',
      '--types',
      'node',
      '--skipLibCheck',
      '--outDir',
      path.join(dir, 'out'),
      path.join(dir, 'client.ts'),
    ],
    { cwd: APP_ROOT, env: TOOL_ENV },
  ).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`tsc failed:\n${error.stdout}\n${error.stderr}`);
  });
  const client = require(path.join(dir, 'out', 'client.js')) as {
    readEvents: (baseUrl: string, key: string, query: object) => Promise<unknown>;
    titles: (page: unknown) => string[];
    venues: (page: unknown) => (string | null)[];
  };
  const page = await client.readEvents(baseUrl, key.token, { limit: 5, sort: ['-startsAt'], include: ['venue'] });
  expect(client.titles(page)).toEqual(['Talk', 'Jazz Night']);
  expect(client.venues(page)).toEqual([null, 'Main Hall']);
});

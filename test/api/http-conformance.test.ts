/**
 * The HTTP layer over every kind of path (contract sections 4 and 12):
 *
 * - Methods: for every path of every resource the registry holds (native collections and records, CMS
 *   collections, records and singletons) and every fixed path (index, documents, commands, assets), the
 *   methods that do not answer 405 are exactly OPTIONS' `Allow`, every 405 carries that same `Allow`,
 *   and a CORS preflight allows those same methods.
 * - Negotiation: JSON:API 1.1's rules on every keyed endpoint: a JSON:API instance in Accept decides
 *   whatever wildcard is beside it, an unsupported `ext` is 406 in Accept and 415 in Content-Type.
 *
 * Requests that could write are sent so that they cannot (bodies the server refuses, unknown records).
 */
import { bootApp, type TestApp } from '../helpers/app';
import { publish, uploadImage, website } from '../helpers/fixtures';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { checkResponses } from '../helpers/openapi';
import { DEMO_PUBLICATIONS } from '../helpers/registry';
import { tableSnapshot } from '../helpers/writes';
import { supportedActions } from '../../src/plugins/public-api/server/src/grants/resolve';
import type { Resource } from '../../src/plugins/public-api/server/src/registry/types';

const ORIGIN = 'https://shop.example';
const JSONAPI = 'application/vnd.api+json';
const ATOMIC = 'https://jsonapi.org/ext/atomic';
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const UIDS = [
  'api::event.event',
  'api::page.page',
  'api::setting.setting',
  'api::homepage.homepage',
  'api::newsletter-subscription.newsletter-subscription',
  'api::job-application.job-application',
];

let app: TestApp;
let all: Awaited<ReturnType<typeof createKey>>;
let assetPath: string;

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  const s = app.strapi;
  const image = await uploadImage(s, 'cover.png');
  await publish(s, 'api::event.event', {
    title: 'Talk',
    slug: 'talk',
    startsAt: '2027-07-01T10:00:00.000Z',
    category: 'talk',
    cover: image.id,
  });
  const site = await website(s, 'site-a', DEMO_PUBLICATIONS);
  await publish(s, 'api::page.page', { title: 'About', slug: 'about', website: site.documentId });
  await publish(s, 'api::setting.setting', { siteName: 'Site A', website: site.documentId });
  // Every action on every resource and every command, and a browser origin for preflights.
  const everything = Object.fromEntries(
    (await resources()).map((resource) => [resource.id, { actions: supportedActions(resource), read: '*', write: '*' }]),
  );
  all = await createKey(s, { resources: everything, commands: '*', origins: [ORIGIN] });
  const events = await app.http().get('/api/v2/events').set('Authorization', all.auth);
  assetPath = new URL(events.body.data[0].attributes.cover.url).pathname;
});
afterAll(async () => {
  await app?.close();
});

const resources = () => (app.strapi.plugin('public-api').service('resources') as { all: () => Promise<Resource[]> }).all();
const resourcePathOf = (resource: Resource) =>
  resource.sourceType === 'cms' ? `/api/v2/cms/${resource.website!.slug}/${resource.slug}` : `/api/v2/${resource.slug}`;

/** Every path shape the API has, once per resource the registry holds. */
const everyPath = async (): Promise<string[]> => {
  const paths = [
    '/api/v2/',
    '/api/v2/schema',
    '/api/v2/openapi',
    '/api/v2/openapi.json',
    '/api/v2/commands/schema',
    '/api/v2/commands/newsletter-signup',
    assetPath,
  ];
  for (const resource of await resources()) paths.push(resourcePathOf(resource), `${resourcePathOf(resource)}/no-such-record`);
  return paths;
};

/** One request of `method` at `path` with the all-grants key, shaped so that nothing can be written. */
const probe = (method: (typeof METHODS)[number], path: string) => {
  const test = app
    .http()
    [method.toLowerCase() as 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete'](path)
    .set('Authorization', all.auth);
  // A body the server refuses (400/422) where one is read; DELETE refuses any body (400) before acting.
  return method === 'GET' || method === 'HEAD' ? test : test.set('Content-Type', 'application/json').send('{}');
};

const allowOf = (header: string | undefined) =>
  (header ?? '')
    .split(',')
    .map((method) => method.trim())
    .filter(Boolean);

describe('methods: one source for 405, OPTIONS and the preflight', () => {
  test('every path: the methods that do not answer 405 are exactly what OPTIONS and the preflight allow', async () => {
    const before = await tableSnapshot(app.strapi, UIDS);
    const checked: string[] = [];
    for (const path of await everyPath()) {
      const options = await app.http().options(path);
      const preflight = await app.http().options(path).set('Origin', ORIGIN).set('Access-Control-Request-Method', 'GET');
      const answered: Record<string, number> = {};
      const refusedAllows = new Set<string>();
      for (const method of METHODS) {
        const res = await probe(method, path);
        answered[method] = res.status;
        if (res.status === 405) refusedAllows.add(res.headers.allow);
        expect({ path, method, status: res.status }).not.toEqual({ path, method, status: 500 });
      }
      if (options.status === 404) {
        // Nothing lies at this path for this resource (below a singleton): every method is 404 too.
        expect({ path, answered }).toEqual({ path, answered: Object.fromEntries(METHODS.map((method) => [method, 404])) });
        expect(preflight.status).toBe(404);
        continue;
      }
      expect({ path, status: options.status }).toEqual({ path, status: 204 });
      const allow = allowOf(options.headers.allow);
      const notRefused = METHODS.filter((method) => answered[method] !== 405);
      expect({ path, allow }).toEqual({ path, allow: [...notRefused, 'OPTIONS'] });
      // Every 405 names the same methods.
      expect({ path, refused: [...refusedAllows] }).toEqual({ path, refused: refusedAllows.size ? [options.headers.allow] : [] });
      expect({
        path,
        preflight: preflight.status,
        methods: preflight.headers['access-control-allow-methods'],
        allow: preflight.headers.allow,
      }).toEqual({
        path,
        preflight: 204,
        methods: options.headers.allow,
        allow: options.headers.allow,
      });
      checked.push(`${path}: ${options.headers.allow}`);
    }
    expect(await tableSnapshot(app.strapi, UIDS)).toEqual(before);
    // Every kind was met: a singleton's own path, a collection's, a record's, and the fixed ones.
    expect(checked).toEqual(
      expect.arrayContaining([
        '/api/v2/: GET, HEAD, OPTIONS',
        '/api/v2/events: GET, HEAD, POST, OPTIONS',
        '/api/v2/events/no-such-record: GET, HEAD, PATCH, DELETE, OPTIONS',
        '/api/v2/cms/site-a/pages: GET, HEAD, POST, OPTIONS',
        '/api/v2/cms/site-a/pages/no-such-record: GET, HEAD, PATCH, DELETE, OPTIONS',
        '/api/v2/cms/site-a/settings: GET, HEAD, PATCH, OPTIONS',
        '/api/v2/commands/schema: GET, HEAD, OPTIONS',
        '/api/v2/commands/newsletter-signup: POST, OPTIONS',
        `${assetPath}: GET, HEAD, OPTIONS`,
      ]),
    );
  });

  test('below a singleton nothing lies: OPTIONS and every method are 404', async () => {
    const res = await app.http().options('/api/v2/cms/site-a/settings/anything');
    expect(res.status).toBe(404);
    expectValidJsonApi(res.body);
    expect(res.body.errors[0].meta).toEqual({ reason: 'record_not_found' });
  });

  test('OPTIONS of a resource that does not exist is 404, like every method on it', async () => {
    for (const path of ['/api/v2/cms/site-a/nothing', '/api/v2/cms/no-site/pages', '/api/v2/spaceships']) {
      const res = await app.http().options(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.body.errors[0].meta).toEqual({ reason: 'resource_not_found' });
      expect((await app.http().put(path).set('Authorization', all.auth)).status).toBe(404);
    }
  });

  test('a method a path has for no resource is 401 without a key (the resource is not looked at first)', async () => {
    expect((await app.http().put('/api/v2/cms/site-a/settings')).status).toBe(401);
    expect((await app.http().delete('/api/v2/cms/site-a/settings')).status).toBe(401);
  });
});

describe('negotiation: JSON:API 1.1 as written', () => {
  const keyed = (): { method: 'get' | 'post' | 'patch'; path: string; body?: string }[] => [
    { method: 'get', path: '/api/v2/' },
    { method: 'get', path: '/api/v2/events' },
    { method: 'get', path: '/api/v2/events/talk' },
    { method: 'get', path: '/api/v2/cms/site-a/settings' },
    { method: 'get', path: '/api/v2/commands/schema' },
    {
      method: 'post',
      path: '/api/v2/events',
      body: JSON.stringify({
        data: { type: 'events', attributes: { title: 'Never', startsAt: '2027-01-01T00:00:00Z', category: 'talk' } },
      }),
    },
    { method: 'patch', path: '/api/v2/events/talk', body: JSON.stringify({ data: { type: 'events', attributes: { title: 'Never' } } }) },
    {
      method: 'patch',
      path: '/api/v2/cms/site-a/settings',
      body: JSON.stringify({ data: { type: 'settings', attributes: { siteName: 'Never' } } }),
    },
    {
      method: 'post',
      path: '/api/v2/commands/newsletter-signup',
      body: JSON.stringify({ data: { type: 'newsletter-signup', attributes: { email: 'never@example.com', consent: true } } }),
    },
  ];

  const send = (endpoint: ReturnType<typeof keyed>[number], headers: Record<string, string>) => {
    let test = app.http()[endpoint.method](endpoint.path).set('Authorization', all.auth);
    for (const [name, value] of Object.entries(headers)) test = test.set(name, value);
    if (endpoint.body) test = test.set('Content-Type', headers['Content-Type'] ?? JSONAPI).send(endpoint.body);
    return test;
  };

  test.each([
    [`${JSONAPI};foo=bar, */*`, 'media_type_parameters'],
    [`${JSONAPI};charset=utf-8, application/*`, 'media_type_parameters'],
    [`${JSONAPI}; ext="${ATOMIC}"`, 'extension_unsupported'],
    [`${JSONAPI}; ext="${ATOMIC}", */*`, 'extension_unsupported'],
    [`${JSONAPI};q=0, */*`, 'not_acceptable'],
  ])('Accept: %s is 406 (%s) on every endpoint, and nothing is written', async (accept, reason) => {
    const before = await tableSnapshot(app.strapi, UIDS);
    for (const endpoint of keyed()) {
      const res = await send(endpoint, { Accept: accept });
      expect({ endpoint: endpoint.path, status: res.status, reason: res.body.errors?.[0]?.meta?.reason }).toEqual({
        endpoint: endpoint.path,
        status: 406,
        reason,
      });
      expect(res.headers['content-type']).toBe(JSONAPI);
      expectValidJsonApi(res.body);
    }
    expect(await tableSnapshot(app.strapi, UIDS)).toEqual(before);
  });

  test('one JSON:API instance the server can honour is enough', async () => {
    for (const endpoint of keyed().filter((e) => e.method === 'get')) {
      const res = await send(endpoint, { Accept: `${JSONAPI}; ext="${ATOMIC}", ${JSONAPI}; profile="https://example.com/p"` });
      expect({ endpoint: endpoint.path, status: res.status }).toEqual({ endpoint: endpoint.path, status: 200 });
    }
  });

  test.each([
    [`${JSONAPI}; ext="${ATOMIC}"`, 'extension_unsupported'],
    [`${JSONAPI}; ext="https://example.com/ext/other"`, 'extension_unsupported'],
    [`${JSONAPI}; charset=utf-8`, 'media_type_parameters'],
  ])('Content-Type: %s is 415 (%s) on every write and command, and nothing is written', async (contentType, reason) => {
    const before = await tableSnapshot(app.strapi, UIDS);
    for (const endpoint of keyed().filter((e) => e.body)) {
      const res = await send(endpoint, { 'Content-Type': contentType });
      expect({ endpoint: endpoint.path, status: res.status, reason: res.body.errors?.[0]?.meta?.reason }).toEqual({
        endpoint: endpoint.path,
        status: 415,
        reason,
      });
    }
    expect(await tableSnapshot(app.strapi, UIDS)).toEqual(before);
  });

  test('the OpenAPI document is not JSON:API: its own negotiation applies', async () => {
    const res = await app.http().get('/api/v2/openapi.json').set('Authorization', all.auth).set('Accept', `${JSONAPI};foo=bar, */*`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });
});

/**
 * A key's OpenAPI document describes every endpoint the key can call, and nothing else (contract
 * section 9), with the request media types the server reads:
 *
 * - For differently granted keys (no grants, commands only, reads only, writes only, CMS only,
 *   everything), every method on every path shape of every resource and command is tried: the
 *   operations that are not refused as forbidden, absent or unsupported (403, 404, 405) are exactly the
 *   operations of the key's document.
 * - For every operation with a request body, each common media type is sent: the server refuses it
 *   with 415 exactly when the document does not list it (job-application's multipart/form-data with the
 *   CV part included), and a multipart application built from the document is accepted.
 *
 * - Every operation of a key's document lists every status the edge can answer it with (issue 33: none
 *   listed 429 or 431): real requests to each operation get 401 (no key), 406 (an Accept without JSON:API),
 *   403 (a refused browser origin), 400 (unstorable text in the query), 429 (a spent rate limit), 431 (an
 *   over-long header section) and 413 (over-long chunk extensions), and each status is one the
 *   operation lists. The server's table of those statuses (http/statuses.ts) holds every one of them.
 *
 * Requests are shaped so that nothing is written (bodies the server refuses before acting).
 */
import { bootApp, type TestApp } from '../helpers/app';
import { minimalPdf } from '../helpers/files';
import { ensureLocale, publish, website } from '../helpers/fixtures';
import { createKey } from '../helpers/keys';
import { parseRawResponse, portOf, sendBytesUntilClosed, sendRequest } from '../helpers/raw-http';
import { checkResponses, type OpenApiDocument } from '../helpers/openapi';
import { tableSnapshot } from '../helpers/writes';
import { COMMANDS } from '../../src/commands';
import { supportedActions } from '../../src/plugins/public-api/server/src/grants/resolve';
import { EDGE_STATUSES } from '../../src/plugins/public-api/server/src/http/statuses';
import type { Resource } from '../../src/plugins/public-api/server/src/registry/types';

const METHODS = ['get', 'post', 'patch', 'delete'] as const;
type HttpMethod = (typeof METHODS)[number];
const REQUEST_TYPES = [
  'application/json',
  'application/vnd.api+json',
  'multipart/form-data',
  'application/x-www-form-urlencoded',
  'text/plain',
] as const;
const UIDS = [
  'api::event.event',
  'api::building.building',
  'api::festival.festival',
  'api::job.job',
  'api::product.product',
  'api::page.page',
  'api::setting.setting',
  'api::homepage.homepage',
  'api::job-application.job-application',
  'api::newsletter-subscription.newsletter-subscription',
];

type Doc = Omit<OpenApiDocument, 'paths'> & {
  paths: Record<
    string,
    Record<string, { requestBody?: { content: Record<string, { schema: any; encoding?: Record<string, { contentType: string }> }> } }>
  >;
};

let app: TestApp;
let resources: Resource[];
/** A readable record's identifier per collection resource (the path's `{record}`). */
const records = new Map<string, string>();
const keys: Record<string, { auth: string }> = {};

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const pathOf = (resource: Resource) =>
  resource.sourceType === 'cms' ? `/cms/${resource.website!.slug}/${resource.slug}` : `/${resource.slug}`;

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  const s = app.strapi;
  await ensureLocale(s, 'de', 'German');
  const hall = await publish(s, 'api::building.building', { name: 'Main Hall', slug: 'main-hall', floors: 3 });
  const fest = await publish(s, 'api::festival.festival', {
    name: 'Summer Fest',
    slug: 'summer-fest',
    startsOn: '2027-06-01',
    endsOn: '2027-06-03',
  });
  const jazz = await publish(s, 'api::event.event', {
    title: 'Jazz Night',
    slug: 'jazz-night',
    startsAt: '2027-06-01T19:30:00.000Z',
    category: 'concert',
    venue: hall.documentId,
    festival: fest.documentId,
  });
  await publish(s, 'api::job.job', {
    title: 'Engineer',
    slug: 'engineer',
    department: 'engineering',
    employmentType: 'full-time',
    closesOn: day(30),
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
  await publish(s, 'api::page.page', { title: 'About A', slug: 'about-a', website: siteA.documentId });
  await publish(s, 'api::page.page', { title: 'About B', slug: 'about-b', website: siteB.documentId });
  await publish(s, 'api::setting.setting', { siteName: 'Site A', website: siteA.documentId });
  await publish(s, 'api::homepage.homepage', { headline: 'Welcome' });

  resources = await (s.plugin('public-api').service('resources') as { all: () => Promise<Resource[]> }).all();
  const everything = Object.fromEntries(
    resources.map((resource) => [resource.id, { actions: supportedActions(resource), read: '*', write: '*' }]),
  );
  const grants: Record<string, unknown> = {
    none: { resources: {} },
    commandsOnly: { commands: ['job-application'] },
    readsOnly: {
      resources: {
        'native:jobs': { actions: ['read'], read: ['title'] },
        'cms:site-a/settings': { actions: ['read'], read: ['siteName'] },
      },
    },
    writesOnly: {
      resources: {
        'native:events': { actions: ['create', 'update', 'delete'], write: ['title', 'startsAt', 'category'] },
        'native:jobs': { actions: ['delete'] },
        'cms:site-a/settings': { actions: ['update'], write: ['siteName'] },
      },
    },
    cmsOnly: {
      resources: {
        'cms:site-a/pages': { actions: ['read', 'update'], read: '*', write: ['title'] },
        'cms:site-a/home': { actions: ['read'], read: ['headline'] },
      },
    },
    everything: { resources: everything, commands: '*' },
  };
  for (const [name, grant] of Object.entries(grants)) keys[name] = await createKey(s, grant, { name });
  // The same grants as `everything` (so the same document), with a limit its first request spends.
  keys.limited = await createKey(s, grants.everything, { name: 'limited', limits: { requests: 1, window: 3600 } });
  for (const resource of resources.filter((r) => r.mode === 'collection')) {
    const page = await app
      .http()
      .get(`/api/v2${pathOf(resource)}`)
      .set('Authorization', keys.everything!.auth);
    const first = page.body.data[0] as { id: string; meta: { slug: string | null } } | undefined;
    if (!first) throw new Error(`No record of ${resource.id} to address.`);
    records.set(resource.id, first.meta.slug ?? first.id);
  }
});
afterAll(async () => {
  await app?.close();
});

const documentOf = async (auth: string): Promise<Doc> => {
  const res = await app.http().get('/api/v2/openapi.json').set('Authorization', auth);
  expect(res.status).toBe(200);
  return JSON.parse(res.text) as Doc;
};

/** Every operation the API could have: each method on each path shape, as `METHOD template` with a concrete path. */
const candidates = (): { operation: string; method: HttpMethod; path: string }[] => {
  const list: { operation: string; method: HttpMethod; path: string }[] = [];
  const add = (template: string, concrete: string) => {
    for (const method of METHODS) list.push({ operation: `${method.toUpperCase()} ${template}`, method, path: `/api/v2${concrete}` });
  };
  for (const fixed of ['/', '/schema', '/openapi', '/openapi.json', '/commands/schema', '/operations', '/sync']) add(fixed, fixed);
  for (const command of [...COMMANDS.map((c) => c.name), 'no-such-command']) add(`/commands/${command}`, `/commands/${command}`);
  for (const resource of resources) {
    add(pathOf(resource), pathOf(resource));
    add(`${pathOf(resource)}/{record}`, `${pathOf(resource)}/${encodeURIComponent(records.get(resource.id) ?? 'anything')}`);
  }
  return list;
};

/** Sent so that nothing can be written: an empty JSON object is never a valid document, and DELETE refuses any body. */
const attempt = (auth: string, method: HttpMethod, path: string) => {
  const test = app.http()[method](path).set('Authorization', auth);
  return method === 'get' ? test : test.set('Content-Type', 'application/json').send('{}');
};

const REFUSED = new Set([403, 404, 405]);

const described = (document: Doc): string[] =>
  Object.entries(document.paths).flatMap(([template, item]) =>
    METHODS.filter((method) => item[method]).map((method) => `${method.toUpperCase()} ${template}`),
  );

test.each(['none', 'commandsOnly', 'readsOnly', 'writesOnly', 'cmsOnly', 'everything'])(
  'key %s: the operations it can call are exactly those its document describes',
  async (name) => {
    const auth = keys[name]!.auth;
    const before = await tableSnapshot(app.strapi, UIDS);
    const callable: string[] = [];
    for (const candidate of candidates()) {
      const res = await attempt(auth, candidate.method, candidate.path);
      expect({ operation: candidate.operation, status: res.status }).not.toEqual({ operation: candidate.operation, status: 500 });
      if (!REFUSED.has(res.status)) callable.push(candidate.operation);
    }
    const document = await documentOf(auth);
    expect(callable.sort()).toEqual(described(document).sort());
    expect(callable).toContain('GET /commands/schema');
    expect(await tableSnapshot(app.strapi, UIDS)).toEqual(before);
  },
);

/** A small body of each media type. */
const sendAs = (auth: string, method: HttpMethod, path: string, type: (typeof REQUEST_TYPES)[number]) => {
  const test = app.http()[method](path).set('Authorization', auth);
  switch (type) {
    case 'multipart/form-data':
      return test.field('data', '{}');
    case 'application/x-www-form-urlencoded':
      return test.type('form').send('data=x');
    case 'text/plain':
      return test.set('Content-Type', 'text/plain').send('x');
    default:
      return test.set('Content-Type', type).send('{}');
  }
};

test('every operation with a body: 415 exactly for the media types its document does not list', async () => {
  for (const name of ['everything', 'commandsOnly']) {
    const auth = keys[name]!.auth;
    const document = await documentOf(auth);
    const before = await tableSnapshot(app.strapi, UIDS);
    const seen: string[] = [];
    for (const { operation, method, path } of candidates()) {
      const template = operation.slice(operation.indexOf(' ') + 1);
      const body = document.paths[template]?.[method]?.requestBody;
      if (!body) continue;
      const listed = Object.keys(body.content);
      for (const type of REQUEST_TYPES) {
        const res = await sendAs(auth, method, path, type);
        expect({ operation, type, unsupported: res.status === 415 }).toEqual({ operation, type, unsupported: !listed.includes(type) });
      }
      seen.push(`${operation}: ${listed.sort().join(', ')}`);
    }
    expect(await tableSnapshot(app.strapi, UIDS)).toEqual(before);
    expect(seen).toContain('POST /commands/job-application: application/json, application/vnd.api+json, multipart/form-data');
  }
});

test('the job application described as multipart/form-data, CV part included, is accepted as described', async () => {
  const document = await documentOf(keys.commandsOnly!.auth);
  const multipart = document.paths['/commands/job-application']!.post!.requestBody!.content['multipart/form-data']!;
  expect(multipart.schema).toMatchObject({
    type: 'object',
    required: ['data'],
    properties: {
      data: { type: 'object', properties: { data: { properties: { type: { const: 'job-application' } } } } },
      cv: { type: 'string', contentMediaType: 'application/octet-stream' },
    },
  });
  expect(multipart.encoding!.cv!.contentType.split(', ')).toEqual([
    'application/pdf',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  ]);
  expect(Object.keys(multipart.schema.properties).sort()).toEqual(['cv', 'data']);

  const res = await app
    .http()
    .post('/api/v2/commands/job-application')
    .set('Authorization', keys.commandsOnly!.auth)
    .field(
      'data',
      JSON.stringify({
        data: { type: 'job-application', attributes: { job: 'engineer', name: 'Ada Lovelace', email: 'ada@example.com', consent: true } },
      }),
    )
    .attach('cv', minimalPdf(), { filename: 'cv.pdf', contentType: multipart.encoding!.cv!.contentType.split(', ')[0]! });
  expect(res.status).toBe(201);
  const stored = (await app.strapi.db.query('api::job-application.job-application').findMany({ populate: ['cv'] })) as {
    cv: { mime: string } | null;
  }[];
  expect(stored.map((row) => row.cv?.mime)).toEqual(['application/pdf']);
});

describe('every operation lists every status the edge can answer it with', () => {
  type Operation = { responses: Record<string, unknown>; requestBody?: unknown };
  /** Each operation of the `everything` key's document, with a concrete path and what it lists. */
  const operations = async () => {
    const document = await documentOf(keys.everything!.auth);
    return candidates().flatMap(({ operation, method, path }) => {
      const template = operation.slice(operation.indexOf(' ') + 1);
      const described = document.paths[template]?.[method] as Operation | undefined;
      return described ? [{ operation, method: method.toUpperCase(), path, listed: Object.keys(described.responses).map(Number) }] : [];
    });
  };

  test("the server table holds every status the edge and Node's parser answer", () => {
    // middlewares/api-v2.ts: host 400, Accept 406, key 401/429, rate limit 429, origin 403, storable 400,
    // load gate 503, failures 500; http/client-errors.ts: 400, 408, 413, 431.
    expect([...EDGE_STATUSES].sort()).toEqual([400, 401, 403, 406, 408, 413, 429, 431, 500, 503].sort());
  });

  test("each operation lists the edge statuses, and a body's (400, 408, 413, 415) where it takes one", async () => {
    const document = await documentOf(keys.everything!.auth);
    const missing: string[] = [];
    for (const [template, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        const operation = item[method] as Operation | undefined;
        if (!operation) continue;
        const wanted = [...EDGE_STATUSES, ...(operation.requestBody ? [400, 408, 413, 415] : [])];
        for (const status of wanted)
          if (!(String(status) in operation.responses)) missing.push(`${method.toUpperCase()} ${template} ${status}`);
      }
    }
    expect(missing).toEqual([]);
    expect(Object.keys(document.paths).length).toBeGreaterThan(20);
  });

  test('real refusals of each operation (401, 406, 403, 400, 429, 431, 413) have statuses it lists', async () => {
    const port = await portOf(app);
    const list = await operations();
    expect(list.length).toBeGreaterThan(40);
    // The limited key's one request, spent: each next request of it is 429.
    expect((await sendRequest(port, { method: 'GET', target: '/api/v2/', headers: { Authorization: keys.limited!.auth } })).status).toBe(
      200,
    );
    const auth = keys.everything!.auth;
    const unlisted: string[] = [];
    const seen = new Map<number, number>();
    for (const { operation, method, path, listed } of list) {
      const answers: [string, number][] = [];
      const send = async (what: string, headers: Record<string, string>, target = path) =>
        answers.push([what, (await sendRequest(port, { method, target, headers })).status]);
      await send('no key', {});
      await send('Accept', { Authorization: auth, Accept: 'text/html' });
      await send('origin', { Authorization: auth, Origin: 'https://refused.example' });
      await send('unstorable', { Authorization: auth }, `${path}?x=%00`);
      await send('rate limit', { Authorization: keys.limited!.auth });
      const head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${auth}\r\nConnection: close\r\n`;
      answers.push([
        'header section',
        parseRawResponse(await sendBytesUntilClosed(port, `${head}X-Filler: ${'a'.repeat(20_000)}\r\n\r\n`)).status,
      ]);
      const chunked = `${head}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1;${'e'.repeat(20_000)}\r\n{\r\n`;
      answers.push(['chunk extensions', parseRawResponse(await sendBytesUntilClosed(port, chunked)).status]);
      for (const [what, status] of answers) {
        seen.set(status, (seen.get(status) ?? 0) + 1);
        if (!listed.includes(status)) unlisted.push(`${operation} (${what}): ${status} is not among ${listed.join(', ')}`);
      }
      expect(answers).toEqual([
        ['no key', 401],
        ['Accept', 406],
        ['origin', 403],
        ['unstorable', 400],
        ['rate limit', 429],
        ['header section', 431],
        ['chunk extensions', 413],
      ]);
    }
    expect(unlisted).toEqual([]);
    expect([...seen.keys()].sort()).toEqual([400, 401, 403, 406, 413, 429, 431]);
  });
});

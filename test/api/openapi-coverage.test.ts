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
 * Requests are shaped so that nothing is written (bodies the server refuses before acting).
 */
import { bootApp, type TestApp } from '../helpers/app';
import { minimalPdf } from '../helpers/files';
import { ensureLocale, publish, website } from '../helpers/fixtures';
import { createKey } from '../helpers/keys';
import { checkResponses, type OpenApiDocument } from '../helpers/openapi';
import { tableSnapshot } from '../helpers/writes';
import { COMMANDS } from '../../src/plugins/public-api/server/src/commands';
import { supportedActions } from '../../src/plugins/public-api/server/src/grants/resolve';
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

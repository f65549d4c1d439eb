/**
 * A generated client, as docs/api.md sets it up ("Generated clients"): openapi-typescript types from a
 * live key's document, openapi-fetch with the documented `querySerializer` (taken from docs/api.md
 * itself, so the page and the test cannot drift). The client is compiled with `tsc --strict` and makes
 * real calls against the booted application: a filtered, sorted, expanded page, a date filter, and an
 * idempotent create. Wrong calls (a number for a date or a datetime filter, a sort key the key may not
 * use, a dynamic zone entry or component value without the fields its component requires) must not compile.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import Ajv2020 from 'ajv/dist/2020';
import { APP_ROOT, bootApp, type TestApp } from '../helpers/app';
import { publish, website } from '../helpers/fixtures';
import { createKey } from '../helpers/keys';
import { checkResponses } from '../helpers/openapi';

const run = promisify(execFile);
const ARTIFACTS = path.join(APP_ROOT, 'test', '.artifacts', `generated-client-${process.pid}`);
const bin = (relative: string) => path.join(APP_ROOT, 'node_modules', relative);
const TOOL_ENV = { ...process.env, NO_COLOR: '1' };
const TSC_OPTIONS = [
  '--strict',
  '--noUncheckedIndexedAccess',
  '--esModuleInterop',
  '--target',
  'ES2022',
  '--module',
  'commonjs',
  '--lib',
  'ES2022,DOM',
  '--types',
  'node',
  '--skipLibCheck',
];

let app: TestApp;
let key: Awaited<ReturnType<typeof createKey>>;
let baseUrl: string;

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  const s = app.strapi;
  const hall = await publish(s, 'api::building.building', { name: 'Main Hall', slug: 'main-hall', floors: 3 });
  await publish(s, 'api::event.event', {
    title: 'Jazz Night',
    slug: 'jazz-night',
    startsAt: '2027-06-01T19:30:00.000Z',
    category: 'concert',
    venue: hall.documentId,
  });
  await publish(s, 'api::event.event', {
    title: 'Rock Night',
    slug: 'rock-night',
    startsAt: '2027-06-20T19:30:00.000Z',
    category: 'concert',
  });
  await publish(s, 'api::event.event', {
    title: 'Early Concert',
    slug: 'early-concert',
    startsAt: '2027-05-01T19:30:00.000Z',
    category: 'concert',
  });
  await publish(s, 'api::event.event', { title: 'Talk', slug: 'talk', startsAt: '2027-07-01T10:00:00.000Z', category: 'talk' });
  await publish(s, 'api::festival.festival', { name: 'Summer Fest', slug: 'summer-fest', startsOn: '2027-06-01', endsOn: '2027-06-03' });
  await publish(s, 'api::festival.festival', { name: 'Autumn Fest', slug: 'autumn-fest', startsOn: '2027-10-01', endsOn: '2027-10-03' });
  // Pages with a dynamic zone of sections (sections.hero requires `heading`), for the component inputs.
  await website(s, 'site-a', [{ collection: 'pages', contentType: 'api::page.page', mode: 'collection' }]);
  key = await createKey(s, 'all');
  const server = s.server.httpServer;
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`;
  fs.mkdirSync(ARTIFACTS, { recursive: true });
});
afterAll(async () => {
  fs.rmSync(ARTIFACTS, { recursive: true, force: true });
  await app?.close();
});

/** The client set-up exactly as docs/api.md shows it. */
const documentedSetup = (): string => {
  const page = fs.readFileSync(path.join(APP_ROOT, 'docs', 'api.md'), 'utf8');
  const block = /<!-- client-setup:start -->\s*```ts\n([\s\S]*?)```\s*<!-- client-setup:end -->/.exec(page);
  if (!block) throw new Error('docs/api.md has no client-setup block.');
  return block[1]!;
};

const CALLS = `import { createApiClient } from './client-setup';

export const run = async (baseUrl: string, key: string) => {
  const client = createApiClient(baseUrl, key);
  const concerts = await client.GET('/events', {
    params: { query: { sort: ['-startsAt'], include: ['venue'], limit: 10, filter: { startsAt: { gte: '2027-06-01T00:00:00Z' }, category: 'concert' } } },
  });
  if (!concerts.data) throw new Error(\`events: \${concerts.response.status} \${JSON.stringify(concerts.error)}\`);
  // Attributes are optional in the types: a sparse fieldset may leave any of them out.
  const venues = concerts.data.data.map((record) => {
    const venue = record.attributes.venue;
    return venue == null ? null : 'attributes' in venue ? venue.attributes.name : venue.slug;
  });
  // A sparse fieldset: an array of the key's readable fields, serialized comma-separated.
  const sparse = await client.GET('/events', { params: { query: { 'fields[events]': ['title'], sort: ['title'], limit: 2 } } });
  const none = await client.GET('/events', { params: { query: { 'fields[events]': [], limit: 1 } } });

  // A date filter, and a bare date for a datetime filter.
  const festivals = await client.GET('/festivals', { params: { query: { filter: { startsOn: { lt: '2027-07-01' } } } } });
  const before = await client.GET('/events', { params: { query: { filter: { startsAt: { lt: '2027-06-01' } }, sort: ['startsAt', 'title'] } } });

  const body = { data: { type: 'events' as const, attributes: { title: 'Typed Night', startsAt: '2027-08-01T20:00:00Z', category: 'concert' as const } } };
  const created = await client.POST('/events', { params: { header: { 'Idempotency-Key': 'typed-night-1' } }, body });
  const replayed = await client.POST('/events', { params: { header: { 'Idempotency-Key': '"typed-night-1"' } }, body });

  // Components and dynamic zones, with the fields their components require (issue 33 item 8).
  const page = await client.POST('/cms/site-a/pages', {
    body: {
      data: {
        type: 'pages',
        attributes: {
          title: 'Typed Page',
          seo: { metaTitle: 'Typed' },
          sections: [
            { type: 'sections.hero', attributes: { heading: 'Welcome', cta: { label: 'Tickets', url: 'https://example.com/tickets' } } },
            { type: 'sections.hero', attributes: { heading: 'Again' } },
          ],
        },
      },
    },
  });

  return {
    page: { status: page.response.status, sections: page.data?.data.attributes.sections?.length ?? null, error: page.error ?? null },
    titles: concerts.data.data.map((record) => record.attributes.title),
    sparse: sparse.data?.data.map((record) => record.attributes) ?? null,
    none: none.data?.data.map((record) => record.attributes) ?? null,
    venues,
    nextCursor: concerts.data.meta.page.nextCursor,
    festivals: festivals.data?.data.map((record) => record.attributes.name) ?? null,
    before: before.data?.data.map((record) => record.attributes.title) ?? null,
    created: { status: created.response.status, id: created.data?.data.id ?? null, location: created.response.headers.get('location') },
    replayed: { status: replayed.response.status, id: replayed.data?.data.id ?? null, header: replayed.response.headers.get('idempotent-replayed') },
  };
};
`;

/** Calls a key's document does not allow: each line must be a type error. */
const WRONG_CALLS = [
  `client.GET('/events', { params: { query: { filter: { startsAt: { gte: 20270601 } } } } });`,
  `client.GET('/festivals', { params: { query: { filter: { startsOn: { lt: new Date() } } } } });`,
  `client.GET('/events', { params: { query: { filter: { startsAt: 1 } } } });`,
  `client.GET('/events', { params: { query: { sort: ['body'] } } });`,
  `client.GET('/events', { params: { query: { filter: { category: 'opera' } } } });`,
  `client.GET('/events', { params: { query: { 'fields[events]': ['nosuch'] } } });`,
  // A component entry or value without the fields its component requires (a 422 at the server).
  `client.POST('/cms/site-a/pages', { body: { data: { type: 'pages', attributes: { title: 'x', sections: [{ type: 'sections.hero' }] } } } });`,
  `client.POST('/cms/site-a/pages', { body: { data: { type: 'pages', attributes: { title: 'x', sections: [{ type: 'sections.hero', attributes: {} }] } } } });`,
  `client.PATCH('/cms/site-a/pages/{record}', { params: { path: { record: 'x' } }, body: { data: { type: 'pages', attributes: { sections: [{ type: 'sections.hero', attributes: { subheading: 'y' } }] } } } });`,
  `client.PATCH('/events/{record}', { params: { path: { record: 'x' } }, body: { data: { type: 'events', attributes: { seo: { noIndex: true } } } } });`,
  `client.POST('/cms/site-a/pages', { body: { data: { type: 'pages', attributes: { title: 'x', sections: [{ type: 'sections.hero', attributes: { heading: 'h', cta: {} } }] } } } });`,
];

test('openapi-typescript types from a live key document, and openapi-fetch set up as documented: real calls, wrong calls do not compile', async () => {
  const response = await fetch(`${baseUrl}/openapi.json`, { headers: { Authorization: key.auth } });
  expect(response.status).toBe(200);
  fs.writeFileSync(path.join(ARTIFACTS, 'openapi.json'), await response.text());
  await run(
    process.execPath,
    [bin('openapi-typescript/bin/cli.js'), path.join(ARTIFACTS, 'openapi.json'), '--output', path.join(ARTIFACTS, 'api.d.ts')],
    { cwd: ARTIFACTS, env: TOOL_ENV },
  );
  fs.writeFileSync(path.join(ARTIFACTS, 'client-setup.ts'), documentedSetup());
  fs.writeFileSync(path.join(ARTIFACTS, 'calls.ts'), CALLS);
  const wrongLines = [
    "import { createApiClient } from './client-setup';",
    "const client = createApiClient('http://localhost', 'key');",
    ...WRONG_CALLS,
  ];
  fs.writeFileSync(path.join(ARTIFACTS, 'wrong.ts'), `${wrongLines.join('\n')}\n`);

  await run(
    process.execPath,
    [bin('typescript/bin/tsc'), ...TSC_OPTIONS, '--outDir', path.join(ARTIFACTS, 'out'), path.join(ARTIFACTS, 'calls.ts')],
    {
      cwd: APP_ROOT,
      env: TOOL_ENV,
    },
  ).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`tsc failed on the client:\n${error.stdout}\n${error.stderr}`);
  });

  // Each wrong call is an error on its own line, and nothing else is.
  const failure = await run(process.execPath, [bin('typescript/bin/tsc'), ...TSC_OPTIONS, '--noEmit', path.join(ARTIFACTS, 'wrong.ts')], {
    cwd: APP_ROOT,
    env: TOOL_ENV,
  }).then(
    () => null,
    (error: { stdout?: string }) => error.stdout ?? '',
  );
  expect(failure).not.toBeNull();
  const erroneous = [...failure!.matchAll(/wrong\.ts\((\d+),\d+\): error TS\d+/g)].map((match) => Number(match[1]));
  expect([...new Set(erroneous)]).toEqual(WRONG_CALLS.map((_, index) => index + 3));
  expect(failure).not.toMatch(/(calls|client-setup)\.ts\(/);

  const client = require(path.join(ARTIFACTS, 'out', 'calls.js')) as {
    run: (baseUrl: string, key: string) => Promise<Record<string, any>>;
  };
  const result = await client.run(baseUrl, key.token);
  expect(result).toMatchObject({
    page: { status: 201, sections: 2, error: null },
    titles: ['Rock Night', 'Jazz Night'],
    sparse: [{ title: 'Early Concert' }, { title: 'Jazz Night' }],
    none: [{}],
    venues: [null, 'Main Hall'],
    nextCursor: null,
    festivals: ['Summer Fest'],
    before: ['Early Concert'],
    created: { status: 201, location: expect.stringMatching(/\/api\/v2\/events\/typed-night$/) },
    replayed: { status: 201, header: 'true' },
  });
  expect(result.replayed.id).toBe(result.created.id);

  // The same rule in the schema itself: a page's create body with a hero entry, validated as a server would.
  const document = JSON.parse(fs.readFileSync(path.join(ARTIFACTS, 'openapi.json'), 'utf8'));
  const create = document.paths['/cms/site-a/pages'].post.requestBody.content['application/vnd.api+json'].schema;
  const validate = new Ajv2020({ strict: false }).compile({ components: document.components, allOf: [create] });
  const pageWith = (sections: unknown[], seo?: unknown) => ({
    data: { type: 'pages', attributes: { title: 'x', sections, ...(seo === undefined ? {} : { seo }) } },
  });
  expect(validate(pageWith([{ type: 'sections.hero', attributes: { heading: 'h' } }], { metaTitle: 't' }))).toBe(true);
  for (const body of [
    pageWith([{ type: 'sections.hero' }]),
    pageWith([{ type: 'sections.hero', attributes: { subheading: 's' } }]),
    pageWith([{ type: 'sections.hero', attributes: { heading: 'h', cta: { label: 'l' } } }]),
    pageWith([], { noIndex: true }),
  ]) {
    expect([body, validate(body)]).toEqual([body, false]);
  }
  const stored = await app.strapi.db
    .query('api::event.event')
    .findMany({ where: { title: 'Typed Night', publishedAt: { $notNull: true } } });
  expect(stored).toHaveLength(1);
});

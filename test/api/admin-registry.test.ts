/**
 * What the grant editor and the websites form offer (/public-api/registry, /public-api/content-types),
 * and the live preview (/public-api/preview): the API's own answers for unsaved grants.
 */
import { bootApp, type TestApp } from '../helpers/app';
import { superAdmin, type AdminSession } from '../helpers/admin';
import { COMMANDS } from '../../src/commands';

let app: TestApp;
let admin: AdminSession;

beforeAll(async () => {
  app = await bootApp();
  admin = await superAdmin(app);
});
afterAll(async () => {
  await app?.close();
});

const get = (path: string) => app.http().get(`/public-api${path}`).set('Authorization', admin.auth);
const post = (path: string, body: object) => app.http().post(`/public-api${path}`).set('Authorization', admin.auth).send(body);

test('the registry lists the native resources with their fields and types, and the commands', async () => {
  const res = await get('/registry');
  expect(res.status).toBe(200);
  expect(res.body.data.apiBaseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
  expect(res.body.data.commands).toEqual(COMMANDS.map((command) => ({ name: command.name, description: command.description })));
  expect(res.body.data.commands.map((command: { name: string }) => command.name)).toEqual(['job-application', 'newsletter-signup']);
  const resources = res.body.data.resources as { id: string; fields: { key: string; type: string }[] }[];
  expect(resources.map((resource) => resource.id)).toEqual([
    'native:buildings',
    'native:events',
    'native:festivals',
    'native:jobs',
    'native:products',
  ]);
  const events = resources.find((resource) => resource.id === 'native:events')!;
  expect(events).toMatchObject({
    name: 'Events',
    slug: 'events',
    mode: 'collection',
    sourceType: 'native',
    website: null,
    path: '/events',
    contentType: 'api::event.event',
    actions: ['read', 'create', 'update', 'delete'],
  });
  expect(Object.fromEntries(events.fields.map((field) => [field.key, field.type]))).toEqual({
    title: 'string',
    slug: 'string',
    sort: 'number',
    summary: 'text',
    startsAt: 'datetime',
    endsAt: 'datetime',
    category: 'select',
    tags: 'tags',
    price: 'number',
    soldOut: 'boolean',
    capacity: 'number',
    venue: 'relation',
    festival: 'relation',
    cover: 'image',
    body: 'richtext',
    seo: 'component',
  });
  expect(events.fields.find((field) => field.key === 'title')).toEqual({
    key: 'title',
    label: 'Title',
    type: 'string',
    required: true,
    localized: true,
  });
});

test('a field the server fills in on create (a default, a slug made from another field) says so; a required one without says nothing', async () => {
  type Summary = { id: string; fields: { key: string; required: boolean; filledIn?: true }[] };
  const resources = (await get('/registry')).body.data.resources as Summary[];
  const fields = (id: string) => resources.find((resource) => resource.id === id)!.fields;
  // Buildings' slug is a uid made from the name: a create may leave it out.
  expect(fields('native:buildings').find((field) => field.key === 'slug')).toMatchObject({ filledIn: true });
  expect(fields('native:buildings').find((field) => field.key === 'name')).toEqual(
    expect.not.objectContaining({ filledIn: expect.anything() }),
  );
  // Events: the required fields a create must send, none filled in.
  expect(
    fields('native:events')
      .filter((field) => field.required && !field.filledIn)
      .map((field) => field.key),
  ).toEqual(['title', 'startsAt', 'category']);
});

test('content types a website may publish: the application’s own, with kind and website scoping', async () => {
  const res = await get('/content-types');
  expect(res.status).toBe(200);
  const byUid = Object.fromEntries((res.body.data as { uid: string; personalData: boolean }[]).map((type) => [type.uid, type]));
  expect(Object.keys(byUid).every((uid) => uid.startsWith('api::'))).toBe(true);
  expect(byUid['api::page.page']).toEqual({
    uid: 'api::page.page',
    displayName: 'Page',
    singularName: 'page',
    pluralName: 'pages',
    kind: 'collectionType',
    websiteScoped: true,
    personalData: false,
  });
  expect(byUid['api::homepage.homepage']).toEqual({
    uid: 'api::homepage.homepage',
    displayName: 'Homepage',
    singularName: 'homepage',
    pluralName: 'homepages',
    kind: 'singleType',
    websiteScoped: false,
    personalData: false,
  });
  // The two content types that hold people's data say so (their schemas' pluginOptions).
  expect(
    Object.values(byUid)
      .filter((type) => type.personalData)
      .map((type) => type.uid)
      .sort(),
  ).toEqual(['api::job-application.job-application', 'api::newsletter-subscription.newsletter-subscription']);
});

test('relations name the resource they lead to (or null: none is served), and labels are the content manager’s', async () => {
  type Summary = { id: string; personalData: boolean; fields: { key: string; label: string; target?: string | null }[] };
  const resources = async () => (await get('/registry')).body.data.resources as Summary[];
  const field = (list: Summary[], resource: string, key: string) =>
    list.find((candidate) => candidate.id === resource)!.fields.find((candidate) => candidate.key === key)!;
  let list = await resources();
  expect(field(list, 'native:events', 'venue').target).toBe('native:buildings');
  expect(field(list, 'native:products', 'event').target).toBe('native:events');
  expect(field(list, 'native:jobs', 'applications').target).toBeNull();
  expect('target' in field(list, 'native:events', 'title')).toBe(false);
  expect(list.every((resource) => resource.personalData === false)).toBe(true);
  expect(field(list, 'native:events', 'startsAt').label).toBe('Starts at');

  // An admin renames the field in the content manager (Configure the view): the registry follows at once.
  const contentTypes = app.strapi.plugin('content-manager').service('content-types');
  const model = contentTypes.findContentType('api::event.event');
  const { uid: _uid, ...configuration } = await contentTypes.findConfiguration(model);
  configuration.metadatas.startsAt.edit.label = 'Doors open';
  await contentTypes.updateConfiguration(model, configuration);
  list = await resources();
  expect(field(list, 'native:events', 'startsAt').label).toBe('Doors open');
  expect(field(list, 'native:events', 'endsAt').label).toBe('Ends at');
});

test('the preview answers as the API would for unsaved grants', async () => {
  const res = await post('/preview', {
    grants: { resources: { 'native:jobs': { actions: ['read'], read: ['title', 'department'], write: [] } }, commands: [], origins: [] },
  });
  expect(res.status).toBe(200);
  const { apiBaseUrl, issues, index, openapi } = res.body.data;
  expect(issues).toEqual([]);
  expect(index).toEqual({
    status: 200,
    body: {
      jsonapi: { version: '1.1' },
      links: { self: `${apiBaseUrl}/` },
      data: [
        {
          type: 'resources',
          id: 'native:jobs',
          attributes: { name: 'Jobs', slug: 'jobs', mode: 'collection', sourceType: 'native' },
          links: { self: `${apiBaseUrl}/jobs` },
        },
      ],
    },
  });
  // The OpenAPI document is null until the API serves /schema, then the API's own answer.
  if (openapi !== null) {
    expect(openapi.status).toBe(200);
    expect(openapi.body).toMatchObject({ openapi: expect.stringMatching(/^3\.1/) });
  }
});

test("the preview follows the form's preview flag: only a preview key's OpenAPI document names status", async () => {
  const grants = { resources: { 'native:jobs': { actions: ['read'], read: ['title'], write: [] } }, commands: [], origins: [] };
  const documentOf = async (body: Record<string, unknown>) => {
    const res = await post('/preview', { grants, ...body });
    expect(res.status).toBe(200);
    expect(res.body.data.openapi.status).toBe(200);
    return JSON.stringify(res.body.data.openapi.body);
  };
  expect(await documentOf({ preview: true })).toContain('#/components/parameters/Status');
  expect(await documentOf({ preview: false })).not.toContain('#/components/parameters/Status');
  expect(await documentOf({})).not.toContain('#/components/parameters/Status');
  const saved = await post('/keys', { name: 'Saved preview key', preview: true });
  expect(await documentOf({ keyId: saved.body.data.id })).toContain('#/components/parameters/Status');
  expect(await documentOf({ keyId: saved.body.data.id, preview: false })).not.toContain('#/components/parameters/Status');
});

test('the preview of a saved key stands for that key; invalid grants come back as issues, with the paths a save reports', async () => {
  const key = await post('/keys', { name: 'Previewed' });
  const preview = await post('/preview', { keyId: key.body.data.id, grants: { resources: {}, commands: [], origins: [] } });
  expect(preview.status).toBe(200);
  expect(preview.body.data.index.body.data).toEqual([]);

  const invalid = await post('/preview', {
    grants: { resources: { 'native:jobs': { actions: ['read'], read: ['salary'], write: [] } }, commands: [], origins: [] },
  });
  expect(invalid.status).toBe(200);
  expect(invalid.body.data).toEqual({
    apiBaseUrl: expect.any(String),
    issues: [{ path: ['resources', 'native:jobs', 'read'], message: "Unknown field of native:jobs: 'salary'." }],
    index: null,
    openapi: null,
  });
  const saved = await post('/keys', {
    name: 'Same issues',
    grants: { resources: { 'native:jobs': { actions: ['read'], read: ['salary'], write: [] } } },
  });
  expect(saved.status).toBe(400);
  expect(saved.body.error.details.errors.map(({ path, message }: { path: string[]; message: string }) => ({ path, message }))).toEqual(
    invalid.body.data.issues,
  );

  const shape = await post('/preview', { grants: {}, keyId: 'abc', extra: true });
  expect(shape.status).toBe(400);
  expect(shape.body.error.details.errors.map((error: { path: string[] }) => error.path)).toEqual([['keyId'], []]);
});

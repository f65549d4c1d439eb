/**
 * /public-api/websites: websites and their publications, validated before anything is written, and
 * visible at once in the registry the grant editor reads. Keys follow a website's changes.
 */
import { bootApp, type TestApp } from '../helpers/app';
import { superAdmin, type AdminSession } from '../helpers/admin';

let app: TestApp;
let admin: AdminSession;

beforeAll(async () => {
  app = await bootApp();
  admin = await superAdmin(app);
});
afterAll(async () => {
  await app?.close();
});

const api = () => ({
  get: (path: string) => app.http().get(`/public-api${path}`).set('Authorization', admin.auth),
  post: (path: string, body?: object) =>
    app
      .http()
      .post(`/public-api${path}`)
      .set('Authorization', admin.auth)
      .send(body ?? {}),
  put: (path: string, body: object) => app.http().put(`/public-api${path}`).set('Authorization', admin.auth).send(body),
  del: (path: string) => app.http().delete(`/public-api${path}`).set('Authorization', admin.auth),
});

const PAGES = { collection: 'pages', contentType: 'api::page.page', mode: 'collection' };
const SETTINGS = { collection: 'settings', contentType: 'api::setting.setting', mode: 'singleton' };

const issues = (res: { body: { error: { details: { errors: { path: string[]; message: string }[] } } } }) =>
  res.body.error.details.errors.map(({ path, message }) => ({ path, message }));

const resourceIds = async () => ((await api().get('/registry')).body.data.resources as { id: string }[]).map((resource) => resource.id);

test('create: the slug comes from the name; publications appear in the registry at once', async () => {
  const res = await api().post('/websites', { name: 'Café Olé Site', publications: [PAGES, { ...SETTINGS, name: 'Site settings' }] });
  expect(res.status).toBe(201);
  expect(res.body).toEqual({
    data: {
      id: expect.any(Number),
      documentId: expect.any(String),
      name: 'Café Olé Site',
      slug: 'cafe-ole-site',
      publications: [PAGES, { ...SETTINGS, name: 'Site settings' }],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    },
  });
  const registry = await api().get('/registry');
  const resources = registry.body.data.resources as { id: string }[];
  expect(resources.find((resource) => resource.id === 'cms:cafe-ole-site/settings')).toEqual({
    id: 'cms:cafe-ole-site/settings',
    name: 'Site settings',
    slug: 'settings',
    mode: 'singleton',
    sourceType: 'cms',
    website: { slug: 'cafe-ole-site', name: 'Café Olé Site' },
    path: '/cms/cafe-ole-site/settings',
    contentType: 'api::setting.setting',
    actions: ['read', 'update'],
    fields: [
      { key: 'siteName', label: 'Site name', type: 'string', required: true, localized: false },
      { key: 'tagline', label: 'Tagline', type: 'string', required: false, localized: false },
      { key: 'contactEmail', label: 'Contact email', type: 'string', required: false, localized: false },
      { key: 'primaryColor', label: 'Primary color', type: 'string', required: false, localized: false },
      { key: 'logo', label: 'Logo', type: 'image', required: false, localized: false },
    ],
    personalData: false,
  });
  expect((await api().get(`/websites/${res.body.data.id}`)).body).toEqual(res.body);
  expect((await api().get('/websites')).body.data).toContainEqual(res.body.data);
});

test('publications are validated: unique collection slug, content type exists, single types as singletons', async () => {
  const res = await api().post('/websites', {
    name: 'Broken',
    slug: 'Not A Slug',
    publications: [
      PAGES,
      { ...PAGES, contentType: 'api::event.event' },
      { collection: 'ghosts', contentType: 'api::ghost.ghost', mode: 'collection' },
      { collection: 'home', contentType: 'api::homepage.homepage', mode: 'collection' },
      { collection: 'Bad Slug', contentType: 'api::page.page', mode: 'sometimes' },
      { collection: 'users', contentType: 'admin::user', mode: 'collection' },
    ],
  });
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ status: 400, name: 'ValidationError' });
  expect(issues(res)).toEqual([
    { path: ['slug'], message: expect.stringMatching(/^A website slug is 1 to 64 lowercase letters/) },
    { path: ['publications', '4', 'collection'], message: expect.stringMatching(/^Collection slugs are lowercase/) },
    { path: ['publications', '4', 'mode'], message: expect.any(String) },
  ]);

  const semantic = await api().post('/websites', {
    name: 'Broken',
    publications: [
      PAGES,
      { ...PAGES, contentType: 'api::event.event' },
      { collection: 'ghosts', contentType: 'api::ghost.ghost', mode: 'collection' },
      { collection: 'home', contentType: 'api::homepage.homepage', mode: 'collection' },
      { collection: 'users', contentType: 'admin::user', mode: 'collection' },
    ],
  });
  expect(semantic.status).toBe(400);
  expect(issues(semantic)).toEqual([
    { path: ['publications', '1', 'collection'], message: "The collection slug 'pages' is already used by publication 1 of this website." },
    { path: ['publications', '2', 'contentType'], message: "Content type 'api::ghost.ghost' does not exist." },
    { path: ['publications', '3', 'mode'], message: 'api::homepage.homepage is a single type; publish it as a singleton.' },
    { path: ['publications', '4', 'contentType'], message: "Content type 'admin::user' does not exist." },
  ]);
  expect((await api().get('/websites')).body.data.map((website: { name: string }) => website.name)).not.toContain('Broken');
});

test('names and slugs: required, unique, and only known members', async () => {
  const first = await api().post('/websites', { name: 'Twin', slug: 'twin', publications: [] });
  expect(first.status).toBe(201);
  const res = await api().post('/websites', { name: '', slug: 'twin', publications: [], theme: 'dark' });
  expect(res.status).toBe(400);
  expect(issues(res)).toEqual([
    { path: ['theme'], message: "'theme' is not a website setting." },
    { path: ['name'], message: 'A website needs a name of 1 to 120 characters.' },
    { path: ['slug'], message: "The slug 'twin' is already used by another website." },
  ]);
  // An empty name and no slug: the name's issue alone (no slug is made from a refused name).
  const unnamed = await api().post('/websites', { name: '  ', publications: [] });
  expect(issues(unnamed)).toEqual([{ path: ['name'], message: 'A website needs a name of 1 to 120 characters.' }]);
  const unsluggable = await api().post('/websites', { name: '!!!', publications: [] });
  expect(issues(unsluggable)).toEqual([{ path: ['slug'], message: expect.stringMatching(/^No slug can be made from this name\./) }]);
  expect((await api().put(`/websites/${first.body.data.id}`, { slug: 'twin' })).status).toBe(200);
  expect((await api().put('/websites/999999', { name: 'x' })).status).toBe(404);
  expect((await api().get('/websites/999999')).status).toBe(404);
});

test('two websites publish the same collection slug, each under its own URL', async () => {
  await api().post('/websites', { name: 'North', publications: [PAGES] });
  await api().post('/websites', { name: 'South', publications: [PAGES] });
  expect(await resourceIds()).toEqual(expect.arrayContaining(['cms:north/pages', 'cms:south/pages']));
});

test('keys follow a website: renamed with its slug, trimmed when a publication goes, cleared when it is deleted', async () => {
  const website = await api().post('/websites', { name: 'Moving', publications: [PAGES, SETTINGS] });
  const { id } = website.body.data;
  const key = await api().post('/keys', {
    name: 'Follows',
    grants: {
      resources: {
        'native:events': { actions: ['read'], read: ['title'], write: [] },
        'cms:moving/pages': { actions: ['read', 'create'], read: ['title', 'summary'], write: ['title'] },
        'cms:moving/settings': { actions: ['read'], read: ['siteName'], write: [] },
      },
      commands: [],
      origins: [],
    },
  });
  expect(key.status).toBe(201);
  const plaintext: string = key.body.meta.plaintext;

  const renamed = await api().put(`/websites/${id}`, { slug: 'moved', publications: [PAGES] });
  expect(renamed.status).toBe(200);
  expect(renamed.body.data).toMatchObject({ slug: 'moved', publications: [PAGES] });
  expect((await api().get(`/keys/${key.body.data.id}`)).body.data.grants.resources).toEqual({
    'native:events': { actions: ['read'], read: ['title'], write: [] },
    'cms:moved/pages': { actions: ['read', 'create'], read: ['title', 'summary'], write: ['title'] },
  });
  const index = await app.http().get('/api/v2/').set('Authorization', `Bearer ${plaintext}`);
  expect(index.body.data.map((entry: { id: string }) => entry.id)).toEqual(['native:events', 'cms:moved/pages']);

  const removed = await api().del(`/websites/${id}`);
  expect(removed.status).toBe(200);
  expect(removed.body.data).toMatchObject({ id, slug: 'moved' });
  expect((await api().get(`/keys/${key.body.data.id}`)).body.data.grants.resources).toEqual({
    'native:events': { actions: ['read'], read: ['title'], write: [] },
  });
  expect(await resourceIds()).not.toContain('cms:moved/pages');

  // A website created later under the old name does not inherit the grants.
  await api().post('/websites', { name: 'Moved', publications: [PAGES] });
  const later = await app.http().get('/api/v2/').set('Authorization', `Bearer ${plaintext}`);
  expect(later.body.data.map((entry: { id: string }) => entry.id)).toEqual(['native:events']);
});

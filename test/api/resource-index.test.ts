/**
 * GET /api/v2/: the resource index of the key, exactly the specification's shape.
 */
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';

let app: TestApp;

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  const websites = app.strapi.documents('plugin::public-api.website');
  await websites.create({
    data: {
      name: 'City guide',
      slug: 'city-guide',
      publications: [
        { collection: 'pages', contentType: 'api::page.page', mode: 'collection' },
        { collection: 'settings', contentType: 'api::setting.setting', mode: 'singleton' },
      ],
    },
  });
  await websites.create({
    data: {
      name: 'Culture hub',
      slug: 'culture-hub',
      publications: [
        { collection: 'pages', contentType: 'api::page.page', mode: 'collection' },
        { collection: 'home', contentType: 'api::homepage.homepage', mode: 'singleton', name: 'Home page' },
      ],
    },
  });
});
afterAll(async () => {
  await app?.close();
});

const indexFor = async (grants: unknown) => {
  const key = await createKey(app.strapi, grants);
  const res = await app.http().get('/api/v2/').set('Authorization', key.auth);
  expect(res.status).toBe(200);
  expectValidJsonApi(res.body);
  return res;
};

test('the whole document for a key with native and CMS grants', async () => {
  const res = await indexFor({
    resources: {
      'native:jobs': { actions: ['read'], read: ['title'] },
      'native:events': { actions: ['read', 'create'], read: '*', write: ['title'] },
      'cms:city-guide/pages': { actions: ['read'], read: ['title'] },
      'cms:culture-hub/home': { actions: ['read'], read: ['headline'] },
    },
  });
  const base = res.body.links.self.replace(/\/$/, '');
  expect(res.body).toEqual({
    jsonapi: { version: '1.1' },
    links: { self: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2\/$/) },
    data: [
      {
        type: 'resources',
        id: 'native:events',
        attributes: { name: 'Events', slug: 'events', mode: 'collection', sourceType: 'native' },
        links: { self: `${base}/events` },
      },
      {
        type: 'resources',
        id: 'native:jobs',
        attributes: { name: 'Jobs', slug: 'jobs', mode: 'collection', sourceType: 'native' },
        links: { self: `${base}/jobs` },
      },
      {
        type: 'resources',
        id: 'cms:city-guide/pages',
        attributes: { name: 'Pages', slug: 'pages', mode: 'collection', sourceType: 'cms', website: 'city-guide' },
        links: { self: `${base}/cms/city-guide/pages` },
      },
      {
        type: 'resources',
        id: 'cms:culture-hub/home',
        attributes: { name: 'Home page', slug: 'home', mode: 'singleton', sourceType: 'cms', website: 'culture-hub' },
        links: { self: `${base}/cms/culture-hub/home` },
      },
    ],
  });
});

test('two keys of one workspace see different indexes', async () => {
  const a = await indexFor({ resources: { 'native:products': { actions: ['read'], read: ['name'] } } });
  const b = await indexFor({ resources: { 'cms:culture-hub/pages': { actions: ['read'], read: ['title'] } } });
  expect(a.body.data.map((r: { id: string }) => r.id)).toEqual(['native:products']);
  expect(b.body.data.map((r: { id: string }) => r.id)).toEqual(['cms:culture-hub/pages']);
});

test('a key without grants sees an empty index', async () => {
  const res = await indexFor({ resources: {} });
  expect(res.body.data).toEqual([]);
});

test('a grant without actions does not list the resource', async () => {
  const res = await indexFor({ resources: { 'native:buildings': { actions: [], read: ['name'] } } });
  expect(res.body.data).toEqual([]);
});

test('a publication removed from a website disappears from the index on the next request', async () => {
  const key = await createKey(app.strapi, { resources: { 'cms:city-guide/settings': { actions: ['read'], read: ['siteName'] } } });
  const before = await app.http().get('/api/v2/').set('Authorization', key.auth);
  expect(before.body.data.map((r: { id: string }) => r.id)).toEqual(['cms:city-guide/settings']);
  const site = await app.strapi.db.query('plugin::public-api.website').findOne({ where: { slug: 'city-guide' } });
  await app.strapi.db.query('plugin::public-api.website').update({
    where: { id: site.id },
    data: { publications: [{ collection: 'pages', contentType: 'api::page.page', mode: 'collection' }] },
  });
  const after = await app.http().get('/api/v2/').set('Authorization', key.auth);
  expect(after.status).toBe(200);
  expect(after.body.data).toEqual([]);
});

test('the index takes no query parameters', async () => {
  const key = await createKey(app.strapi, { resources: {} });
  const res = await app.http().get('/api/v2/?page=2').set('Authorization', key.auth);
  expect(res.status).toBe(400);
  expectValidJsonApi(res.body);
  expect(res.body.errors[0]).toMatchObject({ code: 'bad_request', source: { parameter: 'page' } });
});

test('/api/v2 without the trailing slash is the index too', async () => {
  const key = await createKey(app.strapi, { resources: {} });
  const res = await app.http().get('/api/v2').set('Authorization', key.auth);
  expect(res.status).toBe(200);
});

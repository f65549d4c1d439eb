/**
 * Reading through /api/v2: documents, field types, grants and visibility (contract sections 1-5).
 */
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { BLOCKS, draft, ensureLocale, localize, publish, uploadImage, website } from '../helpers/fixtures';

let app: TestApp;
const ids: Record<string, string> = {};

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  const s = app.strapi;
  await ensureLocale(s, 'de', 'German');
  const image = await uploadImage(s, 'hall.png', 64, 48);
  const hall = await publish(s, 'api::building.building', {
    name: 'Main Hall',
    slug: 'main-hall',
    sort: 1,
    floors: 3,
    accessible: true,
    images: [image.id],
    description: BLOCKS,
  });
  ids.hall = hall.documentId;
  const fest = await publish(s, 'api::festival.festival', {
    name: 'Summer Fest',
    slug: 'summer-fest',
    startsOn: '2027-06-01',
    endsOn: '2027-06-03',
  });
  ids.fest = fest.documentId;
  const jazz = await publish(s, 'api::event.event', {
    title: 'Jazz Night',
    slug: 'jazz-night',
    sort: 2,
    startsAt: '2027-06-01T19:30:00.000Z',
    endsAt: '2027-06-01T22:00:00.000Z',
    category: 'concert',
    tags: ['jazz', 'live'],
    price: 25.5,
    soldOut: false,
    capacity: 300,
    venue: hall.documentId,
    festival: fest.documentId,
    cover: image.id,
    body: BLOCKS,
    summary: 'An evening of jazz',
  });
  ids.jazz = jazz.documentId;
  await localize(s, 'api::event.event', jazz.documentId, 'de', {
    title: 'Jazznacht',
    slug: 'jazznacht',
    summary: 'Ein Abend Jazz',
    startsAt: '2027-06-01T19:30:00.000Z',
    category: 'concert',
  });
  const talk = await publish(s, 'api::event.event', {
    title: 'Talk',
    slug: 'talk',
    sort: 1,
    startsAt: '2027-07-01T10:00:00.000Z',
    category: 'talk',
  });
  ids.talk = talk.documentId;
  const hidden = await draft(s, 'api::event.event', {
    title: 'Secret draft',
    slug: 'secret-draft',
    sort: 0,
    startsAt: '2027-08-01T10:00:00.000Z',
    category: 'talk',
  });
  ids.hidden = hidden.documentId;
  await publish(s, 'api::job.job', {
    title: 'Engineer',
    slug: 'engineer',
    department: 'engineering',
    employmentType: 'full-time',
    description: '# Role\n\nBuild **things**.',
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
  const home = await publish(s, 'api::homepage.homepage', { headline: 'Welcome', featuredEvents: [jazz.documentId] });
  await localize(s, 'api::homepage.homepage', home.documentId, 'de', { headline: 'Willkommen' });
});
afterAll(async () => {
  await app?.close();
});

const get = async (key: { auth: string }, path: string, status = 200) => {
  const res = await app.http().get(path).set('Authorization', key.auth);
  if (res.status !== status) throw new Error(`${path}: expected ${status}, got ${res.status}\n${res.text}`);
  expectValidJsonApi(res.body);
  return res.body;
};

test('a collection page: document shape, field types, only granted fields', async () => {
  const key = await createKey(app.strapi, {
    resources: {
      'native:events': { actions: ['read'], read: ['title', 'startsAt', 'category', 'tags', 'price', 'soldOut', 'venue', 'cover', 'body'] },
      'native:buildings': { actions: ['read'], read: ['name'] },
    },
  });
  const body = await get(key, '/api/v2/events');
  expect(body.jsonapi).toEqual({ version: '1.1' });
  expect(body.links.self).toMatch(/\/api\/v2\/events$/);
  expect(body.links.next).toBeUndefined();
  expect(body.meta.page).toEqual({ nextCursor: null });
  expect(body.meta.resource).toEqual({ name: 'Events', slug: 'events', mode: 'collection' });
  expect(body.meta.fields.map((f: { key: string }) => f.key)).toEqual([
    'title',
    'startsAt',
    'category',
    'tags',
    'price',
    'soldOut',
    'venue',
    'cover',
    'body',
  ]);
  expect(body.data.map((r: { id: string }) => r.id)).toEqual([ids.talk, ids.jazz]);
  const jazz = body.data[1];
  expect(jazz).toEqual({
    type: 'events',
    id: ids.jazz,
    attributes: {
      title: 'Jazz Night',
      startsAt: '2027-06-01T19:30:00.000Z',
      category: 'concert',
      tags: ['jazz', 'live'],
      price: 25.5,
      soldOut: false,
      venue: { id: ids.hall, slug: 'main-hall', collection: 'buildings' },
      cover: {
        id: expect.any(String),
        url: expect.stringMatching(/\/api\/v2\/assets\/[A-Za-z0-9_-]{32}\/hall\.png$/),
        fileName: 'hall.png',
        mimeType: 'image/png',
        size: expect.any(Number),
        width: 64,
        height: 48,
        alt: 'hall.png alt',
        caption: 'hall.png caption',
      },
      body: {
        type: 'doc',
        content: [
          { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'About' }] },
          {
            type: 'paragraph',
            content: [
              { type: 'text', text: 'Hello ' },
              { type: 'text', text: 'world', marks: [{ type: 'bold' }] },
              { type: 'text', text: 'link', marks: [{ type: 'link', attrs: { href: 'https://example.com' } }] },
            ],
          },
        ],
      },
    },
    meta: { slug: 'jazz-night', sort: 2, createdAt: expect.any(Number), updatedAt: expect.any(Number), publishedAt: expect.any(Number) },
  });
  expect(JSON.stringify(body)).not.toMatch(/summary|capacity|festival|Secret draft/);
});

test('field metadata says what the key may do with each field', async () => {
  const key = await createKey(app.strapi, {
    resources: {
      'native:events': { actions: ['read', 'update'], read: ['title', 'category', 'venue', 'body'], write: ['title', 'price'] },
      'native:buildings': { actions: ['create'], read: [], write: [] },
    },
  });
  const body = await get(key, '/api/v2/events');
  expect(body.meta.fields).toEqual([
    {
      key: 'title',
      label: 'Title',
      type: 'string',
      required: true,
      readable: true,
      writable: true,
      inlineEditable: true,
      sortable: true,
      expandable: false,
      filterable: true,
    },
    {
      key: 'category',
      label: 'Category',
      type: 'select',
      required: true,
      readable: true,
      writable: false,
      inlineEditable: false,
      sortable: true,
      expandable: false,
      filterable: true,
      options: expect.arrayContaining([{ value: 'concert', label: 'Concert' }]),
    },
    {
      key: 'price',
      label: 'Price',
      type: 'number',
      required: false,
      readable: false,
      writable: true,
      inlineEditable: true,
      sortable: false,
      expandable: false,
      filterable: false,
    },
    // The key may not read buildings, so the venue is shown as a reference but cannot be expanded.
    {
      key: 'venue',
      label: 'Venue',
      type: 'relation',
      required: false,
      readable: true,
      writable: false,
      inlineEditable: false,
      sortable: false,
      expandable: false,
      filterable: true,
    },
    {
      key: 'body',
      label: 'Body',
      type: 'richtext',
      required: false,
      readable: true,
      writable: false,
      inlineEditable: false,
      sortable: false,
      expandable: false,
      filterable: false,
    },
  ]);
  expect(body.data[0].attributes).not.toHaveProperty('price');
});

test('a relation whose target is not exposed to the key is left out everywhere', async () => {
  const key = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: ['title', 'venue', 'festival'] } } });
  const body = await get(key, '/api/v2/events');
  expect(body.meta.fields.map((f: { key: string }) => f.key)).toEqual(['title']);
  expect(Object.keys(body.data[0].attributes)).toEqual(['title']);
});

test('single records by slug and by id; drafts are never served', async () => {
  const key = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: ['title'] } } });
  expect((await get(key, '/api/v2/events/jazz-night')).data.id).toBe(ids.jazz);
  expect((await get(key, `/api/v2/events/${ids.jazz}`)).data.attributes.title).toBe('Jazz Night');
  const single = await get(key, '/api/v2/events/jazz-night');
  expect(single.links).toEqual({ self: expect.stringMatching(/\/api\/v2\/events\/jazz-night$/) });
  expect(single.meta.page).toBeUndefined();
  for (const path of ['/api/v2/events/secret-draft', `/api/v2/events/${ids.hidden}`, '/api/v2/events/nope']) {
    const res = await get(key, path, 404);
    expect(res.errors[0]).toMatchObject({ code: 'not_found' });
  }
});

test('locale: localized fields in the language, 404 for a missing translation, 400 for an unknown locale', async () => {
  const key = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: ['title', 'startsAt'] } } });
  const de = await get(key, '/api/v2/events?locale=de');
  expect(de.data.map((r: { attributes: { title: string } }) => r.attributes.title)).toEqual(['Jazznacht']);
  expect(de.data[0].id).toBe(ids.jazz);
  expect((await get(key, '/api/v2/events/jazznacht?locale=de')).data.attributes.title).toBe('Jazznacht');
  await get(key, '/api/v2/events/talk?locale=de', 404);
  const bad = await get(key, '/api/v2/events?locale=xx', 400);
  expect(bad.errors[0].source).toEqual({ parameter: 'locale' });
  // Not localized: the parameter is accepted and ignored.
  const buildingsKey = await createKey(app.strapi, { resources: { 'native:jobs': { actions: ['read'], read: ['title'] } } });
  expect((await get(buildingsKey, '/api/v2/jobs?locale=de')).data).toHaveLength(1);
});

test('markdown and other types on jobs', async () => {
  const key = await createKey(app.strapi, { resources: { 'native:jobs': { actions: ['read'], read: '*' } } });
  const body = await get(key, '/api/v2/jobs');
  expect(body.data[0].attributes).toMatchObject({
    title: 'Engineer',
    department: 'engineering',
    remote: false,
    description: '# Role\n\nBuild **things**.',
    salaryMin: null,
    closesOn: null,
  });
});

test('403 without a read grant, 404 for resources that do not exist', async () => {
  const key = await createKey(app.strapi, { resources: { 'native:events': { actions: ['create'], write: ['title'] } } });
  expect((await get(key, '/api/v2/events', 403)).errors[0]).toMatchObject({ code: 'forbidden', meta: { reason: 'action_not_granted' } });
  expect((await get(key, '/api/v2/events/jazz-night', 403)).errors[0].code).toBe('forbidden');
  expect((await get(key, '/api/v2/buildings', 403)).errors[0].code).toBe('forbidden');
  expect((await get(key, '/api/v2/spaceships', 404)).errors[0].code).toBe('not_found');
  expect((await get(key, '/api/v2/cms/site-a/nothing', 404)).errors[0].code).toBe('not_found');
  expect((await get(key, '/api/v2/cms/no-site/pages', 404)).errors[0].code).toBe('not_found');
});

test('CMS: website scoping, singletons, localized singletons', async () => {
  const key = await createKey(app.strapi, {
    resources: {
      'cms:site-a/pages': { actions: ['read'], read: ['title'] },
      'cms:site-b/pages': { actions: ['read'], read: ['title'] },
      'cms:site-a/settings': { actions: ['read'], read: ['siteName'] },
      'cms:site-a/home': { actions: ['read'], read: ['headline', 'featuredEvents'] },
      'native:events': { actions: ['read'], read: ['title'] },
    },
  });
  const a = await get(key, '/api/v2/cms/site-a/pages');
  expect(a.data.map((r: { attributes: { title: string } }) => r.attributes.title)).toEqual(['About A']);
  expect(a.data[0].type).toBe('pages');
  expect(a.data[0].attributes).not.toHaveProperty('website');
  const b = await get(key, '/api/v2/cms/site-b/pages');
  expect(b.data.map((r: { attributes: { title: string } }) => r.attributes.title)).toEqual(['About B']);
  await get(key, '/api/v2/cms/site-a/pages/about-b', 404);
  expect((await get(key, '/api/v2/cms/site-a/pages/about-a')).data.attributes.title).toBe('About A');

  const settings = await get(key, '/api/v2/cms/site-a/settings');
  expect(settings.meta.resource).toEqual({ name: 'Settings', slug: 'settings', mode: 'singleton' });
  expect(settings.data).toMatchObject({ type: 'settings', attributes: { siteName: 'Site A' }, meta: { slug: null, sort: null } });
  expect(settings.links.next).toBeUndefined();

  const home = await get(key, '/api/v2/cms/site-a/home');
  expect(home.data.attributes).toEqual({
    headline: 'Welcome',
    featuredEvents: [{ id: ids.jazz, slug: 'jazz-night', collection: 'events' }],
  });
  const homeDe = await get(key, '/api/v2/cms/site-a/home?locale=de');
  expect(homeDe.data.attributes.headline).toBe('Willkommen');
  await get(key, '/api/v2/cms/site-a/home/anything', 404);
});

test('the index of a demo-like key validates and links to readable resources', async () => {
  const key = await createKey(app.strapi, 'all');
  const index = await get(key, '/api/v2/');
  for (const entry of index.data) {
    const res = await app.http().get(new URL(entry.links.self).pathname).set('Authorization', key.auth);
    expect([200, 404]).toContain(res.status);
    expectValidJsonApi(res.body);
  }
});

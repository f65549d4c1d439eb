/**
 * Writing CMS records (contract sections 1 and 7): the website of the path is set on every record created
 * there and can never change, references stay inside the website, singletons are patched in place.
 */
import type { Core } from '@strapi/strapi';
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { ensureLocale, localize, publish, website } from '../helpers/fixtures';
import { listenOnce, pathOf, resourceDocument, tableSnapshot, writer } from '../helpers/writes';

const PAGE = 'api::page.page';
const SETTING = 'api::setting.setting';
const HOME = 'api::homepage.homepage';
const UIDS = [PAGE, SETTING, HOME];

let app: TestApp;
let s: Core.Strapi;
let api: ReturnType<typeof writer>;
let key: { auth: string };
const ids: Record<string, string> = {};

const ALL = { actions: ['read', 'create', 'update', 'delete'], read: '*', write: '*' };

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  s = app.strapi;
  api = writer(app);
  await listenOnce(app);
  await ensureLocale(s, 'de', 'German');
  const publications = [
    { collection: 'pages', contentType: PAGE, mode: 'collection' },
    { collection: 'settings', contentType: SETTING, mode: 'singleton' },
  ];
  const a = await website(s, 'site-a', [...publications, { collection: 'home', contentType: HOME, mode: 'singleton' }]);
  const b = await website(s, 'site-b', publications);
  await website(s, 'site-c', publications);
  ids.siteA = a.documentId;
  ids.siteB = b.documentId;
  ids.aboutA = (await publish(s, PAGE, { title: 'About A', slug: 'about-a', website: a.documentId })).documentId;
  ids.aboutB = (await publish(s, PAGE, { title: 'About B', slug: 'about-b', website: b.documentId })).documentId;
  ids.settingsA = (await publish(s, SETTING, { siteName: 'Site A', website: a.documentId })).documentId;
  ids.settingsB = (await publish(s, SETTING, { siteName: 'Site B', website: b.documentId })).documentId;
  const jazz = await publish(s, 'api::event.event', { title: 'Jazz', slug: 'jazz', category: 'concert', startsAt: '2027-06-01T19:00:00Z' });
  await localize(s, 'api::event.event', jazz.documentId, 'de', {
    title: 'Jazz (de)',
    slug: 'jazz-de',
    category: 'concert',
    startsAt: '2027-06-01T19:00:00Z',
  });
  ids.jazz = jazz.documentId;
  const home = await publish(s, HOME, { headline: 'Welcome' });
  await localize(s, HOME, home.documentId, 'de', { headline: 'Willkommen' });
  ids.home = home.documentId;
  key = await createKey(s, {
    resources: {
      'cms:site-a/pages': ALL,
      'cms:site-b/pages': ALL,
      'cms:site-c/pages': ALL,
      'cms:site-a/settings': { actions: ['read', 'update'], read: '*', write: '*' },
      'cms:site-b/settings': { actions: ['read', 'update'], read: '*', write: '*' },
      'cms:site-c/settings': { actions: ['read', 'update'], read: '*', write: '*' },
      'cms:site-a/home': { actions: ['read', 'update'], read: '*', write: '*' },
      'native:events': { actions: ['read'], read: ['title'] },
    },
  });
});
afterAll(async () => {
  await app?.close();
});

const websiteOf = async (uid: string, documentId: string): Promise<string[]> => {
  const rows = (await s.db.query(uid as never).findMany({ where: { documentId }, populate: ['website'] })) as {
    website: { slug: string } | null;
  }[];
  return [...new Set(rows.map((row) => row.website?.slug ?? 'none'))];
};

describe('collections', () => {
  test('a record created under a website belongs to it, and only it shows it', async () => {
    const res = await api.post(
      '/api/v2/cms/site-a/pages',
      key.auth,
      resourceDocument('pages', { title: 'Contact', summary: 'Write to us', relatedPages: ['about-a'] }),
    );
    expect(res.status).toBe(201);
    expect(res.headers.location).toMatch(/\/api\/v2\/cms\/site-a\/pages\/contact$/);
    expect(res.body.meta.resource).toEqual({ name: 'Pages', slug: 'pages', mode: 'collection' });
    expect(res.body.data).toEqual({
      type: 'pages',
      id: expect.any(String),
      attributes: {
        title: 'Contact',
        slug: 'contact',
        sort: null,
        summary: 'Write to us',
        body: null,
        hero: null,
        showInMenu: true,
        relatedPages: [{ id: ids.aboutA, slug: 'about-a', collection: 'pages' }],
        // Component fields the write did not name (read-only through the API for now): empty.
        sections: [],
        seo: null,
      },
      meta: { slug: 'contact', sort: null, createdAt: expect.any(Number), updatedAt: expect.any(Number), publishedAt: expect.any(Number) },
    });
    ids.contact = res.body.data.id;
    expect(await websiteOf(PAGE, ids.contact!)).toEqual(['site-a']);
    expect((await api.get(pathOf(res.headers.location!), key.auth)).body).toEqual(res.body);
    expect((await api.get('/api/v2/cms/site-b/pages/contact', key.auth)).status).toBe(404);
    expect((await api.get('/api/v2/cms/site-b/pages', key.auth)).body.data.map((page: { id: string }) => page.id)).toEqual([ids.aboutB]);
  });

  test('the website is not a field: it cannot be sent, so no write can name another one', async () => {
    const res = await api.post('/api/v2/cms/site-a/pages', key.auth, resourceDocument('pages', { title: 'Moved', website: ids.siteB }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ source: { pointer: '/data/attributes/website' }, meta: { reason: 'field_not_writable' } }),
    ]);
    const patch = await api.patch('/api/v2/cms/site-a/pages/contact', key.auth, resourceDocument('pages', { website: { id: ids.siteB } }));
    expect(patch.status).toBe(422);
    expect(await websiteOf(PAGE, ids.contact!)).toEqual(['site-a']);
  });

  test("another website's record is not there: 404 on its path, and a PATCH keeps the website", async () => {
    const before = await tableSnapshot(s, UIDS);
    expect((await api.patch('/api/v2/cms/site-b/pages/contact', key.auth, resourceDocument('pages', { title: 'Hijacked' }))).status).toBe(
      404,
    );
    expect(
      (await api.patch(`/api/v2/cms/site-b/pages/${ids.contact}`, key.auth, resourceDocument('pages', { title: 'Hijacked' }))).status,
    ).toBe(404);
    expect((await api.del('/api/v2/cms/site-b/pages/contact', key.auth)).status).toBe(404);
    expect(await tableSnapshot(s, UIDS)).toEqual(before);

    const res = await api.patch(
      '/api/v2/cms/site-a/pages/contact',
      key.auth,
      resourceDocument('pages', { title: 'Contact us', showInMenu: false }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toMatchObject({ title: 'Contact us', slug: 'contact', showInMenu: false });
    expect(await websiteOf(PAGE, ids.contact!)).toEqual(['site-a']);
  });

  test('a reference never leads into another website, by slug or by id', async () => {
    for (const ref of ['about-b', ids.aboutB, { id: ids.aboutB }, { slug: 'about-b' }]) {
      const res = await api.patch('/api/v2/cms/site-a/pages/contact', key.auth, resourceDocument('pages', { relatedPages: [ref] }));
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([
        expect.objectContaining({ source: { pointer: '/data/attributes/relatedPages/0' }, meta: { reason: 'target_not_found' } }),
      ]);
    }
  });

  test("slugs are unique per website: another website's slug is free, a generated one is natural, a duplicate here is 409", async () => {
    const generated = await api.post('/api/v2/cms/site-b/pages', key.auth, resourceDocument('pages', { title: 'Contact' }));
    expect(generated.status).toBe(201);
    expect(generated.body.data.meta.slug).toBe('contact');
    const sameAsSiteA = await api.post(
      '/api/v2/cms/site-b/pages',
      key.auth,
      resourceDocument('pages', { title: 'About', slug: 'about-a' }),
    );
    expect(sameAsSiteA.status).toBe(201);
    expect(sameAsSiteA.body.data.meta.slug).toBe('about-a');
    const before = await tableSnapshot(s, UIDS);
    const duplicate = await api.post(
      '/api/v2/cms/site-b/pages',
      key.auth,
      resourceDocument('pages', { title: 'Contact', slug: 'about-b' }),
    );
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors).toEqual([
      expect.objectContaining({
        detail: "Another pages record already uses the slug 'about-b'.",
        source: { pointer: '/data/attributes/slug' },
        meta: { reason: 'duplicate_slug' },
      }),
    ]);
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
    // Site A's 'about-a' and 'contact' say nothing about site B's, which use the same slugs.
    expect((await api.get('/api/v2/cms/site-a/pages/about-a', key.auth)).body.data.id).toBe(ids.aboutA);
    expect((await api.get('/api/v2/cms/site-b/pages/about-a', key.auth)).body.data.id).toBe(sameAsSiteA.body.data.id);
    expect((await api.get('/api/v2/cms/site-a/pages/contact', key.auth)).body.data.id).toBe(ids.contact);
    expect((await api.get('/api/v2/cms/site-b/pages/contact', key.auth)).body.data.id).toBe(generated.body.data.id);
  });

  test('DELETE removes the record of this website only', async () => {
    expect((await api.del('/api/v2/cms/site-b/pages/contact', key.auth)).status).toBe(204);
    expect((await api.get('/api/v2/cms/site-b/pages/contact', key.auth)).status).toBe(404);
    expect((await api.get('/api/v2/cms/site-a/pages/contact', key.auth)).status).toBe(200);
  });
});

describe('singletons', () => {
  test("PATCH on a singleton's path updates its one record, of this website only", async () => {
    const res = await api.patch(
      '/api/v2/cms/site-a/settings',
      key.auth,
      resourceDocument('settings', { tagline: 'Music and more', primaryColor: '#112233' }, ids.settingsA),
    );
    expect(res.status).toBe(200);
    expect(res.headers.location).toBeUndefined();
    expect(res.body.links).toEqual({ self: expect.stringMatching(/\/api\/v2\/cms\/site-a\/settings$/) });
    expect(res.body.meta.resource).toEqual({ name: 'Settings', slug: 'settings', mode: 'singleton' });
    expect(res.body.data).toMatchObject({
      type: 'settings',
      id: ids.settingsA,
      attributes: { siteName: 'Site A', tagline: 'Music and more', contactEmail: null, primaryColor: '#112233', logo: null },
      meta: { slug: null, sort: null },
    });
    expect((await api.get('/api/v2/cms/site-a/settings', key.auth)).body).toEqual(res.body);
    expect((await api.get('/api/v2/cms/site-b/settings', key.auth)).body.data.attributes).toMatchObject({
      siteName: 'Site B',
      tagline: null,
    });
    expect(await websiteOf(SETTING, ids.settingsA!)).toEqual(['site-a']);
  });

  test("the schema's rules apply to singletons too", async () => {
    const res = await api.patch('/api/v2/cms/site-b/settings', key.auth, resourceDocument('settings', { primaryColor: 'red' }));
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ source: { pointer: '/data/attributes/primaryColor' } });
  });

  test('a singleton without a record is 404 (it is created in the admin)', async () => {
    const res = await api.patch('/api/v2/cms/site-c/settings', key.auth, resourceDocument('settings', { siteName: 'Site C' }));
    expect(res.status).toBe(404);
    expect(res.body.errors[0].meta).toEqual({ reason: 'record_not_found' });
  });

  test('a localized single type is written per locale; references to localized records follow the locale', async () => {
    const de = await api.patch(
      '/api/v2/cms/site-a/home?locale=de',
      key.auth,
      resourceDocument('home', { headline: 'Herzlich willkommen', featuredEvents: ['jazz-de'] }),
    );
    expect(de.status).toBe(200);
    expect(de.body.links.self).toMatch(/\/cms\/site-a\/home\?locale=de$/);
    expect(de.body.data.attributes).toEqual({
      headline: 'Herzlich willkommen',
      intro: null,
      hero: null,
      featuredEvents: [{ id: ids.jazz, slug: 'jazz-de', collection: 'events' }],
    });
    // The English slug names no German record.
    const wrongLocale = await api.patch(
      '/api/v2/cms/site-a/home?locale=de',
      key.auth,
      resourceDocument('home', { featuredEvents: ['jazz'] }),
    );
    expect(wrongLocale.status).toBe(422);
    expect(wrongLocale.body.errors[0]).toMatchObject({
      source: { pointer: '/data/attributes/featuredEvents/0' },
      meta: { reason: 'target_not_found' },
    });
    const en = await api.get('/api/v2/cms/site-a/home', key.auth);
    expect(en.body.data.attributes).toMatchObject({ headline: 'Welcome', featuredEvents: [] });
  });
});

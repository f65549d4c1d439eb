/**
 * The demo's components (issue 17) under writes through /api/v2 that do not name them. Reads serve component
 * fields (test/api/components-read.test.ts) and writes take them (test/api/write-components.test.ts); a write
 * here never names `sections` or `seo`, and what it must not do is lose them: a write republishes the
 * document, and Strapi stores components as rows of their own that are copied on publish. Each case compares
 * the components before and after, in every version.
 */
import type { Core } from '@strapi/strapi';
import { COMPONENT } from '../../src/seed/plan/sections';
import { UID } from '../../src/seed/plan/types';
import { bootApp, type TestApp } from '../helpers/app';
import { createKey } from '../helpers/keys';
import { resourceDocument, writer } from '../helpers/writes';

type Row = Record<string, unknown>;

let app: TestApp;
let strapi: Core.Strapi;
let key: Awaited<ReturnType<typeof createKey>>;

beforeAll(async () => {
  // The database starts with the demo content seeded (the demo template, test/helpers/templates.js).
  app = await bootApp({}, { template: 'demo' });
  strapi = app.strapi;
  key = await createKey(strapi, 'all');
}, 600_000);

afterAll(async () => {
  await app?.close();
});

const POPULATE = {
  sections: {
    on: {
      [COMPONENT.hero]: { populate: { image: { fields: ['name'] }, cta: true } },
      [COMPONENT.richText]: true,
      [COMPONENT.imageGallery]: { populate: { images: { fields: ['name'] } } },
      [COMPONENT.callToAction]: { populate: { link: true } },
      [COMPONENT.relatedEvents]: { populate: { events: { fields: ['slug', 'locale', 'publishedAt'] } } },
    },
  },
  seo: { populate: { ogImage: { fields: ['name'] } } },
};

/** Component values without their row ids, which a republish renews; related events by slug, locale and status. */
const content = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(content);
  if (!value || typeof value !== 'object') return value;
  const row = value as Row;
  if ('publishedAt' in row && 'slug' in row) return `${row.slug}/${row.locale}/${row.publishedAt === null ? 'draft' : 'published'}`;
  return Object.fromEntries(
    Object.entries(row)
      .filter(([field]) => field !== 'id' && field !== 'documentId')
      .map(([field, inner]) => [field, content(inner)]),
  );
};

const componentsOf = async (uid: string, documentId: string, locale: string | undefined, status: 'draft' | 'published') => {
  const document = (await strapi.documents(uid as never).findOne({
    documentId,
    status,
    ...(locale ? { locale } : {}),
    populate: uid === UID.page ? POPULATE : { seo: POPULATE.seo },
  } as never)) as Row;
  return content(uid === UID.page ? { sections: document.sections, seo: document.seo } : { seo: document.seo });
};

test("a write that names no component field keeps a page's sections and SEO, draft and published", async () => {
  const page = (await strapi
    .documents(UID.page)
    .findFirst({ filters: { slug: 'about-us', website: { slug: 'city-guide' } }, status: 'published' })) as Row;
  const documentId = String(page.documentId);
  const before = {
    draft: await componentsOf(UID.page, documentId, undefined, 'draft'),
    published: await componentsOf(UID.page, documentId, undefined, 'published'),
  };
  expect((before.published as { sections: Row[] }).sections.length).toBe(4);

  const res = await writer(app).patch(
    '/api/v2/cms/city-guide/pages/about-us',
    key.auth,
    resourceDocument('pages', { summary: 'Who we are.' }),
  );
  expect(res.status).toBe(200);
  for (const status of ['draft', 'published'] as const) {
    const after = (await strapi.documents(UID.page).findOne({ documentId, status })) as Row;
    expect(after.summary).toBe('Who we are.');
    expect([status, await componentsOf(UID.page, documentId, undefined, status)]).toEqual([status, before[status]]);
  }
});

test('a page created through /api/v2 has no sections and no SEO, and is served as before', async () => {
  const res = await writer(app).post('/api/v2/cms/culture-hub/pages', key.auth, resourceDocument('pages', { title: 'Opening hours' }));
  expect(res.status).toBe(201);
  const created = (await strapi.documents(UID.page).findFirst({
    filters: { slug: 'opening-hours', website: { slug: 'culture-hub' } },
    status: 'published',
    populate: POPULATE,
  } as never)) as Row;
  expect(created).toMatchObject({ title: 'Opening hours', sections: [], seo: null });
});

test('a write to one locale of an event keeps its SEO in every locale and status', async () => {
  const [event] = (await strapi.documents(UID.event).findMany({
    filters: { seo: { metaTitle: { $notNull: true } } },
    status: 'published',
    locale: 'en',
    limit: 1,
  } as never)) as Row[];
  const documentId = String(event.documentId);
  const versions = [
    ['en', 'draft'],
    ['en', 'published'],
    ['de', 'draft'],
    ['de', 'published'],
  ] as const;
  const before = await Promise.all(versions.map(([locale, status]) => componentsOf(UID.event, documentId, locale, status)));
  expect(before.every((version) => (version as { seo: Row | null }).seo !== null)).toBe(true);

  const res = await writer(app).patch(`/api/v2/events/${event.slug}`, key.auth, resourceDocument('events', { summary: 'Rescheduled.' }));
  expect(res.status).toBe(200);
  expect(await Promise.all(versions.map(([locale, status]) => componentsOf(UID.event, documentId, locale, status)))).toEqual(before);
});

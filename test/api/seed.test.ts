/**
 * The demo seed on a fresh database: what it writes, that a second run writes nothing, the bulk
 * benchmark mode, and the command line's argument checks.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Core } from '@strapi/strapi';
import { main } from '../../scripts/seed';
import { benchSlug, buildDemoPlan, contentFingerprint, isUnchanged, seedBulkEvents, seedDemo, takeCensus } from '../../src/seed';
import { COMPONENT } from '../../src/seed/plan/sections';
import { UID } from '../../src/seed/plan/types';
import { superAdmin } from '../helpers/admin';
import { APP_ROOT, bootApp, type TestApp } from '../helpers/app';

/**
 * The content fingerprint of the demo plan. Equal on SQLite and PostgreSQL and on every run; it
 * changes only when the plan itself is edited, and then this constant is updated with it.
 */
const DEMO_FINGERPRINT = '23fed518490d3e532c8afd991d79fbb95c4a87c099b26182804ecd49302a2b4c';

let app: TestApp;
let strapi: Core.Strapi;
const logged: string[] = [];
const log = (line: string) => logged.push(line);

beforeAll(async () => {
  app = await bootApp();
  strapi = app.strapi;
}, 60_000);

afterAll(async () => {
  if (strapi) {
    // Uploaded files live in the application's public/uploads, outside the throwaway database.
    const upload = strapi.plugin('upload').service('upload') as { remove: (file: unknown) => Promise<unknown> };
    const files = await strapi.db.query('plugin::upload.file').findMany({ where: { name: { $startsWith: 'seed-' } } });
    for (const file of files) await upload.remove(file);
  }
  await app?.close();
}, 60_000);

type Row = Record<string, unknown>;

/** Everything a rerun could touch: every row's identity and timestamps, files, locales, link rows, content. */
const snapshot = async () => {
  const rows: Record<string, Row[]> = {};
  for (const uid of Object.values(UID)) {
    rows[uid] = (await strapi.db
      .query(uid)
      .findMany({ select: ['id', 'documentId', 'locale', 'publishedAt', 'updatedAt'], orderBy: { id: 'asc' } })) as Row[];
  }
  const knex = strapi.db.connection;
  const links: Record<string, unknown> = {};
  for (const table of [
    'events_venue_lnk',
    'events_festival_lnk',
    'products_event_lnk',
    'pages_website_lnk',
    'settings_website_lnk',
    'homepages_featured_events_lnk',
    'files_related_mph',
    // Components: their rows, and the tables linking them to pages, events and each other.
    'pages_cmps',
    'events_cmps',
    'components_sections_heroes_cmps',
    'components_sections_calls_to_action_cmps',
    'components_shared_seos',
    'components_shared_links',
    'components_sections_heroes',
    'components_sections_rich_texts',
    'components_sections_image_galleries',
    'components_sections_calls_to_action',
    'components_sections_related_events',
    'components_sections_related_events_events_lnk',
  ]) {
    links[table] = (await knex(table).count({ count: '*' }))[0].count;
  }
  return {
    rows,
    links,
    files: await strapi.db.query('plugin::upload.file').findMany({ select: ['id', 'name', 'hash', 'updatedAt'], orderBy: { id: 'asc' } }),
    locales: (await strapi.db.query('plugin::i18n.locale').findMany({ select: ['code'], orderBy: { code: 'asc' } })).map(
      (locale: Row) => locale.code,
    ),
    fingerprint: await contentFingerprint(strapi),
  };
};

const EXPECTED_CENSUS = [
  { contentType: UID.building, locale: null, documents: 20, published: 19 },
  { contentType: UID.event, locale: 'de', documents: 200, published: 194 },
  { contentType: UID.event, locale: 'en', documents: 200, published: 194 },
  { contentType: UID.festival, locale: null, documents: 6, published: 6 },
  { contentType: UID.homepage, locale: 'de', documents: 1, published: 1 },
  { contentType: UID.homepage, locale: 'en', documents: 1, published: 1 },
  { contentType: UID.job, locale: null, documents: 25, published: 23 },
  { contentType: UID.page, locale: null, documents: 16, published: 14 },
  { contentType: UID.product, locale: 'de', documents: 60, published: 57 },
  { contentType: UID.product, locale: 'en', documents: 60, published: 57 },
  { contentType: UID.setting, locale: null, documents: 2, published: 2 },
  { contentType: UID.website, locale: null, documents: 2, published: 2 },
];

describe('the demo seed', () => {
  test('writes the planned content, and a second run changes nothing', async () => {
    const started = Date.now();
    const first = await seedDemo(strapi, { log });
    process.stdout.write(`demo seed: ${Date.now() - started} ms on ${process.env.TEST_DATABASE ?? 'sqlite'}\n`);
    expect(first.localesCreated).toEqual(['de']);
    expect(first.files).toEqual({ uploaded: 16, reused: 0 });
    expect(first.writes[UID.event]).toEqual({ created: 200, localized: 200, published: 388, revised: 14, renamed: 0 });
    expect(await takeCensus(strapi)).toEqual(EXPECTED_CENSUS);

    const before = await snapshot();
    const second = await seedDemo(strapi, { log });
    expect(isUnchanged(second)).toBe(true);
    expect(second.files).toEqual({ uploaded: 0, reused: 16 });
    expect(await snapshot()).toEqual(before);
    expect(await takeCensus(strapi)).toEqual(EXPECTED_CENSUS);
  }, 240_000);

  test('its content is the deterministic plan: the same fingerprint on every database', async () => {
    expect(await contentFingerprint(strapi)).toBe(DEMO_FINGERPRINT);
  });

  test('English is the default locale, German the other', async () => {
    const locales = strapi.plugin('i18n').service('locales') as { getDefaultLocale: () => Promise<string> };
    expect(await locales.getDefaultLocale()).toBe('en');
  });

  test('drafts that were never published, and published records with unpublished edits', async () => {
    const events = strapi.documents(UID.event);
    const revised = await events.findFirst({ filters: { title: { $endsWith: '(New Date)' } }, status: 'draft', locale: 'en' });
    expect(revised).not.toBeNull();
    const live = await events.findOne({ documentId: revised!.documentId, status: 'published', locale: 'en' });
    expect(live!.title).toBe(revised!.title.replace(' (New Date)', ''));
    const liveGerman = await events.findOne({ documentId: revised!.documentId, status: 'published', locale: 'de' });
    expect(liveGerman!.title).not.toContain('Neuer Termin');

    const drafts = await strapi.db.query(UID.event).findMany({ select: ['documentId'], where: { publishedAt: null, locale: 'en' } });
    const published = new Set(
      (await strapi.db.query(UID.event).findMany({ select: ['documentId'], where: { publishedAt: { $notNull: true }, locale: 'en' } })).map(
        (row: Row) => row.documentId,
      ),
    );
    expect(drafts.filter((row: Row) => !published.has(row.documentId))).toHaveLength(6);

    const homepage = strapi.documents(UID.homepage);
    expect((await homepage.findFirst({ status: 'draft', locale: 'en' }))!.headline).toMatch(/^Summer in the city/);
    expect((await homepage.findFirst({ status: 'published', locale: 'en' }))!.headline).toBe('Culture in the city, every day');
  });

  test('relations link the same locale and status; media are real uploads with formats', async () => {
    const german = await strapi
      .documents(UID.homepage)
      .findFirst({ status: 'published', locale: 'de', populate: ['featuredEvents', 'hero'] });
    expect(german!.featuredEvents).toHaveLength(6);
    for (const event of german!.featuredEvents as Row[]) expect(event).toMatchObject({ locale: 'de', publishedAt: expect.any(String) });
    expect(german!.hero).toMatchObject({ mime: 'image/jpeg', width: 800, height: 600 });

    const device = await strapi
      .documents(UID.product)
      .findFirst({ filters: { sku: 'DEV-001' }, status: 'published', locale: 'de', populate: ['manual', 'images'] });
    expect(device!.manual).toMatchObject({ name: 'seed-product-manual.pdf', mime: 'application/pdf', ext: '.pdf' });
    for (const image of device!.images as Row[]) {
      expect(Object.keys(image.formats as object).sort()).toEqual(['medium', 'small', 'thumbnail']);
    }

    const pages = await strapi.documents(UID.page).findMany({ status: 'published', populate: ['website'], limit: 100 });
    const bySite = (slug: string) => pages.filter((page) => (page.website as Row | null)?.slug === slug).map((page) => page.title);
    expect(bySite('city-guide')).toHaveLength(7);
    expect(bySite('culture-hub')).toHaveLength(7);
    expect(bySite('city-guide')).toContain('About us');
    expect(bySite('culture-hub')).toContain('About us');
    const settings = await strapi.documents(UID.setting).findMany({ status: 'published', populate: ['website', 'logo'] });
    expect(settings.map((setting) => [setting.siteName, (setting.website as Row).slug, (setting.logo as Row).mime])).toEqual([
      ['City Guide', 'city-guide', 'image/png'],
      ['Culture Hub', 'culture-hub', 'image/png'],
    ]);
  });
});

describe('website pages', () => {
  const CULTURE_HUB_SLUGS = ['about-us', 'accessibility', 'contact', 'education', 'legal-notice', 'membership', 'press', 'privacy-policy'];
  const CITY_GUIDE_SLUGS = [
    'about-us',
    'accessibility',
    'contact',
    'getting-around',
    'legal-notice',
    'neighbourhoods',
    'privacy-policy',
    'where-to-eat',
  ];

  /** Every page row's slug, by website, drafts included. */
  const slugsBySite = async () => {
    const rows = (await strapi.db.query(UID.page).findMany({ select: ['slug'], populate: { website: { select: ['slug'] } } })) as Row[];
    const of = (site: string) =>
      [...new Set(rows.filter((row) => (row.website as Row | null)?.slug === site).map((row) => row.slug))].sort();
    return { 'city-guide': of('city-guide'), 'culture-hub': of('culture-hub') };
  };

  test('have natural slugs on each website: both have about-us and contact, whatever the other has', async () => {
    expect(await slugsBySite()).toEqual({ 'city-guide': CITY_GUIDE_SLUGS, 'culture-hub': CULTURE_HUB_SLUGS });
  });

  test('a database seeded when slugs were unique across websites is found again, and its pages get their natural slugs', async () => {
    const before = await snapshot();
    // What the seed wrote then: the culture hub's pages that share a title with City Guide's took `-1`.
    const site = (await strapi.db.query(UID.website).findOne({ where: { slug: 'culture-hub' }, select: ['id'] })) as Row;
    for (const slug of ['about-us', 'contact', 'accessibility', 'privacy-policy', 'legal-notice']) {
      const rows = (await strapi.db.query(UID.page).findMany({ where: { slug, website: { id: site.id } }, select: ['id'] })) as Row[];
      expect(rows.length).toBeGreaterThan(0);
      await strapi.db.query(UID.page).updateMany({ where: { id: { $in: rows.map((row) => row.id) } }, data: { slug: `${slug}-1` } });
    }
    expect((await slugsBySite())['culture-hub']).toEqual([
      'about-us-1',
      'accessibility-1',
      'contact-1',
      'education',
      'legal-notice-1',
      'membership',
      'press',
      'privacy-policy-1',
    ]);

    const rerun = await seedDemo(strapi, { log });
    // The five pages are renamed, every version of each; nothing is created, published or edited.
    expect(rerun.writes[UID.page]).toEqual({ created: 0, localized: 0, published: 0, revised: 0, renamed: 5 });
    for (const [contentType, counts] of Object.entries(rerun.writes)) {
      if (contentType !== UID.page)
        expect([contentType, counts]).toEqual([contentType, { created: 0, localized: 0, published: 0, revised: 0, renamed: 0 }]);
    }
    expect(await slugsBySite()).toEqual({ 'city-guide': CITY_GUIDE_SLUGS, 'culture-hub': CULTURE_HUB_SLUGS });
    expect(await snapshot()).toEqual(before);
    expect(isUnchanged(await seedDemo(strapi, { log }))).toBe(true);
  }, 120_000);
});

describe('components: the sections and SEO of pages, the SEO of events', () => {
  const plan = buildDemoPlan();
  const fileNames = new Map(plan.files.map((file) => [file.key, file.fileName]));

  /** Plan data as the database should give it back: files by name, documents by plan key (an event's English slug). */
  const planned = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(planned);
    if (!value || typeof value !== 'object') return value;
    const ref = value as { kind?: string; key?: string };
    if (ref.kind === 'file-ref') return fileNames.get(ref.key!);
    if (ref.kind === 'document-ref') return ref.key;
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, planned(inner)]));
  };

  /** A populated component as stored, in the same terms: row ids dropped, files by name, events by slug. */
  const stored = (value: unknown, attributes: Record<string, { type: string; component?: string }>): unknown => {
    if (value === null || value === undefined) return null;
    const row = value as Row;
    return Object.fromEntries(
      Object.entries(row)
        .filter(([key]) => key !== 'id')
        .map(([key, inner]) => {
          const attribute = attributes[key];
          if (attribute?.type === 'media')
            return [key, Array.isArray(inner) ? inner.map((file: Row) => file.name) : ((inner as Row | null)?.name ?? null)];
          if (attribute?.type === 'relation') return [key, (inner as Row[]).map((target) => target.slug)];
          if (attribute?.type === 'component')
            return [key, inner === null ? null : stored(inner, strapi.components[attribute.component as never].attributes)];
          return [key, inner];
        }),
    );
  };
  const storedEntry = (entry: Row) => stored(entry, strapi.components[entry.__component as never].attributes);

  const POPULATE_SEO = { populate: { ogImage: { fields: ['name'] } } };
  const POPULATE_SECTIONS = {
    on: {
      [COMPONENT.hero]: { populate: { image: { fields: ['name'] }, cta: true } },
      [COMPONENT.richText]: true,
      [COMPONENT.imageGallery]: { populate: { images: { fields: ['name'] } } },
      [COMPONENT.callToAction]: { populate: { link: true } },
      [COMPONENT.relatedEvents]: { populate: { events: { fields: ['slug', 'locale', 'publishedAt'] } } },
    },
  };

  test('every page, draft and published, carries its planned sections in order and its SEO', async () => {
    const plannedPages = new Map(plan.documents.filter((document) => document.contentType === UID.page).map((page) => [page.key, page]));
    for (const status of ['draft', 'published'] as const) {
      const pages = await strapi.documents(UID.page).findMany({
        status,
        populate: { website: { fields: ['slug'] }, sections: POPULATE_SECTIONS, seo: POPULATE_SEO } as never,
        limit: 100,
      });
      expect(pages).toHaveLength(status === 'draft' ? 16 : 14);
      for (const page of pages) {
        const key = `${(page.website as Row).slug}/${page.slug}`;
        const data = plannedPages.get(key)!.versions[0].data;
        expect([key, (page.sections as Row[]).map(storedEntry)]).toEqual([key, planned(data.sections)]);
        expect([key, stored(page.seo, strapi.components[COMPONENT.seo].attributes)]).toEqual([key, planned(data.seo)]);
      }
    }
  });

  test("a related-events section links the events' published versions from the published page, their drafts from the draft", async () => {
    for (const status of ['draft', 'published'] as const) {
      const page = await strapi
        .documents(UID.page)
        .findFirst({ filters: { slug: 'education' }, status, populate: { sections: POPULATE_SECTIONS } as never });
      const related = (page!.sections as Row[]).find((section) => section.__component === COMPONENT.relatedEvents)!;
      expect(related.events as Row[]).toHaveLength(4);
      for (const event of related.events as Row[]) {
        // The page is not localized: its links go to the events' default locale.
        expect(event).toMatchObject({ locale: 'en', publishedAt: status === 'published' ? expect.any(String) : null });
      }
    }
  });

  test('events with SEO have it in each language and status; a later draft edit of the title keeps it', async () => {
    const plannedEvents = plan.documents.filter((document) => document.contentType === UID.event && document.versions[0].data.seo);
    expect(plannedEvents.length).toBeGreaterThan(20);
    const seoAttributes = strapi.components[COMPONENT.seo].attributes;
    for (const locale of ['en', 'de'] as const) {
      for (const status of ['draft', 'published'] as const) {
        const events = await strapi.documents(UID.event).findMany({
          locale,
          status,
          filters: { seo: { metaTitle: { $notNull: true } } } as never,
          populate: { seo: POPULATE_SEO } as never,
          fields: ['slug', 'title'],
          limit: 300,
        });
        expect([locale, status, events.length]).toEqual([locale, status, plannedEvents.length]);
        // Titles repeat across events; slugs are unique per locale.
        const bySlug = new Map(events.map((event) => [event.slug as string, event]));
        for (const document of plannedEvents) {
          const version = document.versions.find((candidate) => candidate.locale === locale)!;
          const edit = document.draftChanges.find((change) => change.locale === locale);
          const event = bySlug.get(String(version.data.slug));
          expect(event?.title).toBe(status === 'draft' && edit ? edit.data.title : version.data.title);
          expect([version.data.slug, stored(event?.seo, seoAttributes)]).toEqual([version.data.slug, planned(version.data.seo)]);
        }
      }
    }
    // Planned on purpose: one event with SEO also has an unpublished title change.
    expect(plannedEvents.some((document) => document.draftChanges.length > 0)).toBe(true);
  });
});

describe("the admin's content manager", () => {
  test('knows the components and shows sections and SEO in the edit views of pages and events, with the seeded values', async () => {
    const admin = await superAdmin(app);
    const get = async (url: string) => {
      const res = await app.http().get(url).set('Authorization', admin.auth);
      expect([url, res.status]).toEqual([url, 200]);
      return res.body.data;
    };
    const components = (await get('/content-manager/components')) as Array<{ uid: string; attributes: Record<string, Row> }>;
    expect(components.map((component) => component.uid).sort()).toEqual(Object.values(COMPONENT).sort());
    expect(components.find((component) => component.uid === COMPONENT.hero)!.attributes.cta).toMatchObject({
      type: 'component',
      component: COMPONENT.link,
    });

    for (const uid of [UID.page, UID.event]) {
      const { contentType, components: used } = await get(`/content-manager/content-types/${uid}/configuration`);
      const editFields = (contentType.layouts.edit as Array<Array<{ name: string }>>).flat().map((field) => field.name);
      const expected = uid === UID.page ? ['sections', 'seo'] : ['seo'];
      expect([uid, editFields]).toEqual([uid, expect.arrayContaining(expected)]);
      // The edit view of each component the type uses is configured too (nested links included).
      const expectedComponents = uid === UID.page ? Object.values(COMPONENT) : [COMPONENT.seo];
      expect([uid, Object.keys(used).sort()]).toEqual([uid, [...expectedComponents].sort()]);
    }

    const about = await strapi.documents(UID.page).findFirst({ filters: { slug: 'about-us' }, status: 'published' });
    const edited = await get(`/content-manager/collection-types/${UID.page}/${about!.documentId}`);
    expect((edited.sections as Row[]).map((section) => section.__component)).toEqual([
      COMPONENT.hero,
      COMPONENT.richText,
      COMPONENT.imageGallery,
      COMPONENT.callToAction,
    ]);
    expect(edited.sections[0].cta).toMatchObject({ label: 'Write to us', url: '/contact' });
    expect(edited.seo).toMatchObject({ metaTitle: expect.stringMatching(/^About us \| /), noIndex: false });
  });
});

describe('bulk benchmark events', () => {
  const benchRows = () =>
    strapi.db.query(UID.event).findMany({
      select: ['id', 'documentId', 'slug', 'publishedAt', 'updatedAt'],
      where: { slug: { $startsWith: 'bench-' } },
      orderBy: { id: 'asc' },
    });

  test('N events are added once: a rerun adds nothing, a larger N adds the difference', async () => {
    const demo = await contentFingerprint(strapi);
    expect(await seedBulkEvents(strapi, 30, { log })).toMatchObject({ requested: 30, inserted: 30, alreadyPresent: 0 });
    const rows = await benchRows();
    expect(rows).toHaveLength(60);
    expect(await seedBulkEvents(strapi, 30, { log })).toMatchObject({ inserted: 0, alreadyPresent: 30 });
    expect(await benchRows()).toEqual(rows);
    expect(await seedBulkEvents(strapi, 35, { log })).toMatchObject({ inserted: 5, alreadyPresent: 30 });
    expect(await benchRows()).toHaveLength(70);
    // The demo content is untouched.
    expect(await contentFingerprint(strapi)).toBe(demo);
  });

  test('each is stored as Strapi stores a published document: a draft and a published row, linked to the venue in the same status', async () => {
    const events = strapi.documents(UID.event);
    const published = await events.findMany({
      filters: { slug: { $startsWith: 'bench-' } },
      status: 'published',
      populate: ['venue'],
      sort: 'slug:asc',
      limit: 100,
    });
    const drafts = await events.findMany({
      filters: { slug: { $startsWith: 'bench-' } },
      status: 'draft',
      populate: ['venue'],
      sort: 'slug:asc',
      limit: 100,
    });
    expect(published.map((event) => event.slug)).toEqual(Array.from({ length: 35 }, (_, index) => benchSlug(index + 1)));
    expect(drafts.map((event) => event.documentId)).toEqual(published.map((event) => event.documentId));
    for (const event of published) {
      expect(event).toMatchObject({ locale: 'en', publishedAt: expect.any(String), venue: { publishedAt: expect.any(String) } });
      expect(event.documentId).toMatch(/^[a-z][a-z0-9]{23}$/);
      expect(Date.parse(String(event.endsAt ?? event.startsAt))).toBeGreaterThanOrEqual(Date.parse(String(event.startsAt)));
    }
    drafts.forEach((draft, index) => {
      expect(draft.publishedAt).toBeNull();
      expect((draft.venue as Row).publishedAt).toBeNull();
      expect((draft.venue as Row).documentId).toBe((published[index].venue as Row).documentId);
    });
    // The building's own list of events sees them too, in a continued order.
    const venue = await strapi
      .documents(UID.building)
      .findOne({ documentId: (published[0].venue as Row).documentId as string, status: 'published', populate: ['events'] });
    expect((venue!.events as Row[]).map((event) => event.slug)).toContain(published[0].slug);
  });
});

describe('the seed command', () => {
  const writesNothing = async (args: string[], message: RegExp) => {
    const before = await takeCensus(strapi);
    const errors: string[] = [];
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      errors.push(String(chunk));
      return true;
    });
    try {
      expect(await main(args)).toBe(2);
    } finally {
      spy.mockRestore();
    }
    expect(errors.join('')).toMatch(message);
    expect(errors.join('')).toContain('usage: npm run seed');
    expect(await takeCensus(strapi)).toEqual(before);
  };

  test('refuses a bad --events value with a clear message, a non-zero status, and writes nothing', async () => {
    await writesNothing(['--events', 'lots'], /--events must be a whole number from 0 to 1000000, not 'lots'\./);
    await writesNothing(['--events', '-5'], /not '-5'/);
    await writesNothing(['--events'], /--events needs a number/);
    await writesNothing(['--events=5', '--fast'], /Unknown argument '--fast'/);
    expect(await benchRowsCount()).toBe(70);
  });

  test('runs end to end from the command line: nothing new for the demo, the missing benchmark events added', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '-e',
        `require(${JSON.stringify(path.join(APP_ROOT, 'dist', 'scripts', 'seed.js'))}).main(['--events', '40']).then((code) => process.exit(code))`,
      ],
      { cwd: APP_ROOT, env: process.env, timeout: 120_000 },
    );
    expect(stdout).toContain('Demo content already complete: nothing written');
    expect(stdout).toContain('Benchmark events: 5 inserted, 35 already present');
    expect(stdout).toContain(`Demo content fingerprint: ${DEMO_FINGERPRINT}`);
    expect(await benchRowsCount()).toBe(80);
  }, 150_000);

  const benchRowsCount = async () => strapi.db.query(UID.event).count({ where: { slug: { $startsWith: 'bench-' } } });
});

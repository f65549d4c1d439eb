/**
 * The demo plan, checked without a database: deterministic, the promised volumes, consistent with
 * the content-type schemas, the domain rules and the website publication validator.
 */
import fs from 'node:fs';
import path from 'node:path';
import { checkEventSchedule } from '../../src/domain/rules/event-schedule';
import { checkFestivalDates } from '../../src/domain/rules/festival-dates';
import { checkNonNegativePrice } from '../../src/domain/rules/non-negative-price';
import { checkSalaryRange } from '../../src/domain/rules/salary-range';
import { validatePublications } from '../../src/plugins/public-api/server/src/registry/publications';
import type { ContentTypeSchema } from '../../src/plugins/public-api/server/src/registry/build';
import { SEED_EPOCH } from '../../src/seed/epoch';
import { buildDemoPlan } from '../../src/seed/plan';
import { slugify } from '../../src/seed/slugs';
import { UID, type PlannedDocument, type PublishableContentType, type SeededContentType } from '../../src/seed/plan/types';

const ROOT = path.resolve(__dirname, '..', '..');
const schemaPaths: Record<SeededContentType, string> = {
  [UID.building]: 'src/api/building/content-types/building/schema.json',
  [UID.event]: 'src/api/event/content-types/event/schema.json',
  [UID.festival]: 'src/api/festival/content-types/festival/schema.json',
  [UID.homepage]: 'src/api/homepage/content-types/homepage/schema.json',
  [UID.job]: 'src/api/job/content-types/job/schema.json',
  [UID.page]: 'src/api/page/content-types/page/schema.json',
  [UID.product]: 'src/api/product/content-types/product/schema.json',
  [UID.setting]: 'src/api/setting/content-types/setting/schema.json',
  [UID.website]: 'src/plugins/public-api/server/src/content-types/website/schema.json',
};
type Attribute = { type: string; relation?: string; pluginOptions?: { i18n?: { localized?: boolean } } };
const schemas = new Map<string, ContentTypeSchema>(
  Object.entries(schemaPaths).map(([uid, file]) => [uid, { ...JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8')), uid }]),
);
const attributesOf = (uid: string) => schemas.get(uid)!.attributes as Record<string, Attribute>;

const plan = buildDemoPlan();
const of = (uid: SeededContentType) => plan.documents.filter((document) => document.contentType === uid);
const first = (document: PlannedDocument) => document.versions[0].data;

test('the plan is deterministic: built twice, it is the same', () => {
  expect(JSON.stringify(buildDemoPlan())).toBe(JSON.stringify(plan));
});

test('the promised volumes, with English and German for the localized types', () => {
  expect(of(UID.building)).toHaveLength(20);
  expect(of(UID.festival)).toHaveLength(6);
  expect(of(UID.event)).toHaveLength(200);
  expect(of(UID.job)).toHaveLength(25);
  expect(of(UID.product)).toHaveLength(60);
  expect(of(UID.website)).toHaveLength(2);
  expect(of(UID.page)).toHaveLength(16);
  expect(of(UID.setting)).toHaveLength(2);
  expect(of(UID.homepage)).toHaveLength(1);
  for (const uid of [UID.event, UID.product, UID.homepage]) {
    for (const document of of(uid)) expect(document.versions.map((version) => version.locale)).toEqual(['en', 'de']);
  }
  expect(plan.files.filter((file) => file.kind === 'image')).toHaveLength(15);
  expect(plan.files.filter((file) => file.kind === 'pdf')).toHaveLength(1);
});

test('every planned value is an attribute of its content type; other locales only write localized ones', () => {
  for (const document of plan.documents) {
    const attributes = attributesOf(document.contentType);
    document.versions.forEach((version, index) => {
      for (const field of Object.keys(version.data)) {
        expect([document.contentType, field, field in attributes]).toEqual([document.contentType, field, true]);
        const attribute = attributes[field];
        // Relations are always per locale in Strapi's i18n; other fields only when marked localized.
        const localized = attribute.type === 'relation' || attribute.type === 'uid' || attribute.pluginOptions?.i18n?.localized === true;
        if (index > 0) expect([document.contentType, field, localized]).toEqual([document.contentType, field, true]);
      }
    });
  }
});

test('the plan keeps the domain rules, so the seed never trips over them', () => {
  for (const event of of(UID.event)) {
    expect(checkEventSchedule(first(event))).toEqual([]);
    expect(checkNonNegativePrice(first(event))).toEqual([]);
  }
  for (const festival of of(UID.festival)) expect(checkFestivalDates(first(festival))).toEqual([]);
  for (const job of of(UID.job)) expect(checkSalaryRange(first(job))).toEqual([]);
  for (const product of of(UID.product)) expect(checkNonNegativePrice(first(product))).toEqual([]);
  const skus = of(UID.product).map((product) => first(product).sku);
  expect(new Set(skus).size).toBe(skus.length);
  for (const sku of skus) expect(sku).toMatch(/^[A-Z0-9][A-Z0-9-]*$/);
});

/** The scope a slug is unique in: the website for website-scoped content types, else the content type. */
const slugScopeOf = (document: PlannedDocument): string => {
  const website = first(document).website as { key: string } | undefined;
  return website ? `${document.contentType}@${website.key}` : document.contentType;
};

test('slugs are valid and unique in their scope (the website, or the content type), across locales', () => {
  const byScope = new Map<string, unknown[]>();
  for (const document of plan.documents) {
    const slugs = document.versions.map((version) => version.data.slug).filter((slug) => slug !== undefined);
    byScope.set(slugScopeOf(document), [...(byScope.get(slugScopeOf(document)) ?? []), ...slugs]);
  }
  for (const [scope, slugs] of byScope) {
    expect([scope, new Set(slugs).size]).toEqual([scope, slugs.length]);
    for (const slug of slugs) expect(slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  }
  const keys = plan.documents.map((document) => `${document.contentType}|${document.key}`);
  expect(new Set(keys).size).toBe(keys.length);
});

test("a website's pages have natural slugs, whatever the other website has; their former slugs find older databases' pages", () => {
  const pages = of(UID.page);
  const slugsOf = (website: string) =>
    pages.filter((page) => slugScopeOf(page) === `${UID.page}@${website}`).map((page) => first(page).slug);
  // Every slug is the title's own, with no suffix: no two pages of one site share a title.
  for (const page of pages) expect(first(page).slug).toBe(slugify(first(page).title as string));
  expect(slugsOf('culture-hub')).toEqual(
    expect.arrayContaining(['about-us', 'contact', 'accessibility', 'privacy-policy', 'legal-notice']),
  );
  expect(slugsOf('city-guide')).toEqual(expect.arrayContaining(['about-us', 'contact', 'accessibility', 'privacy-policy', 'legal-notice']));
  // The slugs an older plan gave the second site, when slugs were unique per content type.
  expect(pages.filter((page) => page.identity?.formerly).map((page) => [page.key, page.identity!.formerly])).toEqual([
    ['culture-hub/about-us', 'about-us-1'],
    ['culture-hub/contact', 'contact-1'],
    ['culture-hub/accessibility', 'accessibility-1'],
    ['culture-hub/privacy-policy', 'privacy-policy-1'],
    ['culture-hub/legal-notice', 'legal-notice-1'],
  ]);
  for (const page of pages)
    expect(page.identity).toMatchObject({ field: 'slug', value: first(page).slug, website: slugScopeOf(page).split('@')[1] });
});

test('references point at documents written earlier and at planned files', () => {
  const written = new Set<string>();
  const files = new Set(plan.files.map((file) => file.key));
  let checked = 0;
  // References sit at the top level and inside components and dynamic zone entries.
  const check = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(check);
    if (!value || typeof value !== 'object') return;
    if ('kind' in value) {
      const ref = value as { kind: string; contentType?: string; key: string };
      if (ref.kind === 'document-ref') expect(written.has(`${ref.contentType}|${ref.key}`)).toBe(true);
      if (ref.kind === 'file-ref') expect(files.has(ref.key)).toBe(true);
      checked += 1;
      return;
    }
    Object.values(value).forEach(check);
  };
  for (const document of plan.documents) {
    for (const version of [...document.versions, ...document.draftChanges]) {
      check(version.data);
    }
    written.add(`${document.contentType}|${document.key}`);
  }
  expect(checked).toBeGreaterThan(1000);
});

test('both websites publish pages and settings, one also the homepage, and the validator accepts them', () => {
  const websites = of(UID.website).map(first);
  expect(websites.map((website) => website.slug)).toEqual(['city-guide', 'culture-hub']);
  for (const website of websites) {
    const result = validatePublications(website.publications, schemas);
    expect(result.ok).toBe(true);
  }
  expect(
    websites.map((website) =>
      (website.publications as Array<{ collection: string; mode: string }>).map((p) => `${p.collection}:${p.mode}`),
    ),
  ).toEqual([
    ['pages:collection', 'settings:singleton'],
    ['pages:collection', 'settings:singleton', 'home:singleton'],
  ]);
});

test('each website has eight pages, some with the same title and slug, and one settings record', () => {
  const pages = of(UID.page);
  const siteOf = (page: PlannedDocument) => (first(page).website as { key: string }).key;
  expect(pages.filter((page) => siteOf(page) === 'city-guide')).toHaveLength(8);
  expect(pages.filter((page) => siteOf(page) === 'culture-hub')).toHaveLength(8);
  const aboutUs = pages.filter((page) => first(page).title === 'About us');
  expect(aboutUs.map((page) => [page.key, first(page).slug])).toEqual([
    ['city-guide/about-us', 'about-us'],
    ['culture-hub/about-us', 'about-us'],
  ]);
  expect(of(UID.setting).map((setting) => (first(setting).website as { key: string }).key)).toEqual(['city-guide', 'culture-hub']);
  // Related pages stay within the site, except one link across, which the API must never serve.
  const siteByKey = new Map(pages.map((page) => [page.key, siteOf(page)]));
  const crossLinks = pages.flatMap((page) =>
    (first(page).relatedPages as Array<{ key: string }>)
      .filter((target) => siteByKey.get(target.key) !== siteOf(page))
      .map((target) => `${page.key} -> ${target.key}`),
  );
  expect(crossLinks).toEqual(['culture-hub/contact -> city-guide/getting-around']);
  expect(pages.filter((page) => (first(page).relatedPages as unknown[]).length > 0).length).toBeGreaterThan(8);
});

test('visibility cases exist: drafts never published, and published records with later draft edits', () => {
  for (const uid of [UID.event, UID.product, UID.job, UID.page, UID.building]) {
    expect([uid, of(uid).some((document) => !document.publish)]).toEqual([uid, true]);
    expect([uid, of(uid).some((document) => document.publish && document.draftChanges.length > 0)]).toEqual([uid, true]);
  }
  // Draft edits are only planned for published documents: otherwise there is nothing to differ from.
  for (const document of plan.documents) if (document.draftChanges.length > 0) expect(document.publish).toBe(true);
});

test('a plan publishes only content types with draft and publish, and PublishableContentType names just those', () => {
  const withDraftAndPublish = Object.keys(schemaPaths)
    .filter((uid) => schemas.get(uid)!.options?.draftAndPublish === true)
    .sort();
  // Typed: naming the website here does not compile (the seed publishes through this type).
  const publishable: PublishableContentType[] = [
    UID.building,
    UID.event,
    UID.festival,
    UID.homepage,
    UID.job,
    UID.page,
    UID.product,
    UID.setting,
  ];
  expect([...publishable].sort()).toEqual(withDraftAndPublish);
  for (const document of plan.documents)
    if (document.publish) expect([document.key, withDraftAndPublish.includes(document.contentType)]).toEqual([document.key, true]);
});

test('sort values: most set, some null, some shared', () => {
  for (const uid of [UID.building, UID.event, UID.job, UID.product]) {
    const sorts = of(uid).map((document) => first(document).sort);
    expect(sorts.some((sort) => sort === null)).toBe(true);
    const set = sorts.filter((sort) => sort !== null);
    expect(new Set(set).size).toBeLessThan(set.length);
    expect(set.length).toBeGreaterThan(sorts.length * 0.8);
  }
});

test('jobs close in the past of the epoch, within months, and in 2030; some are remote', () => {
  const jobs = of(UID.job).map(first);
  const epochDay = new Date(SEED_EPOCH).toISOString().slice(0, 10);
  expect(jobs.some((job) => typeof job.closesOn === 'string' && job.closesOn < epochDay)).toBe(true);
  expect(jobs.some((job) => typeof job.closesOn === 'string' && job.closesOn.startsWith('2030-'))).toBe(true);
  expect(jobs.some((job) => job.remote === true)).toBe(true);
  expect(new Set(jobs.map((job) => job.department)).size).toBe(6);
  expect(jobs.every((job) => typeof job.description === 'string' && job.description.includes('## About the role'))).toBe(true);
});

test('blocks content uses every kind of node and mark the richtext contract knows', () => {
  const json = JSON.stringify(plan.documents.flatMap((document) => document.versions.map((version) => version.data)));
  for (const needle of [
    '"type":"heading"',
    '"format":"unordered"',
    '"format":"ordered"',
    '"type":"quote"',
    '"type":"link"',
    '"type":"code"',
    '"bold":true',
    '"italic":true',
    '"code":true',
    '"underline":true',
    '"strikethrough":true',
  ]) {
    expect([needle, json.includes(needle)]).toEqual([needle, true]);
  }
});

test('events during a festival fall within its dates; tickets link to published, priced events', () => {
  const festivals = new Map(of(UID.festival).map((festival) => [festival.key, first(festival)]));
  for (const event of of(UID.event)) {
    const ref = first(event).festival as { key: string } | null;
    if (!ref) continue;
    const festival = festivals.get(ref.key)!;
    const day = String(first(event).startsAt).slice(0, 10);
    expect(day >= String(festival.startsOn) && day <= String(festival.endsOn)).toBe(true);
  }
  const events = new Map(of(UID.event).map((event) => [event.key, event]));
  const tickets = of(UID.product).filter((product) => String(first(product).sku).startsWith('TKT-'));
  expect(tickets).toHaveLength(15);
  for (const ticket of tickets) {
    const event = events.get((first(ticket).event as { key: string }).key)!;
    expect(event.publish).toBe(true);
    expect(first(ticket).price).toBe(first(event).price);
  }
});

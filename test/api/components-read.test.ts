/**
 * Components and dynamic zones in reads (issue 17, contract section 15), on the demo content (pages with a
 * dynamic zone of sections and an SEO component, events with an SEO component) and on data made here (a
 * draft change, a German SEO). Every response is checked against the key's own OpenAPI document
 * (checkResponses), so the conformance checks cover pages with sections.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Core } from '@strapi/strapi';
import { COMPONENT } from '../../src/seed/plan/sections';
import { UID } from '../../src/seed/plan/types';
import { APP_ROOT, bootApp, type TestApp } from '../helpers/app';
import { createKey } from '../helpers/keys';
import { checkResponses } from '../helpers/openapi';
import { writer } from '../helpers/writes';
import { fewestStatements } from '../helpers/statements';

type Row = Record<string, any>;

const run = promisify(execFile);
type Key = Awaited<ReturnType<typeof createKey>>;

let app: TestApp;
let strapi: Core.Strapi;
let all: Key;

const PAGES = '/api/v2/cms/culture-hub/pages';
const PAGE_FIELDS = ['title', 'slug', 'sort', 'summary', 'body', 'hero', 'showInMenu', 'relatedPages', 'sections', 'seo'];
const EVENT_FIELDS = ['title', 'slug', 'startsAt', 'category', 'seo'];

beforeAll(async () => {
  // The database starts with the demo content seeded (the demo template, test/helpers/templates.js).
  app = await checkResponses(await bootApp({}, { template: 'demo' }));
  strapi = app.strapi;
  all = await createKey(strapi, 'all');
}, 600_000);

afterAll(async () => {
  await app?.close();
});

const get = async (key: Key, path: string) => writer(app).get(path, key.auth);

/** The key's OpenAPI document (served as application/json, so not through the JSON:API writer). */
const openapiOf = async (key: Key): Promise<Row> =>
  JSON.parse((await app.http().get('/api/v2/openapi.json').set('Authorization', key.auth)).text);

const ok = async (key: Key, path: string) => {
  const res = await get(key, path);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

/** Strapi's own reading of a page's components, as the document service populates them. */
const strapiPage = async (documentId: string, status: 'draft' | 'published' = 'published'): Promise<Row> =>
  (await strapi.documents(UID.page).findOne({
    documentId,
    status,
    populate: {
      sections: {
        on: {
          [COMPONENT.hero]: { populate: { image: true, cta: true } },
          [COMPONENT.richText]: true,
          [COMPONENT.imageGallery]: { populate: { images: true } },
          [COMPONENT.callToAction]: { populate: { link: true } },
          [COMPONENT.relatedEvents]: { populate: { events: true } },
        },
      },
      seo: { populate: { ogImage: true } },
    },
  } as never)) as Row;

/** The culture hub's pages as the API lists them, each with its sections. */
const pages = async (key: Key, query = '') => (await ok(key, `${PAGES}?limit=100${query ? `&${query}` : ''}`)).data as Row[];

const SECTION_TYPES = [COMPONENT.hero, COMPONENT.richText, COMPONENT.imageGallery, COMPONENT.callToAction, COMPONENT.relatedEvents];

/** Published culture-hub pages titled `<prefix> <n>`, each with one section of every kind and an SEO component. */
const createPages = async (count: number, prefix: string) => {
  const website = (await strapi.db.query('plugin::public-api.website').findOne({ where: { slug: 'culture-hub' } })) as Row;
  const files = (await strapi.db.query('plugin::upload.file').findMany({ limit: 3, orderBy: { id: 'asc' } })) as Row[];
  const events = (await strapi.documents(UID.event).findMany({ status: 'published', locale: 'en', limit: 3 } as never)) as Row[];
  for (let n = 0; n < count; n += 1) {
    await strapi.documents(UID.page).create({
      data: {
        title: `${prefix} ${String(n).padStart(3, '0')}`,
        website: website.documentId,
        sections: [
          { __component: COMPONENT.hero, heading: `Hero ${n}`, image: files[0]!.id, cta: { label: 'More', url: '/more' } },
          { __component: COMPONENT.richText, body: [{ type: 'paragraph', children: [{ type: 'text', text: `Text ${n}` }] }] },
          { __component: COMPONENT.imageGallery, images: files.map((file) => file.id), caption: 'Gallery' },
          { __component: COMPONENT.callToAction, text: 'Act', link: { label: 'Go', url: '/go' }, style: 'primary' },
          { __component: COMPONENT.relatedEvents, heading: 'Events', events: events.map((event) => event.documentId) },
        ],
        seo: { metaTitle: `${prefix} ${n}`, ogImage: files[1]!.id },
      },
      status: 'published',
    } as never);
  }
};

const withSection = (records: Row[], type: string) =>
  records.find((record) => (record.attributes.sections as Row[]).some((section) => section.type === type))!;

describe('each type, as Strapi stores it', () => {
  test('a dynamic zone lists its sections in order as { type, attributes }, each with its own fields', async () => {
    const records = await pages(all);
    for (const record of records) {
      const stored = await strapiPage(record.id);
      const sections = record.attributes.sections as Row[];
      expect(sections.map((section) => section.type)).toEqual((stored.sections as Row[]).map((section) => section.__component));
      for (const [index, section] of sections.entries()) {
        expect(Object.keys(section)).toEqual(['type', 'attributes']);
        const original = stored.sections[index];
        if (section.type === COMPONENT.hero) {
          expect(section.attributes).toMatchObject({ heading: original.heading, subheading: original.subheading });
          // A nested single component: an object of its own fields, or null.
          expect(section.attributes.cta).toEqual(
            original.cta ? { label: original.cta.label, url: original.cta.url, openInNewTab: original.cta.openInNewTab } : null,
          );
          // Media inside a component: an asset object, as at top level.
          expect(section.attributes.image).toMatchObject({ id: original.image.documentId, fileName: original.image.name });
          expect(section.attributes.image.url).toMatch(/\/api\/v2\/assets\/[A-Za-z0-9_-]+\//);
        }
        if (section.type === COMPONENT.imageGallery) {
          expect((section.attributes.images as Row[]).map((image) => image.id)).toEqual(
            (original.images as Row[]).map((image) => image.documentId),
          );
        }
        if (section.type === COMPONENT.callToAction) {
          expect(section.attributes).toEqual({
            text: original.text,
            link: { label: original.link.label, url: original.link.url, openInNewTab: original.link.openInNewTab },
            style: original.style,
          });
        }
        if (section.type === COMPONENT.richText) {
          // Richtext inside a component: the richtext document, as at top level.
          expect(section.attributes.body.type).toBe('doc');
          expect(JSON.stringify(section.attributes.body)).toContain(JSON.stringify(original.body[0].children[0].text));
        }
        if (section.type === COMPONENT.relatedEvents) {
          // Relations inside a component: references, as at top level.
          expect(section.attributes.heading).toBe(original.heading);
          expect(new Set((section.attributes.events as Row[]).map((event) => event.id))).toEqual(
            new Set((original.events as Row[]).map((event) => event.documentId)),
          );
          for (const event of section.attributes.events)
            expect(event).toEqual({ id: expect.any(String), slug: expect.any(String), collection: 'events' });
        }
      }
      // A single component: an object of its own fields, media inside as assets.
      if (stored.seo) {
        expect(record.attributes.seo).toMatchObject({ metaTitle: stored.seo.metaTitle, noIndex: stored.seo.noIndex });
        expect(record.attributes.seo.ogImage?.id ?? null).toBe(stored.seo.ogImage?.documentId ?? null);
      } else expect(record.attributes.seo).toBeNull();
    }
    expect(records.flatMap((record) => record.attributes.sections as Row[]).length).toBeGreaterThan(records.length);
  });

  test('meta.fields names each component field with its type and components; none is sortable or filterable, and a key granted writes may write them', async () => {
    const body = await ok(all, `${PAGES}?limit=1`);
    const sections = body.meta.fields.find((field: Row) => field.key === 'sections');
    expect(sections).toMatchObject({
      type: 'dynamiczone',
      readable: true,
      // The key writes pages and reads events (the targets of related-events' relations): the zone is writable as a whole.
      writable: true,
      sortable: false,
      filterable: false,
      expandable: false,
      components: [COMPONENT.hero, COMPONENT.richText, COMPONENT.imageGallery, COMPONENT.callToAction, COMPONENT.relatedEvents],
    });
    expect(body.meta.fields.find((field: Row) => field.key === 'seo')).toMatchObject({ type: 'component', components: [COMPONENT.seo] });
  });
});

describe('grants apply to the top-level field as a whole', () => {
  const grants = (pageFields: string[], withEvents: boolean) => ({
    resources: {
      'cms:culture-hub/pages': { actions: ['read'], read: pageFields, write: [] },
      ...(withEvents ? { 'native:events': { actions: ['read'], read: EVENT_FIELDS, write: [] } } : {}),
    },
  });

  test('a component field the key may not read appears nowhere: records, meta.fields, OpenAPI', async () => {
    const key = await createKey(strapi, grants(['title', 'slug'], true));
    const body = await ok(key, `${PAGES}?limit=100`);
    for (const record of body.data) expect(Object.keys(record.attributes)).toEqual(['title', 'slug']);
    expect(body.meta.fields.map((field: Row) => field.key)).toEqual(['title', 'slug']);
    const openapi = JSON.stringify(await openapiOf(key));
    // (The events' own SEO component is granted, so Component.Shared.Seo may appear; the pages' fields may not.)
    for (const word of ['Component.Sections', '"sections"', 'sections.hero', '"heading"', 'Pages_Seo']) {
      expect([word, openapi.includes(word)]).toEqual([word, false]);
    }
    expect(openapi).toContain('Component.Shared.Seo');
    // Naming it answers as a field that does not exist.
    const sort = await get(key, `${PAGES}?sort=sections`);
    const unknown = await get(key, `${PAGES}?sort=nothing`);
    expect(sort.status).toBe(400);
    expect(sort.body.errors[0].detail.replace('sections', 'nothing')).toBe(unknown.body.errors[0].detail);
  });

  test('a relation inside a component whose target the key cannot see is left out, as at top level', async () => {
    const key = await createKey(strapi, grants(PAGE_FIELDS, false));
    const section = (withSection(await pages(key), COMPONENT.relatedEvents).attributes.sections as Row[]).find(
      (item) => item.type === COMPONENT.relatedEvents,
    )!;
    expect(Object.keys(section.attributes)).toEqual(['heading']);
    const openapi = await openapiOf(key);
    const schema = openapi.components.schemas['Component.Sections.RelatedEvents'];
    expect(Object.keys(schema.properties)).toEqual(['heading']);
    expect(JSON.stringify(openapi)).not.toContain('EventsReference');
    expect((await get(key, `${PAGES}?include=sections.events`)).status).toBe(400);
  });
});

describe('include through a component field', () => {
  test('sections.events expands the events of related-events sections in place, cut to the fieldset', async () => {
    const key = await createKey(strapi, {
      resources: {
        'cms:culture-hub/pages': { actions: ['read'], read: PAGE_FIELDS, write: [] },
        'native:events': { actions: ['read'], read: EVENT_FIELDS, write: [] },
      },
    });
    const plain = withSection(await pages(key), COMPONENT.relatedEvents);
    const body = await ok(key, `${PAGES}/${plain.meta.slug}?include=sections.events&fields[events]=title`);
    const section = (body.data.attributes.sections as Row[]).find((item) => item.type === COMPONENT.relatedEvents)!;
    const references = (plain.attributes.sections as Row[]).find((item) => item.type === COMPONENT.relatedEvents)!.attributes
      .events as Row[];
    expect(references.length).toBeGreaterThan(0);
    expect((section.attributes.events as Row[]).map((event) => event.id)).toEqual(references.map((reference) => reference.id));
    for (const event of section.attributes.events) {
      expect(event).toMatchObject({ type: 'events', attributes: { title: expect.any(String) } });
      expect(Object.keys(event.attributes)).toEqual(['title']);
    }
    // The other sections are untouched by the include.
    expect((body.data.attributes.sections as Row[]).map((item) => item.type)).toEqual(
      (plain.attributes.sections as Row[]).map((item) => item.type),
    );
    // Cache tags name the records referenced from inside the components.
    const res = await get(key, `${PAGES}/${plain.meta.slug}`);
    for (const reference of references) expect(String(res.headers['cache-tag']).split(',')).toContain(`events:${reference.id}`);
  });

  test('a path through a component that goes nowhere is a 400 on include', async () => {
    for (const path of ['sections', 'sections.nothing', 'seo', 'seo.ogImage', 'sections.heading']) {
      const res = await get(all, `${PAGES}?include=${path}`);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].source).toEqual({ parameter: 'include' });
    }
  });

  test('the include budget counts what paths through components expand', async () => {
    const res = await get(all, `${PAGES}?limit=100&include=sections.events.venue`);
    expect(res.status).toBe(200);
    const events = new Set(
      (res.body.data as Row[]).flatMap((record) =>
        (record.attributes.sections as Row[]).flatMap(
          (section) => (section.attributes.events as Row[] | undefined)?.map((event) => event.id) ?? [],
        ),
      ),
    );
    expect(events.size).toBeGreaterThan(0);
  });

  test('a page of 7 costs the queries of a page of 2 (one per component table and level)', async () => {
    // Purpose-made pages, each with every kind of section, so both pages reach every component table;
    // neither page reaches the last one (which costs one query more for rows without a sort value).
    await createPages(8, 'Batched');
    const count = async (path: string) => {
      await get(all, path);
      await app.flushKeyUse();
      return (await fewestStatements(strapi, () => get(all, path))).length;
    };
    const query = 'filter[title][startsWith]=Batched&sort=title&include=sections.events';
    const two = await count(`${PAGES}?limit=2&${query}`);
    const seven = await count(`${PAGES}?limit=7&${query}`);
    expect(seven).toBe(two);
    const body = await ok(all, `${PAGES}?limit=8&${query}`);
    expect(body.data).toHaveLength(8);
    for (const record of body.data) expect((record.attributes.sections as Row[]).map((section) => section.type)).toEqual(SECTION_TYPES);
  });
});

describe('filtering and sorting on component fields: 400', () => {
  test.each([
    ['sort', 'sort=sections'],
    ['sort', 'sort=-seo'],
    ['filter[sections]', 'filter[sections]=x'],
    ['filter[seo][null]', 'filter[seo][null]=true'],
    ['filter[seo.metaTitle]', 'filter[seo.metaTitle]=x'],
  ])('%s', async (parameter, query) => {
    const res = await get(all, `${PAGES}?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toEqual({ parameter });
  });
});

test('sparse fieldsets name component fields like any other', async () => {
  const body = await ok(all, `${PAGES}?limit=3&fields[pages]=title,seo`);
  for (const record of body.data) expect(Object.keys(record.attributes)).toEqual(['title', 'seo']);
  expect(body.meta.fields.map((field: Row) => field.key)).toEqual(['title', 'seo']);
});

describe('versions and locales are the record’s own', () => {
  test('preview: status=draft shows the draft’s components, published reads keep the published ones', async () => {
    const preview = await createKey(strapi, 'all', { preview: true });
    const [first] = await pages(all, 'sort=title');
    const stored = await strapiPage(first!.id, 'draft');
    await strapi.documents(UID.page).update({
      documentId: first!.id,
      data: {
        seo: { metaTitle: 'Draft title', metaDescription: stored.seo?.metaDescription ?? null, noIndex: false },
        sections: [{ __component: COMPONENT.callToAction, text: 'Only in the draft', style: 'primary', link: { label: 'Go', url: '/go' } }],
      },
    } as never);
    const draft = await ok(preview, `${PAGES}/${first!.id}?status=draft`);
    expect(draft.data.attributes.seo.metaTitle).toBe('Draft title');
    expect(draft.data.attributes.sections).toEqual([
      {
        type: COMPONENT.callToAction,
        attributes: { text: 'Only in the draft', style: 'primary', link: { label: 'Go', url: '/go', openInNewTab: false } },
      },
    ]);
    const published = await ok(all, `${PAGES}/${first!.id}`);
    expect(published.data.attributes.seo.metaTitle).toBe(first!.attributes.seo.metaTitle);
    expect(published.data.attributes.sections).toEqual(first!.attributes.sections);
  });

  test('richtext inside a component: an edit shows at once, also one that keeps the component row (as the content manager does)', async () => {
    const preview = await createKey(strapi, 'all', { preview: true });
    const website = (await strapi.db.query('plugin::public-api.website').findOne({ where: { slug: 'culture-hub' } })) as Row;
    const text = (value: string) => [{ type: 'paragraph', children: [{ type: 'text', text: value }] }];
    const created = (await strapi.documents(UID.page).create({
      data: { title: 'Cached text', website: website.documentId, sections: [{ __component: COMPONENT.richText, body: text('First') }] },
      status: 'published',
    } as never)) as Row;
    const read = async () => {
      const body = await ok(preview, `${PAGES}/${created.documentId}?status=draft`);
      return body.data.attributes.sections[0].attributes.body.content[0].content[0].text as string;
    };
    // Read twice: the second read is served from the conversion cache.
    expect(await read()).toBe('First');
    expect(await read()).toBe('First');
    const stored = await strapiPage(created.documentId, 'draft');
    const sectionId = stored.sections[0].id;
    // An edit of the section in place, as the content manager sends it: the component's own id, a text of the same length.
    await strapi.documents(UID.page).update({
      documentId: created.documentId,
      data: { sections: [{ __component: COMPONENT.richText, id: sectionId, body: text('Again') }] },
    } as never);
    expect((await strapiPage(created.documentId, 'draft')).sections[0].id).toBe(sectionId);
    expect(await read()).toBe('Again');
    await strapi.documents(UID.page).publish({ documentId: created.documentId } as never);
    expect((await ok(all, `${PAGES}/${created.documentId}`)).data.attributes.sections[0].attributes.body.content[0].content[0].text).toBe(
      'Again',
    );
    // And through the API (new component values).
    // A zone that may hold related events is writable by a key that may read events.
    const editor = await createKey(strapi, {
      resources: {
        'cms:culture-hub/pages': { actions: ['read', 'update'], read: '*', write: '*' },
        'native:events': { actions: ['read'], read: '*' },
      },
    });
    const patched = await writer(app).patch(`${PAGES}/${created.documentId}`, editor.auth, {
      data: {
        type: 'pages',
        id: created.documentId,
        attributes: {
          sections: [
            {
              type: COMPONENT.richText,
              attributes: { body: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Third' }] }] } },
            },
          ],
        },
      },
    });
    expect([patched.status, patched.body.errors]).toEqual([200, undefined]);
    expect(patched.body.data.attributes.sections[0].attributes.body.content[0].content[0].text).toBe('Third');
    expect((await ok(all, `${PAGES}/${created.documentId}`)).data.attributes.sections[0].attributes.body.content[0].content[0].text).toBe(
      'Third',
    );
  });

  test('locale fallback: each event shows the SEO of the locale it is answered in', async () => {
    const body = await ok(all, '/api/v2/events?limit=100&locale=de,en&fields[events]=title,seo');
    expect(body.data.length).toBeGreaterThan(0);
    for (const record of body.data as Row[]) {
      const stored = (await strapi.documents(UID.event).findOne({
        documentId: record.id,
        locale: record.meta.locale,
        populate: { seo: true },
      } as never)) as Row;
      expect(record.attributes.seo?.metaTitle ?? null).toBe(stored.seo?.metaTitle ?? null);
    }
    expect(new Set((body.data as Row[]).map((record) => record.meta.locale)).size).toBeGreaterThan(0);
  });
});

describe('the OpenAPI document', () => {
  const ARTIFACTS = path.join(APP_ROOT, 'test', '.artifacts', `components-read-${process.pid}`);
  const bin = (relative: string) => path.join(APP_ROOT, 'node_modules', relative);
  const TSC = ['--strict', '--noUncheckedIndexedAccess', '--target', 'ES2022', '--module', 'commonjs', '--skipLibCheck', '--noEmit'];
  afterAll(() => fs.rmSync(ARTIFACTS, { recursive: true, force: true }));

  test('each component schema once, a dynamic zone as oneOf with a discriminator on type', async () => {
    const openapi = await openapiOf(all);
    const schemas = openapi.components.schemas as Record<string, Row>;
    // The read schemas, each once; the write side adds an `.Input` (and an `.AtomicInput`) beside each.
    const componentSchemas = Object.keys(schemas).filter((name) => name.startsWith('Component.'));
    const readSchemas = componentSchemas.filter((name) => !/\.(Atomic)?Input$/.test(name));
    for (const name of readSchemas) expect(componentSchemas).toEqual(expect.arrayContaining([`${name}.Input`, `${name}.AtomicInput`]));
    expect(componentSchemas).toHaveLength(readSchemas.length * 3);
    expect(readSchemas.sort()).toEqual([
      'Component.Sections.CallToAction',
      'Component.Sections.CallToAction.Item',
      'Component.Sections.Hero',
      'Component.Sections.Hero.Item',
      'Component.Sections.ImageGallery',
      'Component.Sections.ImageGallery.Item',
      'Component.Sections.RelatedEvents',
      'Component.Sections.RelatedEvents.Item',
      'Component.Sections.RichText',
      'Component.Sections.RichText.Item',
      'Component.Shared.Link',
      'Component.Shared.Seo',
    ]);
    const sections = schemas['CultureHub_PagesAttributes']!.properties.sections;
    expect(sections.items.discriminator).toEqual({
      propertyName: 'type',
      mapping: Object.fromEntries(
        SECTION_TYPES.map((uid) => {
          const [category, name] = uid.split('.') as [string, string];
          const pascal = (text: string) => text.replace(/(^|-)(.)/g, (_m, _d, c: string) => c.toUpperCase());
          return [uid, `#/components/schemas/Component.${pascal(category)}.${pascal(name)}.Item`];
        }),
      ),
    });
    // Two websites' pages and the events share one SEO schema.
    expect(schemas['CityGuide_PagesAttributes']!.properties.seo.oneOf[0]).toEqual({ $ref: '#/components/schemas/Component.Shared.Seo' });
    expect(schemas['EventsAttributes']!.properties.seo.oneOf[0]).toEqual({ $ref: '#/components/schemas/Component.Shared.Seo' });
  });

  test('openapi-typescript makes a dynamic zone a discriminated union: typed usage compiles, wrong usage does not', async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(ARTIFACTS, 'openapi.json'), JSON.stringify(await openapiOf(all)));
    await run(
      process.execPath,
      [bin('openapi-typescript/bin/cli.js'), path.join(ARTIFACTS, 'openapi.json'), '--output', path.join(ARTIFACTS, 'api.d.ts')],
      {
        cwd: ARTIFACTS,
      },
    );
    const prelude = [
      "import type { components } from './api';",
      "type Section = NonNullable<components['schemas']['CultureHub_PagesAttributes']['sections']>[number];",
    ];
    fs.writeFileSync(
      path.join(ARTIFACTS, 'usage.ts'),
      [
        ...prelude,
        'export const summary = (section: Section): string => {',
        '  switch (section.type) {',
        "    case 'sections.hero': return section.attributes.heading + (section.attributes.cta?.url ?? '');",
        "    case 'sections.call-to-action': return section.attributes.link.label + section.attributes.style;",
        "    case 'sections.image-gallery': return section.attributes.images.map((image) => image.url).join(' ');",
        "    case 'sections.rich-text': return section.attributes.body.type;",
        "    case 'sections.related-events': return (section.attributes.events ?? []).map((event) => ('attributes' in event ? event.id : event.slug)).join(' ');",
        '  }',
        '};',
        '',
      ].join('\n'),
    );
    const WRONG = [
      "export const a = (s: Section) => (s.type === 'sections.rich-text' ? s.attributes.heading : null);",
      "export const b: Section = { type: 'sections.hero', attributes: { text: 'x' } };",
      "export const c: Section = { type: 'sections.nothing', attributes: {} };",
    ];
    fs.writeFileSync(path.join(ARTIFACTS, 'wrong.ts'), `${[...prelude, ...WRONG].join('\n')}\n`);
    await run(process.execPath, [bin('typescript/bin/tsc'), ...TSC, path.join(ARTIFACTS, 'usage.ts')], { cwd: APP_ROOT }).catch(
      (error: { stdout?: string }) => {
        throw new Error(`tsc failed on the typed usage:\n${error.stdout}`);
      },
    );
    const failure = await run(process.execPath, [bin('typescript/bin/tsc'), ...TSC, path.join(ARTIFACTS, 'wrong.ts')], {
      cwd: APP_ROOT,
    }).then(
      () => '',
      (error: { stdout?: string }) => error.stdout ?? '',
    );
    const lines = [...failure.matchAll(/wrong\.ts\((\d+),\d+\): error TS\d+/g)].map((match) => Number(match[1]));
    expect([...new Set(lines)]).toEqual(WRONG.map((_, index) => index + prelude.length + 1));
  });
});

/**
 * Property test of dynamic zone writes (contract section 15): a zone of random sections (every section
 * type, random text, richtext, images, events and nested links, in random order and number) written with
 * PATCH and with POST reads back exactly as it was sent, in the shapes reads give (assets and references
 * named by their id, defaults filled in where the write left nothing out).
 */
import type { Core } from '@strapi/strapi';
import fc from 'fast-check';
import { COMPONENT } from '../../src/seed/plan/sections';
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { listenOnce, resourceDocument, writer } from '../helpers/writes';

const PAGES = '/api/v2/cms/culture-hub/pages';
const ALL = { actions: ['read', 'create', 'update', 'delete'], read: '*', write: '*' };

let app: TestApp;
let s: Core.Strapi;
let api: ReturnType<typeof writer>;
let key: { auth: string };
let imageIds: string[];
let eventIds: string[];
let target: string;

beforeAll(async () => {
  app = await checkResponses(await bootApp({}, { template: 'demo' }));
  s = app.strapi;
  api = writer(app);
  await listenOnce(app);
  key = await createKey(s, { resources: { 'cms:culture-hub/pages': ALL, 'native:events': { actions: ['read'], read: '*' } } });
  const files = (await s.db.query('plugin::upload.file').findMany({ where: { mime: { $startsWith: 'image/' } }, limit: 6 })) as {
    documentId: string;
  }[];
  imageIds = files.map((file) => file.documentId);
  eventIds = (await api.get('/api/v2/events?limit=6', key.auth)).body.data.map((record: { id: string }) => record.id);
  const created = await api.post(PAGES, key.auth, resourceDocument('pages', { title: 'Property target' }));
  expect(created.status).toBe(201);
  target = created.body.data.id;
}, 600_000);

afterAll(async () => {
  await app?.close();
});

/** Text any database keeps as sent: printable, not blank, within the field's length. */
const text = (maxLength: number) =>
  fc.stringMatching(new RegExp(`^[A-Za-z0-9ÄÖÜäöüß][A-Za-z0-9ÄÖÜäöüß ,.!?'&-]{0,${Math.min(maxLength, 60) - 1}}$`));
const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });

const link = fc.record({
  label: text(80),
  url: fc.constantFrom('/about', 'https://example.com/x', '/events?x=1'),
  openInNewTab: fc.boolean(),
});

/** A richtext document in the normal form reads give: paragraphs and headings of one text each, marks in order. */
const MARKS = ['bold', 'italic', 'underline', 'strike', 'code'] as const;
const inline = fc.record({ text: text(40), marks: fc.subarray([...MARKS]) }).map(({ text: value, marks }) => ({
  type: 'text',
  text: value,
  ...(marks.length ? { marks: marks.map((type) => ({ type })) } : {}),
}));
const block = fc.oneof(
  inline.map((node) => ({ type: 'paragraph', content: [node] })),
  fc.tuple(fc.integer({ min: 1, max: 6 }), inline).map(([level, node]) => ({ type: 'heading', attrs: { level }, content: [node] })),
);
const richtext = fc.array(block, { minLength: 1, maxLength: 4 }).map((content) => ({ type: 'doc', content }));

const section = fc.oneof(
  fc
    .record({ heading: text(120), subheading: optional(text(300)), image: optional(fc.nat({ max: 5 })), cta: optional(link) })
    .map((attributes) => ({ type: COMPONENT.hero, attributes })),
  richtext.map((body) => ({ type: COMPONENT.richText, attributes: { body } })),
  fc
    .record({ images: fc.integer({ min: 1, max: 6 }), caption: optional(text(300)) })
    .map((attributes) => ({ type: COMPONENT.imageGallery, attributes })),
  fc
    .record({ text: text(200), link, style: fc.constantFrom('primary', 'secondary', 'subtle') })
    .map((attributes) => ({ type: COMPONENT.callToAction, attributes })),
  fc
    .record({ heading: optional(text(120)), events: fc.integer({ min: 0, max: 6 }) })
    .map((attributes) => ({ type: COMPONENT.relatedEvents, attributes })),
);

type Section = { type: string; attributes: Record<string, any> };

/** The drawn numbers -> the asset and event ids they stand for (known only once the app is up). */
const concrete = (drawn: Section, random: number): Section => {
  const { type, attributes } = drawn;
  const pick = (ids: string[], count: number) => [...ids.slice(random % ids.length), ...ids.slice(0, random % ids.length)].slice(0, count);
  if (type === COMPONENT.hero)
    return { type, attributes: { ...attributes, image: attributes.image === null ? null : imageIds[attributes.image % imageIds.length] } };
  if (type === COMPONENT.imageGallery) return { type, attributes: { ...attributes, images: pick(imageIds, attributes.images) } };
  if (type === COMPONENT.relatedEvents) return { type, attributes: { ...attributes, events: pick(eventIds, attributes.events) } };
  return drawn;
};

/** What reads show, with assets and references named by their id: the shape the zone was sent in. */
const byIds = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(byIds);
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  if (typeof object.id === 'string' && ('url' in object || 'collection' in object)) return object.id;
  return Object.fromEntries(Object.entries(object).map(([member, inner]) => [member, byIds(inner)]));
};

const zone = fc.array(fc.tuple(section, fc.nat()), { maxLength: 10 }).map((drawn) => drawn.map(([one, random]) => ({ one, random })));

test('a dynamic zone of random sections survives a PATCH and a read unchanged', async () => {
  await fc.assert(
    fc.asyncProperty(zone, async (drawn) => {
      const sections = drawn.map(({ one, random }) => concrete(one as Section, random));
      const res = await api.patch(`${PAGES}/${target}`, key.auth, resourceDocument('pages', { sections }));
      expect([res.status, res.body.errors]).toEqual([200, undefined]);
      expect(byIds(res.body.data.attributes.sections)).toEqual(sections);
      const read = await api.get(`${PAGES}/${target}`, key.auth);
      expect(byIds(read.body.data.attributes.sections)).toEqual(sections);
    }),
    { numRuns: 25 },
  );
});

test('a dynamic zone of random sections survives a POST and a read unchanged', async () => {
  let n = 0;
  await fc.assert(
    fc.asyncProperty(zone, async (drawn) => {
      const sections = drawn.map(({ one, random }) => concrete(one as Section, random));
      n += 1;
      const res = await api.post(PAGES, key.auth, resourceDocument('pages', { title: `Property page ${n}`, sections }));
      expect([res.status, res.body.errors]).toEqual([201, undefined]);
      const read = await api.get(`${PAGES}/${res.body.data.id}`, key.auth);
      expect(byIds(read.body.data.attributes.sections)).toEqual(sections);
    }),
    { numRuns: 10 },
  );
});

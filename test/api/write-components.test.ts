/**
 * Writing components and dynamic zones through /api/v2 (contract section 15): POST and PATCH take the
 * shapes reads give (a component object, a repeatable list, a zone of `{ type, attributes }`), with media,
 * relations, richtext and nested components inside; Strapi's validation applies, and its refusals point
 * into the nested value; PATCH replaces a component field whole; every refusal leaves the database as it
 * was. On the demo content (pages with sections, events with SEO), on SQLite and PostgreSQL.
 */
import type { Core } from '@strapi/strapi';
import { COMPONENT } from '../../src/seed/plan/sections';
import { UID } from '../../src/seed/plan/types';
import { bootApp, type TestApp } from '../helpers/app';
import { uploadDocument } from '../helpers/fixtures';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { listenOnce, resourceDocument, tableSnapshot, writer, type Answer } from '../helpers/writes';

const PAGES = '/api/v2/cms/city-guide/pages';
const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
const ALL = { actions: ['read', 'create', 'update', 'delete'], read: '*', write: '*' };

/** The component tables of the demo: a refused write leaves them (and the pages) exactly as they were. */
const COMPONENT_UIDS = Object.values(COMPONENT);

let app: TestApp;
let s: Core.Strapi;
let api: ReturnType<typeof writer>;
let editor: { auth: string };
let noSections: { auth: string };
let pagesOnly: { auth: string };
let images: { id: string }[];
let pdf: string;
let events: { id: string; slug: string }[];

beforeAll(async () => {
  app = await checkResponses(await bootApp({}, { template: 'demo' }));
  s = app.strapi;
  api = writer(app);
  await listenOnce(app);
  editor = await createKey(s, { resources: { 'cms:city-guide/pages': ALL, 'native:events': ALL } });
  noSections = await createKey(s, {
    resources: { 'cms:city-guide/pages': { ...ALL, write: ['title', 'summary', 'seo'] }, 'native:events': ALL },
  });
  // Pages only: a related-events section's events lead to a resource this key is not given.
  pagesOnly = await createKey(s, { resources: { 'cms:city-guide/pages': ALL } });
  const files = (await s.db.query('plugin::upload.file').findMany({
    where: { mime: { $startsWith: 'image/' } },
    orderBy: { id: 'asc' },
    limit: 3,
  })) as { documentId: string }[];
  images = files.map((file) => ({ id: file.documentId }));
  pdf = (await uploadDocument(s, 'terms.pdf')).documentId;
  const read = await api.get('/api/v2/events?limit=3&sort=slug', editor.auth);
  events = read.body.data.map((record: { id: string; meta: { slug: string } }) => ({ id: record.id, slug: record.meta.slug }));
  expect(images).toHaveLength(3);
  expect(events).toHaveLength(3);
}, 600_000);

afterAll(async () => {
  await app?.close();
});

const doc = (type: string, text: string) => ({
  type: 'doc',
  content: [{ type, ...(type === 'heading' ? { attrs: { level: 2 } } : {}), content: [{ type: 'text', text }] }],
});
const paragraph = (text: string) => doc('paragraph', text);

/** One section of each type, as a client writes it: assets and events by id, a richtext document. */
const everySection = () => [
  {
    type: COMPONENT.hero,
    attributes: {
      heading: 'Welcome',
      subheading: 'To the city',
      image: images[0]!.id,
      cta: { label: 'Explore', url: '/explore', openInNewTab: true },
    },
  },
  { type: COMPONENT.richText, attributes: { body: paragraph('Some text.') } },
  { type: COMPONENT.imageGallery, attributes: { images: [images[1]!, images[2]!.id], caption: 'Views' } },
  {
    type: COMPONENT.callToAction,
    attributes: { text: 'Join us', link: { label: 'Sign up', url: 'https://example.com/join' }, style: 'secondary' },
  },
  { type: COMPONENT.relatedEvents, attributes: { heading: 'Coming up', events: [events[1]!.id, { slug: events[0]!.slug }] } },
];

/** What reads show for `everySection()`: the same values, assets and references as reads give them, defaults filled in. */
const expectEverySection = (sections: any[]) => {
  expect(sections.map((section) => section.type)).toEqual([
    COMPONENT.hero,
    COMPONENT.richText,
    COMPONENT.imageGallery,
    COMPONENT.callToAction,
    COMPONENT.relatedEvents,
  ]);
  expect(sections[0].attributes).toMatchObject({
    heading: 'Welcome',
    subheading: 'To the city',
    image: { id: images[0]!.id },
    cta: { label: 'Explore', url: '/explore', openInNewTab: true },
  });
  expect(sections[1].attributes).toEqual({ body: paragraph('Some text.') });
  expect(sections[2].attributes.images.map((image: { id: string }) => image.id)).toEqual([images[1]!.id, images[2]!.id]);
  expect(sections[3].attributes).toEqual({
    text: 'Join us',
    link: { label: 'Sign up', url: 'https://example.com/join', openInNewTab: false },
    style: 'secondary',
  });
  expect(sections[4].attributes).toEqual({
    heading: 'Coming up',
    events: [
      { id: events[1]!.id, slug: events[1]!.slug, collection: 'events' },
      { id: events[0]!.id, slug: events[0]!.slug, collection: 'events' },
    ],
  });
};

const SEO = { metaTitle: 'Welcome | City guide', metaDescription: 'All about the city.', ogImage: null, noIndex: false, keywords: 'city' };

/** Rows of every component table and of pages: a refused write must leave all of them as they were. */
const snapshot = () => tableSnapshot(s, [UID.page, ...COMPONENT_UIDS]);

/** Rows of one component table (how many values Strapi keeps). */
const componentRows = async (uid: string) => (await s.db.query(uid as never).findMany({})).length;

const createPage = async (title: string, attributes: Record<string, unknown> = {}) => {
  const res = await api.post(PAGES, editor.auth, resourceDocument('pages', { title, ...attributes }));
  expect([res.status, res.body.errors]).toEqual([201, undefined]);
  return res;
};

/** A 422 (or other status) with exactly these pointers, in order. */
const expectRefused = (res: Answer, status: number, pointers: string[], reason?: string) => {
  expect([res.status, res.body.errors?.map((error: { source?: { pointer?: string } }) => error.source?.pointer)]).toEqual([
    status,
    pointers,
  ]);
  if (reason) expect(res.body.errors[0].meta.reason).toBe(reason);
};

describe('the shapes reads give, written back', () => {
  test('a page with a section of every type and SEO: 201, and reads show what was written', async () => {
    const res = await createPage('Components everywhere', { sections: everySection(), seo: { ...SEO, ogImage: images[0] } });
    expectEverySection(res.body.data.attributes.sections);
    expect(res.body.data.attributes.seo).toMatchObject({ ...SEO, ogImage: { id: images[0]!.id } });
    const read = await api.get(`${PAGES}/${res.body.data.id}`, editor.auth);
    expect(read.body.data.attributes).toEqual(res.body.data.attributes);
    // Stored as Strapi stores components: rows of their own, in the zone's order, draft and published alike.
    for (const status of ['draft', 'published'] as const) {
      const stored = (await s.documents(UID.page).findOne({
        documentId: res.body.data.id,
        status,
        populate: { sections: true, seo: true },
      } as never)) as any;
      expect(stored.sections.map((section: { __component: string }) => section.__component)).toEqual(
        everySection().map((section) => section.type),
      );
      expect(stored.seo.metaTitle).toBe(SEO.metaTitle);
    }
  });

  test('PATCH replaces a zone whole: the sections sent, in their order, and the old values are gone', async () => {
    const created = await createPage('Replaced zone', { sections: everySection() });
    const heroes = await componentRows(COMPONENT.hero);
    const res = await api.patch(
      `${PAGES}/${created.body.data.id}`,
      editor.auth,
      resourceDocument('pages', {
        sections: [
          { type: COMPONENT.richText, attributes: { body: paragraph('Only this.') } },
          { type: COMPONENT.hero, attributes: { heading: 'Second' } },
        ],
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.sections).toEqual([
      { type: COMPONENT.richText, attributes: { body: paragraph('Only this.') } },
      { type: COMPONENT.hero, attributes: { heading: 'Second', subheading: null, image: null, cta: null } },
    ]);
    // The replaced hero's rows (draft and published) are deleted, the new one's written: no orphans pile up.
    expect(await componentRows(COMPONENT.hero)).toBe(heroes);
  });

  test('PATCH replaces a component whole; null clears it; a repeatable empty list clears a zone', async () => {
    const created = await createPage('SEO page', { seo: SEO, sections: everySection() });
    const partial = await api.patch(
      `${PAGES}/${created.body.data.id}`,
      editor.auth,
      resourceDocument('pages', { seo: { metaTitle: 'Only a title' } }),
    );
    expect(partial.status).toBe(200);
    expect(partial.body.data.attributes.seo).toEqual({
      metaTitle: 'Only a title',
      metaDescription: null,
      ogImage: null,
      noIndex: false,
      keywords: null,
    });
    const cleared = await api.patch(
      `${PAGES}/${created.body.data.id}`,
      editor.auth,
      resourceDocument('pages', { seo: null, sections: [] }),
    );
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.attributes).toMatchObject({ seo: null, sections: [] });
  });

  test('a PATCH that names no component field leaves them as they were', async () => {
    const created = await createPage('Untouched', { seo: SEO, sections: everySection() });
    const res = await api.patch(`${PAGES}/${created.body.data.id}`, editor.auth, resourceDocument('pages', { summary: 'New summary.' }));
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.sections).toEqual(created.body.data.attributes.sections);
    expect(res.body.data.attributes.seo).toEqual(created.body.data.attributes.seo);
  });

  test("an event's localized SEO is written in the write's locale only", async () => {
    const event = events[2]!;
    const before = await api.get(`/api/v2/events/${event.id}?locale=en`, editor.auth);
    const res = await api.patch(
      `/api/v2/events/${event.id}?locale=de`,
      editor.auth,
      resourceDocument('events', { seo: { metaTitle: 'Auf Deutsch', noIndex: true } }),
    );
    // The demo localizes every event it publishes in German too.
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.seo).toMatchObject({ metaTitle: 'Auf Deutsch', noIndex: true });
    const after = await api.get(`/api/v2/events/${event.id}?locale=en`, editor.auth);
    expect(after.body.data.attributes.seo).toEqual(before.body.data.attributes.seo);
  });
});

describe('refusals point into the nested value, and change nothing', () => {
  let target: string;
  beforeAll(async () => {
    target = (await createPage('Refusals', { sections: everySection(), seo: SEO })).body.data.id;
  });

  const cases: [string, () => Record<string, unknown>, number, string[], string?][] = [
    ['a zone that is not an array', () => ({ sections: { type: COMPONENT.hero } }), 422, ['/data/attributes/sections']],
    ['an entry that is not an object', () => ({ sections: [everySection()[1], 'hero'] }), 422, ['/data/attributes/sections/1']],
    ['an entry with a stray member', () => ({ sections: [{ ...everySection()[1], id: 4 }] }), 422, ['/data/attributes/sections/0/id']],
    ['an entry without a type', () => ({ sections: [{ attributes: { heading: 'x' } }] }), 422, ['/data/attributes/sections/0/type']],
    [
      'an unknown component type',
      () => ({ sections: [{ type: 'sections.carousel', attributes: {} }] }),
      422,
      ['/data/attributes/sections/0/type'],
    ],
    [
      'a component the zone does not allow',
      () => ({ sections: [{ type: COMPONENT.seo, attributes: { metaTitle: 'x' } }] }),
      422,
      ['/data/attributes/sections/0/type'],
    ],
    [
      'attributes that are not an object',
      () => ({ sections: [{ type: COMPONENT.hero, attributes: [] }] }),
      422,
      ['/data/attributes/sections/0/attributes'],
    ],
    [
      'a field the component does not have',
      () => ({ sections: [{ type: COMPONENT.hero, attributes: { heading: 'x', colour: 'red' } }] }),
      422,
      ['/data/attributes/sections/0/attributes/colour'],
    ],
    [
      'a value of the wrong type',
      () => ({ sections: [everySection()[1], { type: COMPONENT.hero, attributes: { heading: 5 } }] }),
      422,
      ['/data/attributes/sections/1/attributes/heading'],
    ],
    [
      'a nested component of the wrong shape',
      () => ({ sections: [{ type: COMPONENT.hero, attributes: { heading: 'x', cta: 'go' } }] }),
      422,
      ['/data/attributes/sections/0/attributes/cta'],
    ],
    [
      'a wrong value in a nested component',
      () => ({ sections: [{ type: COMPONENT.hero, attributes: { heading: 'x', cta: { label: 'x', url: 'y', openInNewTab: 'yes' } } }] }),
      422,
      ['/data/attributes/sections/0/attributes/cta/openInNewTab'],
    ],
    [
      'an asset that does not exist',
      () => ({ sections: [{ type: COMPONENT.hero, attributes: { heading: 'x', image: 'no-such-asset' } }] }),
      422,
      ['/data/attributes/sections/0/attributes/image'],
      'asset_not_found',
    ],
    [
      'an asset of a type the field does not take',
      () => ({ sections: [{ type: COMPONENT.imageGallery, attributes: { images: [images[0]!.id, pdf] } }] }),
      422,
      ['/data/attributes/sections/0/attributes/images/1'],
      'asset_type_not_allowed',
    ],
    [
      'an event that does not exist',
      () => ({ sections: [{ type: COMPONENT.relatedEvents, attributes: { events: [events[0]!.id, 'no-such-event'] } }] }),
      422,
      ['/data/attributes/sections/0/attributes/events/1'],
      'target_not_found',
    ],
    [
      'a change of a list instead of the list',
      () => ({ sections: [{ type: COMPONENT.relatedEvents, attributes: { events: { add: [events[0]!.id] } } }] }),
      422,
      ['/data/attributes/sections/0/attributes/events'],
    ],
    [
      'a richtext document that is not one',
      () => ({ sections: [{ type: COMPONENT.richText, attributes: { body: { type: 'doc', content: [{ type: 'table' }] } } }] }),
      422,
      ['/data/attributes/sections/0/attributes/body/content/0/type'],
      'richtext_invalid',
    ],
    ['a component that is not an object', () => ({ seo: ['x'] }), 422, ['/data/attributes/seo']],
    ['a field SEO does not have', () => ({ seo: { metaTitle: 'x', canonical: '/x' } }), 422, ['/data/attributes/seo/canonical']],
    // Strapi's own validation, pointed into the value.
    [
      'a required field left out (Strapi)',
      () => ({ sections: [everySection()[1], { type: COMPONENT.hero, attributes: { subheading: 'no heading' } }] }),
      422,
      ['/data/attributes/sections/1/attributes/heading'],
      'validation_failed',
    ],
    [
      'a text over its maximum length (Strapi)',
      () => ({ sections: [{ type: COMPONENT.hero, attributes: { heading: 'x'.repeat(121) } }] }),
      422,
      ['/data/attributes/sections/0/attributes/heading'],
    ],
    [
      'a nested required field left out (Strapi)',
      () => ({ sections: [{ type: COMPONENT.callToAction, attributes: { text: 'Go', link: { url: '/x' } } }] }),
      422,
      ['/data/attributes/sections/0/attributes/link/label'],
      'validation_failed',
    ],
    [
      'a value not among the options',
      () => ({ sections: [{ type: COMPONENT.callToAction, attributes: { text: 'Go', link: { label: 'x', url: '/x' }, style: 'loud' } }] }),
      422,
      ['/data/attributes/sections/0/attributes/style'],
    ],
    // Required media, relations and zones Strapi lets through empty: refused here, where they are (or would be) sent.
    [
      'a required gallery with no images',
      () => ({ sections: [everySection()[1], { type: COMPONENT.imageGallery, attributes: { images: [], caption: 'Empty' } }] }),
      422,
      ['/data/attributes/sections/1/attributes/images'],
    ],
    [
      'a required gallery with images null',
      () => ({ sections: [{ type: COMPONENT.imageGallery, attributes: { images: null } }] }),
      422,
      ['/data/attributes/sections/0/attributes/images'],
    ],
    [
      'a required gallery with its images left out',
      () => ({ sections: [{ type: COMPONENT.imageGallery, attributes: { caption: 'No images' } }] }),
      422,
      ['/data/attributes/sections/0/attributes/images'],
    ],
    // Required text and richtext sent as null: Strapi's refusal, pointed into the value; a required nested component too.
    [
      'a required heading sent as null (Strapi)',
      () => ({ sections: [{ type: COMPONENT.hero, attributes: { heading: null } }] }),
      422,
      ['/data/attributes/sections/0/attributes/heading'],
      'validation_failed',
    ],
    [
      'a required richtext body sent as null (Strapi)',
      () => ({ sections: [{ type: COMPONENT.richText, attributes: { body: null } }] }),
      422,
      ['/data/attributes/sections/0/attributes/body'],
      'validation_failed',
    ],
    [
      'a required nested link sent as null',
      () => ({ sections: [{ type: COMPONENT.callToAction, attributes: { text: 'Go', link: null } }] }),
      422,
      ['/data/attributes/sections/0/attributes/link'],
    ],
    [
      'a required SEO title left out (Strapi)',
      () => ({ seo: { metaDescription: 'No title' } }),
      422,
      ['/data/attributes/seo/metaTitle'],
      'validation_failed',
    ],
  ];

  // A rest parameter: jest takes a test function with more parameters than its row has as one that wants `done`.
  test.each(cases)('%s: refused, nothing written', async (...row) => {
    const [, attributesOf, status, pointers, reason] = row;
    const attributes = attributesOf();
    const before = await snapshot();
    for (const [method, path] of [
      ['patch', `${PAGES}/${target}`],
      ['post', PAGES],
    ] as const) {
      const res = await api[method](
        path,
        editor.auth,
        resourceDocument('pages', method === 'post' ? { title: 'Never', ...attributes } : attributes),
      );
      expectRefused(res, status, pointers, reason);
      expect(JSON.stringify(res.body)).not.toMatch(/__component|components_|stack/);
    }
    expect(await snapshot()).toEqual(before);
  });

  test('one refusal per problem, at most 20, all from one write', async () => {
    const sections = Array.from({ length: 30 }, () => ({ type: COMPONENT.hero, attributes: { heading: 7 } }));
    const res = await api.patch(`${PAGES}/${target}`, editor.auth, resourceDocument('pages', { sections }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toHaveLength(20);
    expect(res.body.errors[19].source.pointer).toBe('/data/attributes/sections/19/attributes/heading');
  });

  test('more component values than one write takes: 422, before anything is looked up', async () => {
    const sections = Array.from({ length: 201 }, () => ({ type: COMPONENT.richText, attributes: { body: paragraph('x') } }));
    const res = await api.patch(`${PAGES}/${target}`, editor.auth, resourceDocument('pages', { sections }));
    expectRefused(res, 422, ['/data/attributes/sections/200']);
    expect(res.body.errors[0].detail).toMatch(/more than 200 component values/);
  });

  test('a component field the key may not write is refused as a whole', async () => {
    const res = await api.patch(`${PAGES}/${target}`, noSections.auth, resourceDocument('pages', { sections: [] }));
    expectRefused(res, 422, ['/data/attributes/sections'], 'field_not_writable');
  });

  test('a zone holding a relation the key cannot see is not writable: its links would be dropped unseen', async () => {
    const res = await api.patch(
      `${PAGES}/${target}`,
      pagesOnly.auth,
      resourceDocument('pages', { sections: [{ type: COMPONENT.hero, attributes: { heading: 'x' } }] }),
    );
    expectRefused(res, 422, ['/data/attributes/sections'], 'field_not_writable');
    expect(JSON.stringify(res.body)).not.toMatch(/event/i);
    const seo = await api.patch(`${PAGES}/${target}`, pagesOnly.auth, resourceDocument('pages', { seo: SEO }));
    expect(seo.status).toBe(200);
  });
});

describe('atomic operations', () => {
  const post = async (body: unknown) => {
    const res = await app
      .http()
      .post('/api/v2/operations')
      .set('Authorization', editor.auth)
      .set('Content-Type', ATOMIC)
      .send(JSON.stringify(body));
    return { status: res.status, body: res.body } as Answer;
  };

  test('pages with sections in one request; a nested refusal points into its operation and rolls back all', async () => {
    const ok = await post({
      'atomic:operations': [
        {
          op: 'add',
          href: '/cms/city-guide/pages',
          data: { type: 'pages', lid: 'p', attributes: { title: 'Atomic one', sections: everySection() } },
        },
        {
          op: 'update',
          href: '/cms/city-guide/pages',
          ref: { type: 'pages', lid: 'p' },
          data: { type: 'pages', attributes: { seo: SEO } },
        },
      ],
    });
    expect(ok.status).toBe(200);
    expectEverySection(ok.body['atomic:results'][1].data.attributes.sections);
    expect(ok.body['atomic:results'][1].data.attributes.seo).toEqual(SEO);

    const before = await snapshot();
    const refused = await post({
      'atomic:operations': [
        {
          op: 'add',
          href: '/cms/city-guide/pages',
          data: { type: 'pages', attributes: { title: 'Atomic two', sections: everySection() } },
        },
        {
          op: 'add',
          href: '/cms/city-guide/pages',
          data: {
            type: 'pages',
            attributes: { title: 'Atomic three', sections: [everySection()[0], { type: COMPONENT.hero, attributes: {} }] },
          },
        },
      ],
    });
    expectRefused(refused, 422, ['/atomic:operations/1/data/attributes/sections/1/attributes/heading'], 'validation_failed');
    expect(await snapshot()).toEqual(before);
  });

  test('a related-events section may name an event added earlier in the request by its lid', async () => {
    const res = await post({
      'atomic:operations': [
        {
          op: 'add',
          data: { type: 'events', lid: 'e', attributes: { title: 'Lid event', startsAt: '2027-07-01T18:00:00Z', category: 'concert' } },
        },
        {
          op: 'add',
          href: '/cms/city-guide/pages',
          data: {
            type: 'pages',
            attributes: {
              title: 'Lid page',
              sections: [{ type: COMPONENT.relatedEvents, attributes: { events: [{ lid: 'e' }, events[0]!.id] } }],
            },
          },
        },
      ],
    });
    expect(res.status).toBe(200);
    const [event, page] = res.body['atomic:results'];
    expect(page.data.attributes.sections[0].attributes.events.map((ref: { id: string }) => ref.id)).toEqual([event.data.id, events[0]!.id]);
  });

  test('a lid inside a component that names no earlier record: 422 at it', async () => {
    const res = await post({
      'atomic:operations': [
        {
          op: 'add',
          href: '/cms/city-guide/pages',
          data: {
            type: 'pages',
            attributes: { title: 'Bad lid', sections: [{ type: COMPONENT.relatedEvents, attributes: { events: [{ lid: 'nope' }] } }] },
          },
        },
      ],
    });
    expectRefused(res, 422, ['/atomic:operations/0/data/attributes/sections/0/attributes/events/0/lid'], 'lid_unknown');
  });
});

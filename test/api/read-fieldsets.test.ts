/**
 * Sparse fieldsets, `fields[type]=a,b` (JSON:API 1.1, contract section 14): collections, single records,
 * CMS collections and singletons, included records, field metadata, cursor links, the 400s (an unreadable
 * field answered byte for byte as an unknown one), the SQL a fieldset saves, and a property over random
 * grants and fieldsets.
 */
import fc from 'fast-check';
import { bootApp, type TestApp } from '../helpers/app';
import { BLOCKS, publish, uploadImage, website } from '../helpers/fixtures';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { createKey } from '../helpers/keys';
import { fewestStatements } from '../helpers/statements';
import { checkResponses, type OpenApiDocument } from '../helpers/openapi';

let app: TestApp;
const ids: Record<string, string> = {};

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  const s = app.strapi;
  const image = await uploadImage(s, 'fieldsets-cover.png');
  const hall = await publish(s, 'api::building.building', {
    name: 'Hall',
    slug: 'hall',
    city: 'SECRET-CITY',
    floors: 2,
    description: BLOCKS,
  });
  const fest = await publish(s, 'api::festival.festival', { name: 'Fest', slug: 'fest', startsOn: '2027-06-01', endsOn: '2027-06-02' });
  ids.hall = hall.documentId;
  ids.fest = fest.documentId;
  for (let i = 0; i < 5; i += 1) {
    const event = await publish(s, 'api::event.event', {
      title: `Event ${i}`,
      slug: `event-${i}`,
      sort: i,
      summary: `Summary ${i}`,
      startsAt: `2027-06-0${i + 1}T10:00:00.000Z`,
      category: i % 2 ? 'talk' : 'concert',
      price: (i * 7) % 5,
      capacity: 100 + i,
      venue: hall.documentId,
      festival: i < 3 ? fest.documentId : null,
      cover: image.id,
      body: BLOCKS,
    });
    ids[`e${i}`] = event.documentId;
  }
  const site = await website(s, 'site-a', [
    { collection: 'pages', contentType: 'api::page.page', mode: 'collection' },
    { collection: 'home', contentType: 'api::homepage.homepage', mode: 'singleton' },
  ]);
  const other = await publish(s, 'api::page.page', {
    title: 'Other',
    slug: 'other',
    sort: 1,
    summary: 'Other summary',
    website: site.documentId,
  });
  await publish(s, 'api::page.page', {
    title: 'About',
    slug: 'about',
    sort: 0,
    summary: 'About summary',
    body: BLOCKS,
    website: site.documentId,
    relatedPages: [other.documentId],
  });
  await publish(s, 'api::homepage.homepage', { headline: 'Welcome', intro: BLOCKS, featuredEvents: [ids.e1, ids.e0] });
});
afterAll(async () => {
  await app?.close();
});

const GRANTS = {
  resources: {
    'native:events': {
      actions: ['read', 'update'],
      read: ['title', 'summary', 'startsAt', 'category', 'price', 'venue', 'festival', 'cover', 'body'],
      write: ['title', 'capacity'],
    },
    'native:buildings': { actions: ['read'], read: ['name', 'floors', 'description', 'events'] },
    'native:festivals': { actions: ['read'], read: ['name', 'events'] },
    'cms:site-a/pages': { actions: ['read'], read: ['title', 'summary', 'body', 'relatedPages'] },
    'cms:site-a/home': { actions: ['read'], read: ['headline', 'intro', 'featuredEvents'] },
  },
};

type Key = { auth: string };
type RecordDoc = { type: string; id: string; attributes: Record<string, any>; meta: Record<string, unknown> };

let shared: Key;
const keyOf = async () => (shared ??= await createKey(app.strapi, GRANTS));

const send = (key: Key, path: string) => app.http().get(path).set('Authorization', key.auth);

const get = async (key: Key, path: string, status = 200) => {
  const res = await send(key, path);
  if (res.status !== status) throw new Error(`${path}: expected ${status}, got ${res.status}\n${res.text}`);
  expectValidJsonApi(res.body);
  return res.body;
};

const fieldKeys = (body: { meta: { fields: { key: string }[] } }) => body.meta.fields.map((meta) => meta.key);

describe('what records show', () => {
  test('a collection shows the listed fields, in schema order, and meta.fields describes exactly those', async () => {
    const key = await keyOf();
    const body = await get(key, '/api/v2/events?fields[events]=venue,title&limit=2');
    expect(body.data.map((record: RecordDoc) => record.attributes)).toEqual([
      { title: 'Event 0', venue: { id: ids.hall, slug: 'hall', collection: 'buildings' } },
      { title: 'Event 1', venue: { id: ids.hall, slug: 'hall', collection: 'buildings' } },
    ]);
    expect(fieldKeys(body)).toEqual(['title', 'venue']);
    expect(body.meta.fields[0]).toMatchObject({ key: 'title', readable: true, writable: true, sortable: true });
    // System values stay: a fieldset covers attributes and relations, never meta.
    expect(body.data[0].meta).toEqual({
      slug: 'event-0',
      sort: 0,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      publishedAt: expect.any(Number),
    });
  });

  test('an empty fieldset shows records without attributes', async () => {
    const key = await keyOf();
    const body = await get(key, '/api/v2/events?fields[events]=&limit=3');
    expect(body.data.map((record: RecordDoc) => [record.id, record.attributes])).toEqual([
      [ids.e0, {}],
      [ids.e1, {}],
      [ids.e2, {}],
    ]);
    expect(body.meta.fields).toEqual([]);
  });

  test('without a fieldset, every readable field, and meta.fields also lists write-only fields', async () => {
    const key = await keyOf();
    const body = await get(key, '/api/v2/events/event-0');
    expect(Object.keys(body.data.attributes)).toEqual([
      'title',
      'summary',
      'startsAt',
      'category',
      'price',
      'venue',
      'festival',
      'cover',
      'body',
    ]);
    expect(fieldKeys(body)).toContain('capacity');
    // With a fieldset the metadata describes what is shown: the write-only field is not.
    expect(fieldKeys(await get(key, '/api/v2/events/event-0?fields[events]=title'))).toEqual(['title']);
  });

  test('a single record, media and richtext fields', async () => {
    const key = await keyOf();
    const body = await get(key, '/api/v2/events/event-2?fields[events]=cover,body');
    expect(Object.keys(body.data.attributes)).toEqual(['cover', 'body']);
    expect(body.data.attributes.cover).toMatchObject({ fileName: 'fieldsets-cover.png', mimeType: 'image/png' });
    expect(body.data.attributes.body).toMatchObject({ type: 'doc' });
    expect(fieldKeys(body)).toEqual(['cover', 'body']);
  });

  test('a CMS collection, a CMS record and a singleton take their own type', async () => {
    const key = await keyOf();
    const pages = await get(key, '/api/v2/cms/site-a/pages?fields[pages]=title');
    expect(pages.data.map((record: RecordDoc) => record.attributes)).toEqual([{ title: 'About' }, { title: 'Other' }]);
    const page = await get(key, '/api/v2/cms/site-a/pages/about?fields[pages]=summary,relatedPages');
    expect(page.data.attributes).toEqual({
      summary: 'About summary',
      relatedPages: [{ id: expect.any(String), slug: 'other', collection: 'pages' }],
    });
    const home = await get(key, '/api/v2/cms/site-a/home?fields[home]=headline');
    expect(home.data).toMatchObject({ type: 'home', attributes: { headline: 'Welcome' } });
    expect(Object.keys(home.data.attributes)).toEqual(['headline']);
    expect(fieldKeys(home)).toEqual(['headline']);
    // The JSON:API type is the collection slug; the native name does not apply there.
    const wrong = await get(key, '/api/v2/cms/site-a/home?fields[homepages]=headline', 400);
    expect(wrong.errors[0]).toMatchObject({ source: { parameter: 'fields[homepages]' }, meta: { reason: 'fields_type_invalid' } });
  });
});

describe('include', () => {
  test('included records take the fieldset of their type', async () => {
    const key = await keyOf();
    const body = await get(key, '/api/v2/events/event-0?include=venue&fields[events]=title,venue&fields[buildings]=name');
    expect(body.data.attributes).toEqual({
      title: 'Event 0',
      venue: { type: 'buildings', id: ids.hall, attributes: { name: 'Hall' }, meta: expect.any(Object) },
    });
  });

  test('an included relation is shown (expanded) whether or not the fieldset lists it, and meta.fields says so', async () => {
    const key = await keyOf();
    const body = await get(key, '/api/v2/events?include=venue&fields[events]=title&limit=1');
    expect(Object.keys(body.data[0].attributes)).toEqual(['title', 'venue']);
    expect(body.data[0].attributes.venue.type).toBe('buildings');
    expect(fieldKeys(body)).toEqual(['title', 'venue']);
  });

  test('one type at several levels takes one fieldset; each level shows the relations it expands', async () => {
    const key = await keyOf();
    const body = await get(key, '/api/v2/events/event-0?include=festival.events&fields[events]=title&fields[festivals]=name');
    // The top level expands festival; the events festival expands show the title alone.
    expect(Object.keys(body.data.attributes)).toEqual(['title', 'festival']);
    const festival = body.data.attributes.festival;
    expect(Object.keys(festival.attributes)).toEqual(['name', 'events']);
    expect(festival.attributes.events.map((event: RecordDoc) => event.attributes)).toEqual([
      { title: 'Event 0' },
      { title: 'Event 1' },
      { title: 'Event 2' },
    ]);
  });

  test('a type reached through include only when include asks for it', async () => {
    const key = await keyOf();
    const refused = await get(key, '/api/v2/events?fields[buildings]=name', 400);
    expect(refused.errors).toEqual([
      {
        status: '400',
        code: 'bad_request',
        title: 'Bad Request',
        detail: "'buildings' is not a type of the records this request returns (events).",
        source: { parameter: 'fields[buildings]' },
        meta: { reason: 'fields_type_invalid' },
      },
    ]);
    const nested = await get(key, '/api/v2/events?include=festival.events.venue&fields[x]=y', 400);
    expect(nested.errors[0].detail).toBe("'x' is not a type of the records this request returns (events, festivals, buildings).");
  });

  test('singletons and CMS records expand with fieldsets too', async () => {
    const key = await keyOf();
    const home = await get(key, '/api/v2/cms/site-a/home?include=featuredEvents&fields[home]=&fields[events]=category');
    expect(home.data.attributes).toEqual({
      featuredEvents: [
        expect.objectContaining({ id: ids.e1, attributes: { category: 'talk' } }),
        expect.objectContaining({ id: ids.e0, attributes: { category: 'concert' } }),
      ],
    });
    const page = await get(key, '/api/v2/cms/site-a/pages/about?include=relatedPages&fields[pages]=title');
    expect(page.data.attributes).toEqual({
      title: 'About',
      relatedPages: [expect.objectContaining({ type: 'pages', attributes: { title: 'Other' } })],
    });
  });
});

describe('paging, sorting and filtering', () => {
  test('links.next carries the fieldset, and every page is sparse', async () => {
    const key = await keyOf();
    const first = await get(key, '/api/v2/events?limit=2&fields[events]=title');
    const next = new URL(first.links.next);
    expect(next.searchParams.get('fields[events]')).toBe('title');
    const titles = first.data.map((record: RecordDoc) => record.attributes.title);
    let link: string | undefined = first.links.next;
    while (link) {
      const url = new URL(link);
      const page = await get(key, url.pathname + url.search);
      for (const record of page.data as RecordDoc[]) {
        expect(Object.keys(record.attributes)).toEqual(['title']);
        titles.push(record.attributes.title);
      }
      link = page.links.next;
    }
    expect(titles).toEqual(['Event 0', 'Event 1', 'Event 2', 'Event 3', 'Event 4']);
  });

  test('a cursor is not bound to the fieldset: the next page may ask for other fields', async () => {
    const key = await keyOf();
    const first = await get(key, '/api/v2/events?limit=2&fields[events]=title');
    const cursor = first.meta.page.nextCursor;
    const second = await get(key, `/api/v2/events?limit=2&fields[events]=category&cursor=${encodeURIComponent(cursor)}`);
    expect(second.data.map((record: RecordDoc) => record.attributes)).toEqual([{ category: 'concert' }, { category: 'talk' }]);
  });

  test('sorting and filtering on fields the fieldset leaves out', async () => {
    const key = await keyOf();
    const full = await get(key, '/api/v2/events?sort=-price,startsAt&filter[category]=concert');
    const sparse = await get(key, '/api/v2/events?sort=-price,startsAt&filter[category]=concert&fields[events]=title');
    expect(sparse.data.map((record: RecordDoc) => record.id)).toEqual(full.data.map((record: RecordDoc) => record.id));
    expect(sparse.data.map((record: RecordDoc) => record.attributes)).toEqual(
      full.data.map((record: RecordDoc) => ({ title: record.attributes.title })),
    );
    // Paged by the left-out sort key: the cursor still carries its values.
    const pages: string[] = [];
    let link: string | null = '/api/v2/events?sort=-price,startsAt&limit=1&fields[events]=title';
    while (link) {
      const page = await get(key, link);
      pages.push(...page.data.map((record: RecordDoc) => record.id));
      link = page.links.next ? new URL(page.links.next).pathname + new URL(page.links.next).search : null;
    }
    expect(pages).toEqual((await get(key, '/api/v2/events?sort=-price,startsAt')).data.map((record: RecordDoc) => record.id));
    // A relation filter on a relation left out.
    const atFest = await get(key, `/api/v2/events?filter[festival]=${ids.fest}&fields[events]=title`);
    expect(atFest.data.map((record: RecordDoc) => record.attributes.title)).toEqual(['Event 0', 'Event 1', 'Event 2']);
  });
});

describe('refusals: 400 naming the parameter', () => {
  test.each([
    ['fields=title', 'fields', 'fields_invalid'],
    ['fields[]=title', 'fields[]', 'fields_invalid'],
    ['fields[events][title]=1', 'fields[events][title]', 'fields_invalid'],
    ['fields[events=title', 'fields[events', 'fields_invalid'],
    ['fields[events]=title,', 'fields[events]', 'fields_invalid'],
    ['fields[events]=title,,venue', 'fields[events]', 'fields_invalid'],
    ['fields[events]=title,title', 'fields[events]', 'fields_repeated'],
    ['fields[events]=title&fields[events]=venue', 'fields[events]', 'parameter_repeated'],
    [`fields[events]=${Array.from({ length: 101 }, (_, i) => `f${i}`).join(',')}`, 'fields[events]', 'fields_limit'],
    ['fields[nosuch]=title', 'fields[nosuch]', 'fields_type_invalid'],
    ['fields[events]=nosuch', 'fields[events]', 'fields_field_invalid'],
    ['fields[events]=title%20', 'fields[events]', 'fields_field_invalid'],
  ])('%s', async (query, parameter, reason) => {
    const key = await keyOf();
    for (const path of ['/api/v2/events', '/api/v2/events/event-0']) {
      const body = await get(key, `${path}?${query}`, 400);
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0]).toMatchObject({ status: '400', code: 'bad_request', source: { parameter }, meta: { reason } });
    }
  });

  /** The whole error document with the name sent replaced, as text. */
  const answer = async (key: Key, path: string, name: string) => {
    const res = await send(key, path);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/vnd\.api\+json/);
    return res.text.replaceAll(name, '<name>');
  };

  test('a field the key cannot read is answered byte for byte as one that does not exist', async () => {
    const key = await keyOf();
    const unknown = await answer(key, '/api/v2/events?fields[events]=nosuch', 'nosuch');
    // capacity: write-only; endsAt, soldOut: not granted at all.
    for (const name of ['capacity', 'endsAt', 'soldOut']) {
      expect(await answer(key, `/api/v2/events?fields[events]=${name}`, name)).toBe(unknown);
    }
    // And for an included type: city exists on buildings, this key cannot read it.
    const unknownIncluded = await answer(key, '/api/v2/events?include=venue&fields[buildings]=nosuch', 'nosuch');
    expect(await answer(key, '/api/v2/events?include=venue&fields[buildings]=city', 'city')).toBe(unknownIncluded);
    // A resource the key has no grant on is answered as one that does not exist.
    const unknownType = await answer(key, '/api/v2/events?fields[nosuch]=x', 'nosuch');
    expect(await answer(key, '/api/v2/events?fields[products]=x', 'products')).toBe(unknownType);
  });

  test('a relation whose target is not exposed is not a field', async () => {
    const key = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: ['title', 'venue'] } } });
    const hidden = await answer(key, '/api/v2/events?fields[events]=venue', 'venue');
    expect(await answer(key, '/api/v2/events?fields[events]=nosuch', 'nosuch')).toBe(hidden);
  });

  test('problems are reported together, and nothing is read', async () => {
    const key = await keyOf();
    const body = await get(key, '/api/v2/events?fields[events]=nosuch&sort=nope&fields[x]=y', 400);
    expect(body.errors.map((error: { source: { parameter: string } }) => error.source.parameter)).toEqual([
      'fields[events]',
      'sort',
      'fields[x]',
    ]);
  });
});

describe('SQL', () => {
  // The read's own statements: the fewest of three rounds (a timer's statement only ever adds one).
  const statements = (key: Key, path: string): Promise<string[]> => fewestStatements(app.strapi, () => get(key, path));
  const pageQueries = (sqls: string[]) => sqls.filter((sql) => /^select .* from [`"]events[`"]/i.test(sql));
  const mentions = (sql: string, column: string) => new RegExp(`[\`"]events[\`"]\\.[\`"]${column}[\`"]`).test(sql);

  test('a field left out is not selected, and its relation and media queries are not run', async () => {
    const key = await keyOf();
    await get(key, '/api/v2/events?limit=1');
    await app.flushKeyUse();

    const full = await statements(key, '/api/v2/events');
    const [fullPage] = pageQueries(full);
    expect(fullPage).toBeDefined();
    for (const column of ['title', 'summary', 'body']) expect(mentions(fullPage!, column)).toBe(true);
    expect(full.some((sql) => /files_related_mph/.test(sql))).toBe(true);
    expect(full.some((sql) => /events_venue_lnk/.test(sql))).toBe(true);

    const sparse = await statements(key, '/api/v2/events?fields[events]=title');
    const [sparsePage] = pageQueries(sparse);
    expect(mentions(sparsePage!, 'title')).toBe(true);
    // The richtext and text columns are not read at all, nor the files or the relation links.
    for (const column of ['summary', 'body', 'price', 'category']) expect(mentions(sparsePage!, column)).toBe(false);
    expect(sparse.some((sql) => /files_related_mph/.test(sql))).toBe(false);
    expect(sparse.some((sql) => /_lnk/.test(sql))).toBe(false);
    expect(sparse.length).toBeLessThan(full.length);
  });

  test('the sort keys are read for the cursor, even when left out', async () => {
    const key = await keyOf();
    const sqls = await statements(key, '/api/v2/events?sort=-price&limit=2&fields[events]=title');
    const [page] = pageQueries(sqls);
    expect(mentions(page!.split(/ from /i)[0]!, 'price')).toBe(true);
    expect(mentions(page!, 'body')).toBe(false);
  });

  test('an included level reads only its fieldset', async () => {
    const key = await keyOf();
    const sqls = await statements(key, '/api/v2/events/event-0?include=venue&fields[events]=title&fields[buildings]=name');
    const buildings = sqls.filter((sql) => /^select .* from [`"]buildings[`"]/i.test(sql));
    expect(buildings).toHaveLength(1);
    expect(/[`"]buildings[`"]\.[`"]name[`"]/.test(buildings[0]!)).toBe(true);
    expect(/[`"]buildings[`"]\.[`"]description[`"]/.test(buildings[0]!)).toBe(false);
  });
});

test('the served OpenAPI document lists fields[type] with only readable fields', async () => {
  const key = await keyOf();
  const doc = (await app.http().get('/api/v2/openapi.json').set('Authorization', key.auth)).body as OpenApiDocument;
  const parameters = doc.paths['/events']!.get!.parameters!;
  const events = parameters.find((parameter) => parameter.name === 'fields[events]') as unknown as {
    style: string;
    explode: boolean;
    schema: { items: { enum: string[] } };
  };
  expect(events).toMatchObject({ style: 'form', explode: false });
  expect(events.schema.items.enum).toEqual(['title', 'summary', 'startsAt', 'category', 'price', 'venue', 'festival', 'cover', 'body']);
  expect(parameters.map((parameter) => parameter.name).filter((name) => name?.startsWith('fields['))).toEqual([
    'fields[events]',
    'fields[buildings]',
    'fields[festivals]',
  ]);
  const buildings = parameters.find((parameter) => parameter.name === 'fields[buildings]') as unknown as {
    schema: { items: { enum: string[] } };
  };
  expect(buildings.schema.items.enum).not.toContain('city');
  const home = doc.paths['/cms/site-a/home']!.get!.parameters!.map((parameter) => parameter.name);
  expect(home).toEqual(expect.arrayContaining(['fields[home]', 'fields[events]']));
});

describe('property: random grants, random fieldsets', () => {
  const FIELDS: Record<string, string[]> = {
    events: ['title', 'summary', 'startsAt', 'category', 'price', 'capacity', 'venue', 'festival', 'cover', 'body'],
    buildings: ['name', 'city', 'floors', 'description', 'events'],
    festivals: ['name', 'startsOn', 'events'],
  };
  // Mostly grants and fieldsets that pass every other check, so that most requests reach the fieldsets.
  const readArb = (fields: string[]) =>
    fc.oneof({ weight: 2, arbitrary: fc.constant(fields) }, { weight: 1, arbitrary: fc.subarray(fields) });
  const grantsArb = fc.record({
    events: fc.record({ actions: fc.constantFrom(['read'], ['read', 'create']), read: readArb(FIELDS.events!) }),
    buildings: fc.record({ actions: fc.constantFrom(['read'], ['read'], ['create'], []), read: readArb(FIELDS.buildings!) }),
    festivals: fc.record({ actions: fc.constantFrom(['read'], ['read'], ['create'], []), read: readArb(FIELDS.festivals!) }),
  });
  /** The types an include returns, events first. */
  const TYPES: Record<string, string[]> = {
    none: ['events'],
    venue: ['events', 'buildings'],
    'festival.events': ['events', 'festivals'],
    'venue,festival': ['events', 'buildings', 'festivals'],
  };
  const fieldsetArb = (types: string[]) =>
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc.constantFrom(...types).chain((type) => fc.tuple(fc.constant(type), fc.subarray(FIELDS[type]!, { maxLength: 3 }))),
      },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('events', 'buildings', 'nosuch'), fc.constant(['nosuch'])) },
    );
  const requestArb = fc.constantFrom('none', 'none', 'venue', 'festival.events', 'venue,festival').chain((include) =>
    fc.record({
      path: fc.constantFrom('/api/v2/events?limit=3', '/api/v2/events/event-1', '/api/v2/events?limit=2&sort=-startsAt'),
      include: fc.constant(include === 'none' ? null : include),
      fieldsets: fc.uniqueArray(fieldsetArb(TYPES[include]!), { maxLength: 2, selector: ([type]) => type }),
    }),
  );

  /** Where each relation leads: a relation is a field only while its target is exposed to the key. */
  const RELATIONS: Record<string, Record<string, string>> = {
    events: { venue: 'buildings', festival: 'festivals' },
    buildings: { events: 'events' },
    festivals: { events: 'events' },
  };

  type Grants = Record<string, { actions: readonly string[]; read: readonly string[] }>;
  const readableOf = (grants: Grants, type: string) =>
    new Set(
      (grants[type]?.actions.includes('read') ? grants[type]!.read : []).filter((field) => {
        const target = RELATIONS[type]?.[field];
        return target === undefined || grants[target]!.actions.length > 0;
      }),
    );

  test('never a 500, never an unreadable field, and records show what was asked', async () => {
    await fc.assert(
      fc.asyncProperty(grantsArb, requestArb, async (grants, request) => {
        const key = await createKey(app.strapi, {
          resources: Object.fromEntries(Object.entries(grants).map(([slug, grant]) => [`native:${slug}`, grant])),
        });
        const params = new URLSearchParams();
        if (request.include) params.set('include', request.include);
        for (const [type, names] of request.fieldsets) params.set(`fields[${type}]`, names.join(','));
        const path = `${request.path}${request.path.includes('?') ? '&' : '?'}${params}`;
        const res = await send(key, path);
        expectValidJsonApi(res.body);
        expect([200, 400]).toContain(res.status);
        // Values of a field the key cannot read never leave, whatever the status.
        if (!readableOf(grants, 'buildings').has('city')) expect(res.text).not.toContain('SECRET-CITY');
        if (res.status === 400) {
          const sent = new URL(path, 'http://x').searchParams;
          for (const error of res.body.errors) expect(sent.has(error.source.parameter)).toBe(true);
          return;
        }
        const asked = new Map(request.fieldsets.map(([type, names]) => [type, new Set(names)]));
        const includeTree = (request.include ?? '').split(',').filter(Boolean);
        /** Checks one record, given the include paths that continue from it. */
        const check = (record: RecordDoc, paths: string[][]) => {
          const readable = readableOf(grants, record.type);
          const expanded = new Set(paths.map((path) => path[0]!));
          for (const [field, value] of Object.entries(record.attributes)) {
            expect(readable.has(field)).toBe(true);
            const fieldset = asked.get(record.type);
            if (fieldset) expect(fieldset.has(field) || expanded.has(field)).toBe(true);
            const rest = paths.filter((path) => path[0] === field && path.length > 1).map((path) => path.slice(1));
            for (const nested of Array.isArray(value) ? value : [value]) {
              if (nested && typeof nested === 'object' && 'attributes' in nested) check(nested as RecordDoc, rest);
            }
          }
          const fieldset = asked.get(record.type);
          for (const field of readable) {
            if (!fieldset || fieldset.has(field) || expanded.has(field)) expect(record.attributes).toHaveProperty(field);
          }
        };
        const paths = includeTree.map((path) => path.split('.'));
        for (const record of Array.isArray(res.body.data) ? res.body.data : [res.body.data]) check(record, paths);
        const top = asked.get('events');
        for (const meta of res.body.meta.fields as { key: string; readable: boolean }[]) {
          if (top) expect(top.has(meta.key) || paths.some((path) => path[0] === meta.key)).toBe(true);
          if (top || meta.readable) expect(readableOf(grants, 'events').has(meta.key)).toBe(true);
        }
      }),
      { numRuns: 80 },
    );
  });
});

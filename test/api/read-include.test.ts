/**
 * include: relation references expanded in place, grants applied at every level (contract section 6).
 */
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { draft, publish, website } from '../helpers/fixtures';
import { fewestStatements } from '../helpers/statements';

let app: TestApp;
const ids: Record<string, string> = {};

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  const s = app.strapi;
  const hall = await publish(s, 'api::building.building', { name: 'Hall', slug: 'hall', city: 'Utrecht', floors: 2 });
  const hidden = await draft(s, 'api::building.building', { name: 'Hidden hall', slug: 'hidden-hall' });
  const fest = await publish(s, 'api::festival.festival', { name: 'Fest', slug: 'fest', startsOn: '2027-06-01', endsOn: '2027-06-02' });
  ids.hall = hall.documentId;
  ids.fest = fest.documentId;
  for (let i = 0; i < 6; i += 1) {
    const event = await publish(s, 'api::event.event', {
      title: `Event ${i}`,
      slug: `event-${i}`,
      sort: i,
      startsAt: '2027-06-01T10:00:00.000Z',
      category: 'talk',
      venue: i === 5 ? hidden.documentId : hall.documentId,
      festival: i < 3 ? fest.documentId : null,
      capacity: 10 * i,
    });
    ids[`e${i}`] = event.documentId;
  }
  const a = await website(s, 'site-a', [
    { collection: 'pages', contentType: 'api::page.page', mode: 'collection' },
    { collection: 'home', contentType: 'api::homepage.homepage', mode: 'singleton' },
  ]);
  const b = await website(s, 'site-b', [{ collection: 'pages', contentType: 'api::page.page', mode: 'collection' }]);
  const otherSitePage = await publish(s, 'api::page.page', { title: 'B page', slug: 'b-page', website: b.documentId });
  const sameSitePage = await publish(s, 'api::page.page', { title: 'A other', slug: 'a-other', website: a.documentId });
  await publish(s, 'api::page.page', {
    title: 'A page',
    slug: 'a-page',
    sort: 0,
    website: a.documentId,
    relatedPages: [sameSitePage.documentId, otherSitePage.documentId],
  });
  await publish(s, 'api::homepage.homepage', { headline: 'Home', featuredEvents: [ids.e1, ids.e0] });
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

const GRANTS = {
  resources: {
    'native:events': { actions: ['read'], read: ['title', 'venue', 'festival'] },
    'native:buildings': { actions: ['read'], read: ['name', 'events'] },
    'native:festivals': { actions: ['read'], read: ['name', 'events'] },
  },
};

test('references are replaced in place by the target record, cut to the target grant', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const body = await get(key, '/api/v2/events?include=venue&limit=1');
  expect(body.data[0].attributes.venue).toEqual({
    type: 'buildings',
    id: ids.hall,
    attributes: { name: 'Hall', events: expect.arrayContaining([{ id: ids.e0, slug: 'event-0', collection: 'events' }]) },
    meta: { slug: 'hall', sort: null, createdAt: expect.any(Number), updatedAt: expect.any(Number), publishedAt: expect.any(Number) },
  });
  // Not included: stays a reference.
  expect(body.data[0].attributes.festival).toEqual({ id: ids.fest, slug: 'fest', collection: 'festivals' });
  expect(JSON.stringify(body)).not.toMatch(/Utrecht|city|floors/);
});

test('nested paths up to three levels, with the grants of every level', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const body = await get(key, '/api/v2/events/event-0?include=festival.events.venue');
  const festival = body.data.attributes.festival;
  expect(festival.type).toBe('festivals');
  expect(festival.attributes.events.map((e: { id: string }) => e.id)).toEqual([ids.e0, ids.e1, ids.e2]);
  const nested = festival.attributes.events[1];
  expect(nested).toMatchObject({
    type: 'events',
    id: ids.e1,
    attributes: { title: 'Event 1', venue: { type: 'buildings', id: ids.hall } },
  });
  expect(nested.attributes.venue.attributes.events[0]).toEqual(expect.objectContaining({ collection: 'events' }));
  expect(nested.attributes).not.toHaveProperty('capacity');
});

test('several paths share prefixes', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const body = await get(key, '/api/v2/events/event-1?include=venue,festival,festival.events');
  expect(body.data.attributes.venue.type).toBe('buildings');
  expect(body.data.attributes.festival.attributes.events[0].type).toBe('events');
});

test('unpublished targets are never shown, neither as references nor expanded', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const body = await get(key, '/api/v2/events/event-5?include=venue');
  expect(body.data.attributes.venue).toBeNull();
  expect(JSON.stringify(body)).not.toContain('Hidden hall');
});

test('a target in another website is never shown', async () => {
  const key = await createKey(app.strapi, {
    resources: {
      'cms:site-a/pages': { actions: ['read'], read: ['title', 'relatedPages'] },
      'cms:site-b/pages': { actions: ['read'], read: ['title'] },
    },
  });
  const body = await get(key, '/api/v2/cms/site-a/pages/a-page?include=relatedPages');
  expect(body.data.attributes.relatedPages).toEqual([
    expect.objectContaining({ type: 'pages', attributes: { title: 'A other', relatedPages: [] } }),
  ]);
  expect(JSON.stringify(body)).not.toContain('B page');
  const references = await get(key, '/api/v2/cms/site-a/pages/a-page');
  expect(references.data.attributes.relatedPages).toEqual([{ id: expect.any(String), slug: 'a-other', collection: 'pages' }]);
});

test('singletons expand too', async () => {
  const key = await createKey(app.strapi, {
    resources: {
      'cms:site-a/home': { actions: ['read'], read: ['headline', 'featuredEvents'] },
      'native:events': { actions: ['read'], read: ['title'] },
    },
  });
  const body = await get(key, '/api/v2/cms/site-a/home?include=featuredEvents');
  expect(body.data.attributes.featuredEvents.map((e: { attributes: { title: string } }) => e.attributes.title)).toEqual([
    'Event 1',
    'Event 0',
  ]);
});

describe('what include refuses: 400 on the include parameter, the same answer whether or not the field exists', () => {
  test.each([
    ['capacity', 'unreadable field'],
    ['nosuch', 'unknown field'],
    ['title', 'not a relation'],
    ['festival.events.venue.events', 'four levels'],
    ['venue,venue', 'repeated'],
    ['a,b,c,d,e,f,g,h,i,j,k', 'eleven paths'],
    ['', 'empty'],
    ['venue.', 'empty segment'],
  ])('include=%s (%s)', async (include) => {
    const key = await createKey(app.strapi, GRANTS);
    const body = await get(key, `/api/v2/events?include=${encodeURIComponent(include)}`, 400);
    expect(body.errors[0]).toMatchObject({ code: 'bad_request', source: { parameter: 'include' } });
  });

  test('a relation whose target the key may not read cannot be included', async () => {
    const key = await createKey(app.strapi, {
      resources: {
        'native:events': { actions: ['read'], read: ['title', 'venue'] },
        'native:buildings': { actions: ['create'], write: ['name'] },
      },
    });
    const refused = await get(key, '/api/v2/events?include=venue', 400);
    const unknown = await get(key, '/api/v2/events?include=nosuch', 400);
    const strip = (body: { errors: { detail: string }[] }) =>
      body.errors.map((e) => ({ ...e, detail: e.detail.replace(/venue|nosuch/g, 'X') }));
    expect(strip(refused)).toEqual(strip(unknown));
    // The reference itself is still shown (the resource is exposed to the key).
    expect((await get(key, '/api/v2/events/event-0')).data.attributes.venue).toEqual({
      id: ids.hall,
      slug: 'hall',
      collection: 'buildings',
    });
  });
});

test('expansion is batched: a page of 5 costs the queries of a page of 1', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const count = async (path: string) => (await fewestStatements(app.strapi, () => get(key, path))).length;
  const include = 'include=venue,festival.events.venue';
  // The key's first use records its last-used time (once a minute): keep that write out of the count.
  await get(key, '/api/v2/events?limit=1');
  await app.flushKeyUse();
  const one = await count(`/api/v2/events?limit=1&${include}`);
  // Five of the six events: a page that reaches the last event with a sort value also looks for events
  // without one (one query more, whatever the page size; see records.page), which would blur the count.
  const five = await count(`/api/v2/events?limit=5&${include}`);
  expect(five).toBe(one);
  // The page of all six reaches the end of the events with a sort value: exactly one query more.
  expect(await count(`/api/v2/events?limit=6&${include}`)).toBe(one + 1);
  expect(one).toBeLessThan(20);
});

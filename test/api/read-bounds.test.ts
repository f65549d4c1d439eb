/**
 * Responses bounded before they are built (contract section 13): a to-many reference list shows at most
 * 100 references, the record's `meta.truncated` names the cut fields, and the rest is read with a filter.
 */
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { publish } from '../helpers/fixtures';
import { resourceDocument, writer } from '../helpers/writes';

const CAP = 100;
const EVENTS_IN_HALL = CAP + 3;

let app: TestApp;
const hallEvents = new Set<string>();
const ids: Record<string, string> = {};

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  const s = app.strapi;
  const hall = await publish(s, 'api::building.building', { name: 'Hall', slug: 'hall' });
  const shed = await publish(s, 'api::building.building', { name: 'Shed', slug: 'shed' });
  ids.hall = hall.documentId;
  ids.shed = shed.documentId;
  const fest = await publish(s, 'api::festival.festival', { name: 'Fest', slug: 'fest', startsOn: '2027-06-01', endsOn: '2027-06-02' });
  for (let i = 0; i < EVENTS_IN_HALL; i += 1) {
    const event = await publish(s, 'api::event.event', {
      title: `Event ${i}`,
      slug: `event-${i}`,
      startsAt: '2027-06-01T10:00:00.000Z',
      category: 'talk',
      venue: hall.documentId,
      festival: fest.documentId,
    });
    hallEvents.add(event.documentId);
  }
  // Three more buildings of 100 events, each with its festival: enough for include to exceed 1,000 records.
  for (let b = 0; b < 3; b += 1) {
    const building = await publish(s, 'api::building.building', { name: `Block ${b}`, slug: `block-${b}` });
    const festival = await publish(s, 'api::festival.festival', {
      name: `Fest ${b}`,
      slug: `fest-${b}`,
      startsOn: '2027-06-01',
      endsOn: '2027-06-02',
    });
    for (let i = 0; i < CAP; i += 1) {
      await publish(s, 'api::event.event', {
        title: `Block ${b} event ${i}`,
        slug: `block-${b}-event-${i}`,
        startsAt: '2027-06-01T10:00:00.000Z',
        category: 'talk',
        venue: building.documentId,
        festival: festival.documentId,
      });
    }
  }
  const small = await publish(s, 'api::event.event', {
    title: 'Small',
    slug: 'small',
    startsAt: '2027-06-01T10:00:00.000Z',
    category: 'talk',
    venue: shed.documentId,
  });
  ids.small = small.documentId;
  // 410 documents published one by one through Strapi: minutes on a shared machine, more on MariaDB, whose
  // content writes take turns (the journal's order lock, database/journal-order.ts).
}, 900_000);
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

type Ref = { id: string };

test('a to-many list shows the first 100 references and meta.truncated names the field', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const body = await get(key, '/api/v2/buildings/hall');
  const shown: Ref[] = body.data.attributes.events;
  expect(shown).toHaveLength(CAP);
  expect(new Set(shown.map((ref) => ref.id)).size).toBe(CAP);
  for (const ref of shown) expect(hallEvents.has(ref.id)).toBe(true);
  expect(body.data.meta.truncated).toEqual(['events']);
});

test('meta.truncated names only the fields a sparse fieldset shows', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const sparse = await get(key, '/api/v2/buildings/hall?fields[buildings]=name');
  expect(sparse.data.attributes).toEqual({ name: 'Hall' });
  expect(sparse.data.meta).not.toHaveProperty('truncated');
  const listed = await get(key, '/api/v2/buildings/hall?fields[buildings]=events');
  expect(listed.data.attributes.events).toHaveLength(CAP);
  expect(listed.data.meta.truncated).toEqual(['events']);
  // An included list is shown whether the fieldset names it or not, and is cut the same way.
  const included = await get(key, '/api/v2/buildings/hall?fields[buildings]=name&include=events&fields[events]=title');
  expect(included.data.attributes.events).toHaveLength(CAP);
  expect(Object.keys(included.data.attributes.events[0].attributes)).toEqual(['title']);
  expect(included.data.meta.truncated).toEqual(['events']);
});

test('a list within the cap is whole and the record has no meta.truncated', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const body = await get(key, '/api/v2/buildings/shed');
  expect(body.data.attributes.events).toEqual([{ id: ids.small, slug: 'small', collection: 'events' }]);
  expect(body.data.meta).not.toHaveProperty('truncated');
});

test('collections cut each record, and the whole list is read with a filter on the inverse relation', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const page = await get(key, '/api/v2/buildings?limit=10');
  const hall = page.data.find((record: { id: string }) => record.id === ids.hall);
  const shed = page.data.find((record: { id: string }) => record.id === ids.shed);
  expect(hall.meta.truncated).toEqual(['events']);
  expect(hall.attributes.events).toHaveLength(CAP);
  expect(shed.meta).not.toHaveProperty('truncated');

  const read = new Set<string>();
  let next: string | null = `/api/v2/events?filter[venue][eq]=${ids.hall}&limit=${CAP}`;
  while (next) {
    const body = await get(key, next);
    for (const record of body.data as Ref[]) read.add(record.id);
    next = body.links.next ? new URL(body.links.next).pathname + new URL(body.links.next).search : null;
  }
  expect(read).toEqual(hallEvents);

  // A festival's events through the other inverse relation, by the festival's slug (docs/api.md).
  const festival = new Set<string>();
  for (let next: string | null = `/api/v2/events?filter[festival][eq]=fest&limit=${CAP}`; next;) {
    const body = await get(key, next);
    for (const record of body.data as Ref[]) festival.add(record.id);
    next = body.links.next ? new URL(body.links.next).pathname + new URL(body.links.next).search : null;
  }
  expect(festival).toEqual(hallEvents);
});

test('include expands only the references the record shows', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const body = await get(key, '/api/v2/buildings/hall?include=events');
  const expanded: { type: string; id: string; attributes: { venue: Ref } }[] = body.data.attributes.events;
  expect(expanded).toHaveLength(CAP);
  for (const record of expanded) {
    expect(record.type).toBe('events');
    expect(record.attributes.venue.id).toBe(ids.hall);
  }
  expect(body.data.meta.truncated).toEqual(['events']);
});

test('a field the key may not read is never named in meta.truncated', async () => {
  const key = await createKey(app.strapi, {
    resources: { 'native:buildings': { actions: ['read'], read: ['name'] } },
  });
  const body = await get(key, '/api/v2/buildings/hall');
  expect(body.data.attributes).toEqual({ name: 'Hall' });
  expect(body.data.meta).not.toHaveProperty('truncated');
  expect(JSON.stringify(body)).not.toMatch(/events/);
});

// Five buildings: hall (103 events, 100 shown), shed (1) and three blocks (100 each), four festivals.
// events.venue.events,events.festival.events expands 401 + 5 + 401 + 4 + 400 = 1,211 records.
const DEEP = 'include=events.venue.events,events.festival.events';

test('an include that would expand more than 1,000 records is refused up front, naming a limit that fits', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const body = await get(key, `/api/v2/buildings?limit=10&${DEEP}`, 400);
  const [error] = body.errors;
  expect(error.status).toBe('400');
  expect(error.source).toEqual({ parameter: 'include' });
  expect(error.meta.reason).toBe('include_too_large');
  expect(error.detail).toContain('1211 records');
  const named = /limit=(\d+) or less/.exec(error.detail);
  expect(named).not.toBeNull();
  const limit = Number(named![1]);
  expect(limit).toBeGreaterThanOrEqual(1);
  expect(limit).toBeLessThan(5);
  // The limit named fits, and one more record would not.
  const fits = await get(key, `/api/v2/buildings?limit=${limit}&${DEEP}`);
  expect(fits.data).toHaveLength(limit);
  const over = await get(key, `/api/v2/buildings?limit=${limit + 1}&${DEEP}`, 400);
  expect(over.errors[0].meta.reason).toBe('include_too_large');
});

test('ordinary pages with include are not refused', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const body = await get(key, '/api/v2/buildings?limit=10&include=events');
  expect(body.data).toHaveLength(5);
  const events = await get(key, '/api/v2/events?limit=100&include=venue,festival');
  expect(events.data).toHaveLength(100);
});

test('a single record counts its own expansion: within the bound, answered with every list cut', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const one = await get(key, `/api/v2/buildings/hall?${DEEP}`);
  expect(one.data.attributes.events).toHaveLength(CAP);
  expect(one.data.attributes.events[0].attributes.venue.attributes.events).toHaveLength(CAP);
  expect(one.data.attributes.events[0].attributes.festival.attributes.events).toHaveLength(CAP);
  expect(one.data.attributes.events[0].attributes.festival.meta.truncated).toEqual(['events']);
});

test('a PATCH sending a whole to-many list for a field whose stored list is longer than the cap is 409', async () => {
  const key = await createKey(app.strapi, {
    resources: {
      'native:events': { actions: ['read'], read: ['title'] },
      'native:buildings': { actions: ['read', 'update'], read: ['name', 'events'], write: ['events'] },
    },
  });
  const api = writer(app);
  const refused = await api.patch('/api/v2/buildings/hall', key.auth, resourceDocument('buildings', { events: [ids.small] }));
  expect(refused.status).toBe(409);
  expect(refused.body.errors[0]).toMatchObject({
    status: '409',
    source: { pointer: '/data/attributes/events' },
    meta: { reason: 'relation_list_truncated' },
  });
  // Nothing was dropped: the list is as long as before.
  const after = await get(key, '/api/v2/buildings/hall');
  expect(after.data.attributes.events).toHaveLength(CAP);
  expect(after.data.meta.truncated).toEqual(['events']);
  const reader = await createKey(app.strapi, GRANTS);
  const read = new Set<string>();
  for (let next: string | null = `/api/v2/events?filter[venue][eq]=${ids.hall}&limit=${CAP}`; next;) {
    const body = await get(reader, next);
    for (const record of body.data as Ref[]) read.add(record.id);
    next = body.links.next ? new URL(body.links.next).pathname + new URL(body.links.next).search : null;
  }
  expect(read).toEqual(hallEvents);

  // A list within the cap is replaced as before.
  const shed = await api.patch('/api/v2/buildings/shed', key.auth, resourceDocument('buildings', { events: [] }));
  expect(shed.status).toBe(200);
  expect(shed.body.data.attributes.events).toEqual([]);
});

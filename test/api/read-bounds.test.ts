/**
 * Responses bounded before they are built (contract section 13): a to-many reference list shows at most
 * 100 references, the record's `meta.truncated` names the cut fields, and the rest is read with a filter.
 */
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { publish } from '../helpers/fixtures';

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
  for (let i = 0; i < EVENTS_IN_HALL; i += 1) {
    const event = await publish(s, 'api::event.event', {
      title: `Event ${i}`,
      slug: `event-${i}`,
      startsAt: '2027-06-01T10:00:00.000Z',
      category: 'talk',
      venue: hall.documentId,
    });
    hallEvents.add(event.documentId);
  }
  const small = await publish(s, 'api::event.event', {
    title: 'Small',
    slug: 'small',
    startsAt: '2027-06-01T10:00:00.000Z',
    category: 'talk',
    venue: shed.documentId,
  });
  ids.small = small.documentId;
}, 120_000);
afterAll(async () => {
  await app?.close();
});

const get = async (key: { auth: string }, path: string) => {
  const res = await app.http().get(path).set('Authorization', key.auth);
  if (res.status !== 200) throw new Error(`${path}: expected 200, got ${res.status}\n${res.text}`);
  expectValidJsonApi(res.body);
  return res.body;
};

const GRANTS = {
  resources: {
    'native:events': { actions: ['read'], read: ['title', 'venue'] },
    'native:buildings': { actions: ['read'], read: ['name', 'events'] },
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

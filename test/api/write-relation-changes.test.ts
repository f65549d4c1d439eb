/**
 * `{ "add": [...], "remove": [...] }` on a to-many relation field (contract section 13): a stored list is
 * changed in place, also one longer than reads show; adding a linked record or removing an unlinked one
 * changes nothing (JSON:API relationship semantics); every problem is a 422 pointing into `add` or
 * `remove`; creates take whole lists only. The change goes through the document service in the write's
 * transaction, with Idempotency-Key, and the OpenAPI document describes both shapes.
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Knex } from 'knex';
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses, type OpenApiDocument } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { ensureLocale, localize, publish } from '../helpers/fixtures';
import { resourceDocument, writer } from '../helpers/writes';
import { readModelOf } from '../../src/plugins/public-api/server/src/read/model';

const CAP = 100;
const EVENT = 'api::event.event';
const BUILDING = 'api::building.building';

let app: TestApp;
const events: string[] = [];
const loose: string[] = [];
let hall: { documentId: string };

const event = (slug: string, venue?: string) =>
  publish(app.strapi, EVENT, {
    title: slug,
    slug,
    startsAt: '2027-06-01T10:00:00.000Z',
    category: 'talk',
    ...(venue ? { venue } : {}),
  });

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  hall = await publish(app.strapi, BUILDING, { name: 'Hall', slug: 'hall' });
  // One past the cap and two more: reads show 100 of them and name the field in meta.truncated.
  for (let i = 0; i < CAP + 3; i += 1) events.push((await event(`hall-${i}`, hall.documentId)).documentId);
  for (let i = 0; i < 4; i += 1) loose.push((await event(`loose-${i}`)).documentId);
}, 300_000);
afterAll(async () => {
  await app?.close();
});

const WRITER = {
  resources: {
    'native:events': { actions: ['read'], read: ['title', 'venue'] },
    'native:buildings': { actions: ['read', 'create', 'update'], read: ['name', 'events'], write: ['name', 'events'] },
  },
};

const knex = (): Knex => app.strapi.db.connection as unknown as Knex;

/** The building's whole list as reads order it (the relation's order, then the link), published rows in English. */
const storedList = async (documentId: string): Promise<string[]> => {
  const join = readModelOf(app.strapi, BUILDING).relations.events!;
  const rows = (await knex()(`${join.table} as j`)
    .join('buildings as b', 'b.id', `j.${join.ownerColumn}`)
    .join('events as e', 'e.id', `j.${join.targetColumn}`)
    .select({ documentId: 'e.document_id' })
    .where('b.document_id', documentId)
    .whereNotNull('b.published_at')
    .whereNotNull('e.published_at')
    .where('e.locale', 'en')
    .orderBy(`j.${join.orderColumn!}`)
    .orderBy('j.id')) as { documentId: string }[];
  return rows.map((row) => row.documentId);
};

const change = (field: unknown, extra: Record<string, unknown> = {}) => resourceDocument('buildings', { events: field, ...extra });

test('a list longer than the cap takes add and remove: (stored ∪ add) \\ remove, the added ones at the end in order', async () => {
  const key = await createKey(app.strapi, WRITER);
  const api = writer(app);
  const before = await storedList(hall.documentId);
  expect(before).toHaveLength(CAP + 3);
  const removed = [before[5]!, before[CAP + 1]!];
  const res = await api.patch(
    '/api/v2/buildings/hall',
    key.auth,
    change({ add: [loose[0], { slug: 'loose-1' }, { id: before[7] }], remove: [{ id: removed[0] }, removed[1], { slug: 'loose-3' }] }),
  );
  expect(res.status).toBe(200);
  const after = await storedList(hall.documentId);
  expect(after).toEqual([...before.filter((id) => !removed.includes(id)), loose[0], loose[1]]);
  // The answer shows the first 100 of the new list and still names the cut field.
  expect(res.body.data.attributes.events.map((ref: { id: string }) => ref.id)).toEqual(after.slice(0, CAP));
  expect(res.body.data.meta.truncated).toEqual(['events']);
  // The removed events have no venue any more; the added ones have this one.
  const reader = await createKey(app.strapi, WRITER);
  const removedEvent = await api.get(`/api/v2/events/${removed[0]}`, reader.auth);
  expect(removedEvent.body.data.attributes.venue).toBeNull();
  const addedEvent = await api.get('/api/v2/events/loose-1', reader.auth);
  expect(addedEvent.body.data.attributes.venue.id).toBe(hall.documentId);
});

test('adding linked records and removing unlinked ones writes nothing, not even a date', async () => {
  const key = await createKey(app.strapi, WRITER);
  const api = writer(app);
  const before = await storedList(hall.documentId);
  const read = await api.get('/api/v2/buildings/hall', key.auth);
  const res = await api.patch('/api/v2/buildings/hall', key.auth, change({ add: [before[0], before[50]], remove: [loose[2]] }));
  expect(res.status).toBe(200);
  expect(res.body.data.meta.updatedAt).toBe(read.body.data.meta.updatedAt);
  expect(await storedList(hall.documentId)).toEqual(before);
  const empty = await api.patch('/api/v2/buildings/hall', key.auth, change({ add: [], remove: [] }));
  expect(empty.status).toBe(200);
  expect(await storedList(hall.documentId)).toEqual(before);
});

test('a short list takes the change too, in order', async () => {
  const key = await createKey(app.strapi, WRITER);
  const api = writer(app);
  const shed = await publish(app.strapi, BUILDING, { name: 'Shed', slug: 'shed' });
  const [a, b, c] = [(await event('shed-a', shed.documentId)).documentId, (await event('shed-b', shed.documentId)).documentId, loose[2]!];
  expect(await storedList(shed.documentId)).toEqual([a, b]);
  const res = await api.patch('/api/v2/buildings/shed', key.auth, change({ remove: [a], add: [c, 'shed-a'] }, { name: 'Shed 2' }));
  // `a` is both removed and added: refused, nothing written (the name neither).
  expect(res.status).toBe(422);
  expect(res.body.errors).toEqual([
    expect.objectContaining({ source: { pointer: '/data/attributes/events/remove/0' }, meta: { reason: 'target_added_and_removed' } }),
  ]);
  expect(await storedList(shed.documentId)).toEqual([a, b]);
  const ok = await api.patch('/api/v2/buildings/shed', key.auth, change({ remove: [a], add: [c] }, { name: 'Shed 2' }));
  expect(ok.status).toBe(200);
  expect(ok.body.data.attributes).toEqual({
    name: 'Shed 2',
    events: [
      { id: b, slug: 'shed-b', collection: 'events' },
      { id: c, slug: 'loose-2', collection: 'events' },
    ],
  });
  expect(ok.body.data.meta).not.toHaveProperty('truncated');
});

test('every problem is a 422 pointing into add or remove, and nothing is written', async () => {
  const key = await createKey(app.strapi, WRITER);
  const api = writer(app);
  const before = await storedList(hall.documentId);
  const cases: [unknown, { pointer: string; reason: string }[]][] = [
    [{}, [{ pointer: '/data/attributes/events', reason: 'value_invalid' }]],
    [{ add: 'x' }, [{ pointer: '/data/attributes/events/add', reason: 'value_invalid' }]],
    [{ remove: null }, [{ pointer: '/data/attributes/events/remove', reason: 'value_invalid' }]],
    [
      { add: [loose[3], 42, { id: '' }, null], replace: [] },
      [
        { pointer: '/data/attributes/events/replace', reason: 'value_invalid' },
        { pointer: '/data/attributes/events/add/1', reason: 'value_invalid' },
        { pointer: '/data/attributes/events/add/2/id', reason: 'value_invalid' },
        { pointer: '/data/attributes/events/add/3', reason: 'value_invalid' },
      ],
    ],
    [
      { 'a/b~c': 1 },
      [
        { pointer: '/data/attributes/events/a~1b~0c', reason: 'value_invalid' },
        { pointer: '/data/attributes/events', reason: 'value_invalid' },
      ],
    ],
    [
      { add: [{ id: loose[3], collection: 'buildings' }] },
      [{ pointer: '/data/attributes/events/add/0/collection', reason: 'value_invalid' }],
    ],
    [
      { add: ['no-such-event'], remove: [{ id: 'no-such-id' }] },
      [
        { pointer: '/data/attributes/events/add/0', reason: 'target_not_found' },
        { pointer: '/data/attributes/events/remove/0', reason: 'target_not_found' },
      ],
    ],
    [
      { add: [loose[3], 'loose-3'], remove: [before[0], before[0]] },
      [
        { pointer: '/data/attributes/events/add/1', reason: 'target_repeated' },
        { pointer: '/data/attributes/events/remove/1', reason: 'target_repeated' },
      ],
    ],
  ];
  for (const [value, expected] of cases) {
    const res = await api.patch('/api/v2/buildings/hall', key.auth, change(value));
    expect({ value, status: res.status }).toEqual({ value, status: 422 });
    expect(
      res.body.errors.map((error: { source: { pointer: string }; meta: { reason: string } }) => ({
        pointer: error.source.pointer,
        reason: error.meta.reason,
      })),
    ).toEqual(expected);
  }
  // A to-one relation takes no change.
  const events = await createKey(app.strapi, {
    resources: {
      'native:events': { actions: ['read', 'update'], read: ['title', 'venue'], write: ['venue'] },
      'native:buildings': { actions: ['read'], read: ['name'] },
    },
  });
  const toOne = await api.patch('/api/v2/events/loose-3', events.auth, resourceDocument('events', { venue: { add: ['hall'] } }));
  expect(toOne.status).toBe(422);
  expect(toOne.body.errors[0].source.pointer).toBe('/data/attributes/venue');
  expect(await storedList(hall.documentId)).toEqual(before);
});

test('targets the key may not read and fields it may not write answer as for plain lists', async () => {
  const api = writer(app);
  const before = await storedList(hall.documentId);
  const blind = await createKey(app.strapi, {
    resources: {
      'native:buildings': { actions: ['read', 'update'], read: ['name'], write: ['events'] },
      'native:festivals': { actions: ['read'], read: ['name'] },
    },
  });
  // Events are not exposed to this key at all: the field does not exist for it.
  const hidden = await api.patch('/api/v2/buildings/hall', blind.auth, change({ add: [loose[3]] }));
  expect(hidden.status).toBe(422);
  expect(hidden.body.errors[0]).toMatchObject({ source: { pointer: '/data/attributes/events' }, meta: { reason: 'field_not_writable' } });
  const writeOnly = await createKey(app.strapi, {
    resources: {
      'native:buildings': { actions: ['read', 'update'], read: ['name'], write: ['events'] },
      'native:events': { actions: ['create'], write: ['title'] },
    },
  });
  const unreadable = await api.patch('/api/v2/buildings/hall', writeOnly.auth, change({ add: [loose[3]] }));
  expect(unreadable.status).toBe(422);
  expect(unreadable.body.errors[0]).toMatchObject({
    source: { pointer: '/data/attributes/events' },
    meta: { reason: 'target_not_readable' },
  });
  const readOnly = await createKey(app.strapi, {
    resources: {
      'native:buildings': { actions: ['read', 'update'], read: ['name', 'events'], write: ['name'] },
      'native:events': { actions: ['read'], read: ['title'] },
    },
  });
  const notWritable = await api.patch('/api/v2/buildings/hall', readOnly.auth, change({ add: [loose[3]] }));
  expect(notWritable.status).toBe(422);
  expect(notWritable.body.errors[0]).toMatchObject({
    source: { pointer: '/data/attributes/events' },
    meta: { reason: 'field_not_writable' },
  });
  expect(await storedList(hall.documentId)).toEqual(before);
});

test('a change touches only the links of its language; the other language keeps its own', async () => {
  await ensureLocale(app.strapi, 'de', 'German');
  const key = await createKey(app.strapi, WRITER);
  const api = writer(app);
  const atrium = await publish(app.strapi, BUILDING, { name: 'Atrium', slug: 'atrium' });
  const english = (await event('english-only', atrium.documentId)).documentId;
  const both = (await event('bilingual')).documentId;
  await localize(app.strapi, EVENT, both, 'de', {
    title: 'Zweisprachig',
    slug: 'zweisprachig',
    startsAt: '2027-06-01T10:00:00.000Z',
    category: 'talk',
    venue: atrium.documentId,
  });
  const ids = async (locale: string) =>
    (await api.get(`/api/v2/buildings/atrium?locale=${locale}`, key.auth)).body.data.attributes.events.map((ref: { id: string }) => ref.id);
  expect(await ids('en')).toEqual([english]);
  expect(await ids('de')).toEqual([both]);

  const en = await api.patch('/api/v2/buildings/atrium', key.auth, change({ add: ['bilingual'], remove: [english] }));
  expect(en.status).toBe(200);
  expect(await ids('en')).toEqual([both]);
  expect(await ids('de')).toEqual([both]);

  // In German, the English-only event is no record at all; the German link goes, the English one stays.
  const missing = await api.patch('/api/v2/buildings/atrium?locale=de', key.auth, change({ remove: [english] }));
  expect(missing.status).toBe(422);
  expect(missing.body.errors[0]).toMatchObject({
    source: { pointer: '/data/attributes/events/remove/0' },
    meta: { reason: 'target_not_found' },
  });
  const de = await api.patch('/api/v2/buildings/atrium?locale=de', key.auth, change({ remove: ['zweisprachig'] }));
  expect(de.status).toBe(200);
  expect(await ids('de')).toEqual([]);
  expect(await ids('en')).toEqual([both]);
});

test('one write names at most 1,000 references per field: more is 422 before anything is looked up', async () => {
  const key = await createKey(app.strapi, WRITER);
  const api = writer(app);
  const before = await storedList(hall.documentId);
  const many = Array.from({ length: 40_000 }, (_, index) => `x${index}`);
  for (const [path, value] of [
    ['/api/v2/buildings/hall', { add: many.slice(0, 600), remove: many.slice(600, 1001) }],
    ['/api/v2/buildings/hall', { add: many }],
    ['/api/v2/buildings/shed', many],
  ] as const) {
    const res = await api.patch(path, key.auth, change(value));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ source: { pointer: '/data/attributes/events' }, meta: { reason: 'value_invalid' } }),
    ]);
    expect(res.body.errors[0].detail).toContain('at most 1000');
  }
  // 1,000 are judged as usual: here every one names no record.
  const thousand = await api.patch('/api/v2/buildings/hall', key.auth, change({ add: many.slice(0, 999), remove: ['x999'] }));
  expect(thousand.status).toBe(422);
  expect(thousand.body.errors[0]).toMatchObject({
    source: { pointer: '/data/attributes/events/add/0' },
    meta: { reason: 'target_not_found' },
  });
  expect(await storedList(hall.documentId)).toEqual(before);
});

test('a create takes whole lists only', async () => {
  const key = await createKey(app.strapi, WRITER);
  const api = writer(app);
  const before = await knex()('buildings').count({ n: '*' });
  const res = await api.post('/api/v2/buildings', key.auth, resourceDocument('buildings', { name: 'New', events: { add: [loose[3]] } }));
  expect(res.status).toBe(422);
  expect(res.body.errors).toEqual([
    expect.objectContaining({ source: { pointer: '/data/attributes/events' }, meta: { reason: 'value_invalid' } }),
  ]);
  expect(await knex()('buildings').count({ n: '*' })).toEqual(before);
  const whole = await api.post('/api/v2/buildings', key.auth, resourceDocument('buildings', { name: 'New', events: [loose[3]] }));
  expect(whole.status).toBe(201);
  expect(whole.body.data.attributes.events.map((ref: { id: string }) => ref.id)).toEqual([loose[3]]);
});

test('the whole list of a cut field is 409, naming the change that works instead', async () => {
  const key = await createKey(app.strapi, WRITER);
  const api = writer(app);
  const before = await storedList(hall.documentId);
  const res = await api.patch('/api/v2/buildings/hall', key.auth, change(before.slice(0, CAP)));
  expect(res.status).toBe(409);
  expect(res.body.errors[0]).toMatchObject({ source: { pointer: '/data/attributes/events' }, meta: { reason: 'relation_list_truncated' } });
  expect(res.body.errors[0].detail).toContain('{ "add": [...], "remove": [...] }');
  expect(await storedList(hall.documentId)).toEqual(before);
});

test('a change that Strapi refuses leaves every link as it was (one transaction)', async () => {
  const key = await createKey(app.strapi, WRITER);
  const api = writer(app);
  const before = await storedList(hall.documentId);
  // `name` is required: the document service refuses the update after the links were resolved.
  const res = await api.patch('/api/v2/buildings/hall', key.auth, change({ add: [loose[3]], remove: [before[0]] }, { name: null }));
  expect(res.status).toBe(422);
  expect(await storedList(hall.documentId)).toEqual(before);
});

test('Idempotency-Key: a retry replays the answer and changes nothing twice', async () => {
  const key = await createKey(app.strapi, WRITER);
  const api = writer(app);
  const before = await storedList(hall.documentId);
  const body = change({ remove: [before[1]] });
  const headers = { 'Idempotency-Key': 'remove-one-event' };
  const first = await api.patch('/api/v2/buildings/hall', key.auth, body, headers);
  expect(first.status).toBe(200);
  const after = await storedList(hall.documentId);
  expect(after).toEqual(before.filter((id) => id !== before[1]));
  // Put it back by hand: a replay must not remove it again.
  const relink = await api.patch('/api/v2/buildings/hall', key.auth, change({ add: [before[1]] }));
  expect(relink.status).toBe(200);
  const replay = await api.patch('/api/v2/buildings/hall', key.auth, body, headers);
  expect(replay.status).toBe(200);
  expect(replay.headers['idempotent-replayed']).toBe('true');
  expect(replay.text).toBe(first.text);
  expect(await storedList(hall.documentId)).toEqual([...after, before[1]]);
});

test('the OpenAPI document: updates take an array or a change, creates an array', async () => {
  const key = await createKey(app.strapi, WRITER);
  const doc = (await app.http().get('/api/v2/openapi.json').set('Authorization', key.auth)).body as OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: 'doc' } as object);
  const schema = (name: string) => ajv.getSchema(`doc#/components/schemas/${name}`)!;
  const update = schema('BuildingsUpdateRequest');
  const create = schema('BuildingsCreateRequest');
  expect(update).toBeDefined();
  const changeBody = change({ add: ['a', { id: 'b' }], remove: [{ slug: 'c' }] });
  expect(update(changeBody)).toBe(true);
  expect(update(change(['a', { id: 'b' }]))).toBe(true);
  expect(update(change(null))).toBe(true);
  expect(update(change({}))).toBe(false);
  expect(update(change({ add: [], replace: [] }))).toBe(false);
  expect(create(resourceDocument('buildings', { name: 'x', events: ['a'] }))).toBe(true);
  expect(create(resourceDocument('buildings', { name: 'x', events: { add: ['a'] } }))).toBe(false);
  expect(doc.components.schemas.RelationListChange).toMatchObject({ type: 'object', additionalProperties: false, minProperties: 1 });
});

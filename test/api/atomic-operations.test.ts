/**
 * JSON:API Atomic Operations at POST /operations (contract section 17): up to 100 writes in one
 * transaction, each checked as the single write is, lids between them, errors pointing into the
 * operation, Idempotency-Key for the whole request; and all or nothing, proved by the database itself
 * after every refused request (on SQLite and PostgreSQL). On PostgreSQL, the writes' transactions send
 * their connection one query at a time (database/serial-queries.ts): pg 8 warned of the queries Strapi
 * sent at once on one (bench:abuse, atomic-postgres), and pg 9 refuses them.
 */
import type { Core } from '@strapi/strapi';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { ensureLocale, publish, website } from '../helpers/fixtures';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { listenOnce, tableSnapshot } from '../helpers/writes';

const EVENT = 'api::event.event';
const PRODUCT = 'api::product.product';
const JOB = 'api::job.job';
const PAGE = 'api::page.page';
const SETTING = 'api::setting.setting';
const UIDS = [EVENT, PRODUCT, JOB, PAGE, SETTING];

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
const ALL = { actions: ['read', 'create', 'update', 'delete'], read: '*', write: '*' };

let app: TestApp;
let s: Core.Strapi;
let editor: { auth: string };
let noProducts: { auth: string };
let reader: { auth: string };
const ids: Record<string, string> = {};

type Answer = { status: number; headers: Record<string, string>; body: any; text: string };

const post = async (auth: string, body: unknown, headers: Record<string, string> = {}, path = '/api/v2/operations'): Promise<Answer> => {
  let req = app.http().post(path).set('Authorization', auth).set('Content-Type', ATOMIC);
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  const res = await req.send(typeof body === 'string' ? body : JSON.stringify(body));
  if (res.status >= 400) expect(res.headers['content-type']).toBe('application/vnd.api+json');
  // Results and errors alike: JSON:API's schema with `atomic:results` (contract section 17), nothing more.
  if (res.text) expectValidJsonApi(res.body);
  return { status: res.status, headers: res.headers as Record<string, string>, body: res.body, text: res.text };
};

const operations = (...ops: unknown[]) => ({ 'atomic:operations': ops });
const event = (title: string, extra: Record<string, unknown> = {}) => ({
  title,
  startsAt: '2027-06-01T19:00:00.000Z',
  category: 'concert',
  ...extra,
});
const product = (name: string, sku: string, extra: Record<string, unknown> = {}) => ({ name, sku, price: 10, currency: 'EUR', ...extra });
const addEvent = (title: string, lid?: string, extra?: Record<string, unknown>) => ({
  op: 'add',
  data: { type: 'events', ...(lid ? { lid } : {}), attributes: event(title, extra) },
});

const rowsOf = async (uid: string, where: Record<string, unknown>) =>
  (await s.db.query(uid as never).findMany({ where, populate: ['event', 'website'] })) as Record<string, any>[];

/** Warnings the process printed while this suite ran (pg's DeprecationWarning among them). */
const warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
/** Queries sent to a pg client that had one waiting already (what pg warns of, once a process). */
let sentToBusyClient = 0;
type PgClient = { query: (...args: unknown[]) => unknown; _queryQueue?: unknown[]; pipeline?: boolean };
const pgClient = (jest.requireActual('pg') as { Client: { prototype: PgClient } }).Client.prototype;
const pgQuery = pgClient.query;
beforeAll(() => {
  process.on('warning', onWarning);
  pgClient.query = function (this: PgClient, ...args: unknown[]) {
    if ((this._queryQueue?.length ?? 0) > 0 && !this.pipeline) sentToBusyClient += 1;
    return pgQuery.apply(this, args);
  };
});
afterAll(() => {
  process.off('warning', onWarning);
  pgClient.query = pgQuery;
});

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  s = app.strapi;
  await listenOnce(app);
  await ensureLocale(s, 'de', 'German');
  const publications = [
    { collection: 'pages', contentType: PAGE, mode: 'collection' },
    { collection: 'settings', contentType: SETTING, mode: 'singleton' },
  ];
  const a = await website(s, 'site-a', publications);
  const b = await website(s, 'site-b', publications);
  ids.siteA = a.documentId;
  ids.aboutA = (await publish(s, PAGE, { title: 'About A', slug: 'about', website: a.documentId })).documentId;
  ids.aboutB = (await publish(s, PAGE, { title: 'About B', slug: 'about', website: b.documentId })).documentId;
  ids.settingsA = (await publish(s, SETTING, { siteName: 'Site A', website: a.documentId })).documentId;
  ids.jazz = (await publish(s, EVENT, event('Jazz', { slug: 'jazz' }))).documentId;
  ids.job = (
    await publish(s, JOB, { title: 'Engineer', slug: 'engineer', department: 'engineering', employmentType: 'full-time' })
  ).documentId;
  editor = await createKey(s, {
    resources: {
      'native:events': ALL,
      'native:products': ALL,
      'native:jobs': ALL,
      'cms:site-a/pages': ALL,
      'cms:site-b/pages': ALL,
      'cms:site-a/settings': { actions: ['read', 'update'], read: '*', write: '*' },
    },
  });
  noProducts = await createKey(s, { resources: { 'native:events': ALL, 'native:products': { actions: ['read'], read: '*' } } });
  reader = await createKey(s, { resources: { 'native:events': { actions: ['read'], read: '*' } } });
});
afterAll(async () => {
  await app?.close();
});

describe('all of it', () => {
  test('an event and a product pointing at it by lid, in one request: 200 with the results in order', async () => {
    const res = await post(
      editor.auth,
      operations(addEvent('Atomic Gala', 'gala'), {
        op: 'add',
        data: { type: 'products', attributes: product('Gala Ticket', 'GALA-1', { event: { lid: 'gala' } }) },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(ATOMIC);
    // The extension is named by the media type; `jsonapi.ext` is no member the contract allows (its preamble).
    expect(res.body.jsonapi).toEqual({ version: '1.1' });
    const [first, second] = res.body['atomic:results'];
    expect(res.body['atomic:results']).toHaveLength(2);
    expect(first.data).toMatchObject({ type: 'events', attributes: { title: 'Atomic Gala', slug: 'atomic-gala' } });
    expect(second.data).toMatchObject({
      type: 'products',
      attributes: { name: 'Gala Ticket', sku: 'GALA-1', event: { id: first.data.id, slug: 'atomic-gala', collection: 'events' } },
    });
    // Stored and published, the relation included.
    const products = await rowsOf(PRODUCT, { documentId: second.data.id, publishedAt: { $notNull: true } });
    expect(products).toHaveLength(1);
    expect(products[0]!.event.documentId).toBe(first.data.id);
    const read = await app.http().get(`/api/v2/products/${second.data.id}`).set('Authorization', editor.auth);
    expect(read.body.data.attributes.event.id).toBe(first.data.id);
  });

  test('update by ref id, by href (slug) and by data.id; remove by lid; archive: every result in order', async () => {
    const res = await post(
      editor.auth,
      operations(
        { op: 'update', ref: { type: 'events', id: ids.jazz }, data: { type: 'events', attributes: { capacity: 10 } } },
        { op: 'update', href: '/events/jazz', data: { type: 'events', attributes: { capacity: 20 } } },
        { op: 'update', data: { type: 'events', id: ids.jazz, attributes: { summary: 'Cool' } } },
        addEvent('Short Lived', 'tmp'),
        { op: 'update', ref: { type: 'events', lid: 'tmp' }, data: { type: 'events', attributes: { capacity: 5 } } },
        { op: 'remove', ref: { type: 'events', lid: 'tmp' } },
        { op: 'remove', ref: { type: 'jobs', id: 'engineer' } },
      ),
    );
    expect(res.status).toBe(200);
    const results = res.body['atomic:results'];
    expect(results).toHaveLength(7);
    expect(results[0].data.attributes.capacity).toBe(10);
    expect(results[1].data.attributes.capacity).toBe(20);
    expect(results[2].data.attributes).toMatchObject({ capacity: 20, summary: 'Cool' });
    expect(results[4].data.attributes.capacity).toBe(5);
    expect(results[5]).toEqual({});
    expect(results[6].data).toMatchObject({ type: 'jobs', id: ids.job, meta: { publishedAt: null } });
    expect(await rowsOf(EVENT, { documentId: results[3].data.id })).toEqual([]);
    expect(await rowsOf(JOB, { documentId: ids.job, publishedAt: { $notNull: true } })).toEqual([]);
    const jazz = await rowsOf(EVENT, { documentId: ids.jazz, publishedAt: { $notNull: true } });
    expect(jazz[0]).toMatchObject({ capacity: 20, summary: 'Cool' });
  });

  test('CMS resources are named by href: a page added to one website, its singleton updated', async () => {
    const res = await post(
      editor.auth,
      operations(
        { op: 'add', href: '/cms/site-a/pages', data: { type: 'pages', lid: 'p', attributes: { title: 'Team', relatedPages: ['about'] } } },
        { op: 'update', ref: { type: 'pages', lid: 'p' }, data: { type: 'pages', attributes: { summary: 'Who we are' } } },
        { op: 'update', href: '/cms/site-a/settings', data: { type: 'settings', attributes: { siteName: 'Site A!' } } },
      ),
    );
    expect(res.status).toBe(200);
    const [page, updated, settings] = res.body['atomic:results'];
    expect(page.data.attributes.relatedPages).toEqual([{ id: ids.aboutA, slug: 'about', collection: 'pages' }]);
    expect(updated.data.attributes).toMatchObject({ title: 'Team', summary: 'Who we are' });
    expect(settings.data.attributes.siteName).toBe('Site A!');
    const rows = await rowsOf(PAGE, { documentId: page.data.id });
    expect(new Set(rows.map((row) => row.website?.documentId))).toEqual(new Set([ids.siteA]));
  });

  test("an href's locale is the operation's, as a single write's ?locale=; references are in that language", async () => {
    const res = await post(
      editor.auth,
      operations(
        { op: 'add', href: '/events?locale=de', data: { type: 'events', lid: 'de', attributes: event('Abend der Musik') } },
        {
          op: 'add',
          href: '/products?locale=de',
          data: { type: 'products', attributes: product('Karte', 'DE-1', { event: { lid: 'de' } }) },
        },
      ),
    );
    expect(res.status).toBe(200);
    const [german, ticket] = res.body['atomic:results'];
    const rows = await rowsOf(EVENT, { documentId: german.data.id });
    expect(new Set(rows.map((row) => row.locale))).toEqual(new Set(['de']));
    expect(ticket.data.attributes.event).toMatchObject({ id: german.data.id });
    // The default language's product cannot reach an event that exists only in German: nothing is kept.
    const before = await tableSnapshot(s, UIDS);
    const mixed = await post(
      editor.auth,
      operations(
        { op: 'add', href: '/events?locale=de', data: { type: 'events', lid: 'nur-de', attributes: event('Nur Deutsch') } },
        { op: 'add', data: { type: 'products', attributes: product('Ticket', 'EN-1', { event: { lid: 'nur-de' } }) } },
      ),
    );
    expect(mixed.status).toBe(422);
    expect(mixed.body.errors[0]).toMatchObject({
      source: { pointer: '/atomic:operations/1/data/attributes/event' },
      meta: { reason: 'target_not_found' },
    });
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });

  test('an absolute href under the API base is the same as its path', async () => {
    const server = s.server.httpServer.address() as { port: number };
    const href = `http://127.0.0.1:${server.port}/api/v2/events/jazz`;
    const res = await post(editor.auth, operations({ op: 'update', href, data: { type: 'events', attributes: { capacity: 33 } } }));
    expect(res.status).toBe(200);
    expect(res.body['atomic:results'][0].data.attributes.capacity).toBe(33);
  });
});

describe('nothing of it: a refused operation rolls every other back', () => {
  const assertUnchanged = async (before: unknown) => expect(await tableSnapshot(s, UIDS)).toEqual(before);

  test('422 on the second operation: its pointer is under it, the first is not kept', async () => {
    const before = await tableSnapshot(s, UIDS);
    const res = await post(
      editor.auth,
      operations(addEvent('Never Kept'), { op: 'add', data: { type: 'products', attributes: product('Bad', 'BAD-1', { nope: 1 }) } }),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ status: '422', source: { pointer: '/atomic:operations/1/data/attributes/nope' } }),
    ]);
    await assertUnchanged(before);
  });

  test('409 from the database after three writes (a duplicate slug): all three rolled back', async () => {
    const before = await tableSnapshot(s, UIDS);
    const res = await post(
      editor.auth,
      operations(
        addEvent('First Of Four', 'first'),
        { op: 'add', data: { type: 'products', attributes: product('Ticket', 'TICK-9', { event: { lid: 'first' } }) } },
        { op: 'update', ref: { type: 'events', id: ids.jazz }, data: { type: 'events', attributes: { capacity: 999 } } },
        addEvent('Duplicate', undefined, { slug: 'jazz' }),
      ),
    );
    expect(res.status).toBe(409);
    expect(res.body.errors[0].source).toEqual({ pointer: '/atomic:operations/3/data/attributes/slug' });
    await assertUnchanged(before);
  });

  test('a validation failure of Strapi (required value) in the last of 100 operations', async () => {
    const before = await tableSnapshot(s, UIDS);
    const ops = Array.from({ length: 99 }, (_, i) => addEvent(`Bulk ${i}`));
    ops.push({ op: 'add', data: { type: 'events', attributes: { title: 'No Start', category: 'concert' } } } as never);
    const res = await post(editor.auth, operations(...ops));
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toMatch(/^\/atomic:operations\/99\/data\/attributes\/startsAt$/);
    await assertUnchanged(before);
  });

  test('a reference to no record (422) and a lid to no earlier record (422) point into their operation', async () => {
    const before = await tableSnapshot(s, UIDS);
    const res = await post(
      editor.auth,
      operations(addEvent('Kept Not'), {
        op: 'add',
        data: { type: 'products', attributes: product('Orphan', 'ORPH-1', { event: { lid: 'nowhere' } }) },
      }),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({
      source: { pointer: '/atomic:operations/1/data/attributes/event/lid' },
      meta: { reason: 'lid_unknown' },
    });
    const missing = await post(
      editor.auth,
      operations(addEvent('Kept Not'), {
        op: 'add',
        data: { type: 'products', attributes: product('Orphan', 'ORPH-2', { event: 'no-such-event' }) },
      }),
    );
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0]).toMatchObject({
      source: { pointer: '/atomic:operations/1/data/attributes/event' },
      meta: { reason: 'target_not_found' },
    });
    await assertUnchanged(before);
  });

  test('a lid of an event where a product reference is expected is refused', async () => {
    const res = await post(
      editor.auth,
      operations(
        { op: 'add', data: { type: 'products', lid: 'prod', attributes: product('P', 'LID-P') } },
        { op: 'add', data: { type: 'products', attributes: product('Q', 'LID-Q', { event: { lid: 'prod' } }) } },
      ),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors[0].source.pointer).toBe('/atomic:operations/1/data/attributes/event/lid');
    expect(await rowsOf(PRODUCT, { sku: 'LID-P' })).toEqual([]);
  });

  test('an absent record (404) and a type that is not the resource (409) point at what named them', async () => {
    const before = await tableSnapshot(s, UIDS);
    const absent = await post(
      editor.auth,
      operations(addEvent('Not Either'), { op: 'remove', ref: { type: 'events', id: 'no-such-record' } }),
    );
    expect(absent.status).toBe(404);
    expect(absent.body.errors[0].source).toEqual({ pointer: '/atomic:operations/1/ref/id' });
    const mismatch = await post(
      editor.auth,
      operations({ op: 'update', ref: { type: 'events', id: ids.jazz }, data: { type: 'products', attributes: { capacity: 1 } } }),
    );
    expect(mismatch.status).toBe(409);
    expect(mismatch.body.errors[0]).toMatchObject({
      source: { pointer: '/atomic:operations/0/data/type' },
      meta: { reason: 'type_mismatch' },
    });
    const clientId = await post(editor.auth, operations({ op: 'add', data: { type: 'events', id: 'mine', attributes: event('Mine') } }));
    expect(clientId.status).toBe(403);
    expect(clientId.body.errors[0].source).toEqual({ pointer: '/atomic:operations/0/data/id' });
    await assertUnchanged(before);
  });
});

describe('grants and resources, checked before anything is written', () => {
  test('an operation the key may not do is 403 at its index; nothing is written', async () => {
    const before = await tableSnapshot(s, UIDS);
    const res = await post(
      noProducts.auth,
      operations(addEvent('Allowed'), { op: 'add', data: { type: 'products', attributes: product('Denied', 'DEN-1') } }),
    );
    expect(res.status).toBe(403);
    expect(res.body.errors[0]).toMatchObject({ source: { pointer: '/atomic:operations/1' }, meta: { reason: 'action_not_granted' } });
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });

  test('a CMS collection named by its type alone is no resource: 404 at the type', async () => {
    const res = await post(editor.auth, operations({ op: 'add', data: { type: 'pages', attributes: { title: 'Where?' } } }));
    expect(res.status).toBe(404);
    expect(res.body.errors[0]).toMatchObject({
      source: { pointer: '/atomic:operations/0/data/type' },
      meta: { reason: 'resource_not_found' },
    });
  });

  test("a website's records are reached only through it: another website's record is 404", async () => {
    const res = await post(
      editor.auth,
      operations({ op: 'update', href: `/cms/site-a/pages/${ids.aboutB}`, data: { type: 'pages', attributes: { summary: 'x' } } }),
    );
    expect(res.status).toBe(404);
    expect(res.body.errors[0].source).toEqual({ pointer: '/atomic:operations/0/href' });
  });

  test('modes: no add to a singleton, no record of a collection unnamed', async () => {
    const singleton = await post(
      editor.auth,
      operations({ op: 'add', href: '/cms/site-a/settings', data: { type: 'settings', attributes: {} } }),
    );
    expect(singleton.status).toBe(400);
    expect(singleton.body.errors[0]).toMatchObject({
      source: { pointer: '/atomic:operations/0/op' },
      meta: { reason: 'operation_not_supported' },
    });
    const unnamed = await post(editor.auth, operations({ op: 'update', data: { type: 'events', attributes: { capacity: 1 } } }));
    expect(unnamed.status).toBe(400);
    expect(unnamed.body.errors[0].meta.reason).toBe('record_not_named');
  });

  test("a read-only key's document has no /operations, and its operations are 403", async () => {
    const doc = await app.http().get('/api/v2/openapi.json').set('Authorization', reader.auth);
    expect(doc.body.paths['/operations']).toBeUndefined();
    const res = await post(reader.auth, operations(addEvent('No')));
    expect(res.status).toBe(403);
  });

  test("the document's request schema takes what the server takes (lids included) and refuses what it refuses", async () => {
    const doc = await app.http().get('/api/v2/openapi.json').set('Authorization', editor.auth);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    const schema = doc.body.paths['/operations'].post.requestBody.content[ATOMIC].schema;
    const validate = ajv.compile({ components: doc.body.components, allOf: [schema] });
    const taken = operations(
      addEvent('Schema Gala', 'sg'),
      { op: 'add', data: { type: 'products', attributes: product('Schema Ticket', 'SCH-1', { event: { lid: 'sg' } }) } },
      { op: 'update', ref: { type: 'events', lid: 'sg' }, data: { type: 'events', attributes: { capacity: 3 } } },
      { op: 'add', href: '/cms/site-a/pages', data: { type: 'pages', attributes: { title: 'Schema Page' } } },
      { op: 'update', href: '/cms/site-a/settings', data: { type: 'settings', attributes: { siteName: 'Site A' } } },
      { op: 'remove', ref: { type: 'events', lid: 'sg' } },
    );
    expect({ valid: validate(taken), errors: validate.errors ?? null }).toEqual({ valid: true, errors: null });
    expect((await post(editor.auth, taken)).status).toBe(200);
    for (const refused of [
      operations({ op: 'upsert', data: { type: 'events', attributes: {} } }),
      operations({ op: 'add', data: { type: 'events', attributes: { nope: 1 } } }),
      operations({ op: 'add', href: '/cms/site-a/settings', data: { type: 'settings', attributes: {} } }),
      operations(...Array.from({ length: 101 }, () => addEvent('Too many'))),
    ]) {
      expect(validate(refused)).toBe(false);
      expect((await post(editor.auth, refused)).status).toBeGreaterThanOrEqual(400);
    }
  });

  test("a writing key's document describes /operations with the atomic media type", async () => {
    const doc = await app.http().get('/api/v2/openapi.json').set('Authorization', editor.auth);
    const operation = doc.body.paths['/operations'].post;
    expect(Object.keys(operation.requestBody.content)).toEqual([ATOMIC]);
    expect(Object.keys(operation.responses['200'].content)).toEqual([ATOMIC]);
  });
});

describe('the document and its bounds', () => {
  test('at most 100 operations: 413', async () => {
    const res = await post(editor.auth, operations(...Array.from({ length: 101 }, (_, i) => addEvent(`Too Many ${i}`))));
    expect(res.status).toBe(413);
    expect(res.body.errors[0]).toMatchObject({ source: { pointer: '/atomic:operations' }, meta: { reason: 'too_many_operations' } });
  });

  test('at most 1 MiB: 413', async () => {
    const res = await post(editor.auth, operations(addEvent('x'.repeat(1024 * 1024))));
    expect(res.status).toBe(413);
    expect(res.body.errors[0].meta.reason).toBe('body_too_large');
  });

  test.each([
    ['no operations', { 'atomic:operations': [] }, '/atomic:operations'],
    ['a stray top-level member', { 'atomic:operations': [addEvent('A')], data: {} }, '/data'],
    ['an unknown op', operations({ op: 'upsert', data: {} }), '/atomic:operations/0/op'],
    [
      'a ref on add',
      operations({ op: 'add', ref: { type: 'events', id: 'x' }, data: { type: 'events', attributes: {} } }),
      '/atomic:operations/0/ref',
    ],
    [
      'a relationship ref',
      operations({ op: 'update', ref: { type: 'events', id: 'x', relationship: 'venue' }, data: {} }),
      '/atomic:operations/0/ref/relationship',
    ],
    [
      'a lid named before it is added',
      operations({ op: 'remove', ref: { type: 'events', lid: 'later' } }, addEvent('Later', 'later')),
      '/atomic:operations/0/ref/lid',
    ],
    ['a lid given twice', operations(addEvent('One', 'twice'), addEvent('Two', 'twice')), '/atomic:operations/1/data/lid'],
    ['an href outside the API', operations({ op: 'remove', href: 'https://elsewhere.example/events/x' }), '/atomic:operations/0/href'],
    [
      'relationships in data',
      operations({ op: 'add', data: { type: 'events', attributes: {}, relationships: {} } }),
      '/atomic:operations/0/data/relationships',
    ],
  ])('%s: 400 with a pointer', async (_name, body, pointer) => {
    const before = await tableSnapshot(s, UIDS);
    const res = await post(editor.auth, body);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((error: { source: { pointer: string } }) => error.source.pointer)).toContain(pointer);
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });

  test('an unknown locale in an href is 400 at the href', async () => {
    const res = await post(
      editor.auth,
      operations({ op: 'update', href: '/events/jazz?locale=xx', data: { type: 'events', attributes: { capacity: 1 } } }),
    );
    expect(res.status).toBe(400);
    expect(res.body.errors[0].source).toEqual({ pointer: '/atomic:operations/0/href' });
  });

  test('If-Match and query parameters do not apply: 400', async () => {
    const ifMatch = await post(editor.auth, operations(addEvent('Cond')), { 'If-Match': '"abc"' });
    expect(ifMatch.status).toBe(400);
    expect(ifMatch.body.errors[0].source).toEqual({ header: 'If-Match' });
    const query = await post(editor.auth, operations(addEvent('Query')), {}, '/api/v2/operations?locale=en');
    expect(query.status).toBe(400);
    expect(query.body.errors[0].source).toEqual({ parameter: 'locale' });
  });
});

describe('media types', () => {
  test.each([
    ['application/json'],
    ['application/vnd.api+json'],
    ['application/vnd.api+json; ext="https://example.com/other"'],
    ['text/plain'],
  ])('Content-Type %s: 415', async (type) => {
    const res = await app
      .http()
      .post('/api/v2/operations')
      .set('Authorization', editor.auth)
      .set('Content-Type', type)
      .send(JSON.stringify(operations(addEvent('Typed'))));
    expect(res.status).toBe(415);
    expect(res.body.errors[0].source).toEqual({ header: 'Content-Type' });
  });

  test('Accept naming the atomic extension is served; one naming only another extension is 406', async () => {
    const ok = await post(
      editor.auth,
      operations({ op: 'update', ref: { type: 'events', id: ids.jazz }, data: { type: 'events', attributes: { sort: 1 } } }),
      {
        Accept: ATOMIC,
      },
    );
    expect(ok.status).toBe(200);
    const other = await post(editor.auth, operations(addEvent('No')), {
      Accept: 'application/vnd.api+json; ext="https://example.com/other"',
    });
    expect(other.status).toBe(406);
  });

  test('GET /operations is 405; the single write paths do not take the extension (415)', async () => {
    const get = await app.http().get('/api/v2/operations').set('Authorization', editor.auth);
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST, OPTIONS');
    const single = await app
      .http()
      .post('/api/v2/events')
      .set('Authorization', editor.auth)
      .set('Content-Type', ATOMIC)
      .send(JSON.stringify({ data: { type: 'events', attributes: event('Single') } }));
    expect(single.status).toBe(415);
  });
});

describe('Idempotency-Key covers the whole request', () => {
  test('a retry replays the results byte for byte and writes nothing more; another body with the key is 422', async () => {
    const body = operations(addEvent('Once Only', 'once'), {
      op: 'add',
      data: { type: 'products', attributes: product('Once Ticket', 'ONCE-1', { event: { lid: 'once' } }) },
    });
    const first = await post(editor.auth, body, { 'Idempotency-Key': 'atomic-1' });
    expect(first.status).toBe(200);
    const again = await post(editor.auth, body, { 'Idempotency-Key': 'atomic-1' });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(ATOMIC);
    expect(again.text).toBe(first.text);
    expect(await rowsOf(PRODUCT, { sku: 'ONCE-1', publishedAt: { $notNull: true } })).toHaveLength(1);
    const other = await post(editor.auth, operations(addEvent('Other')), { 'Idempotency-Key': 'atomic-1' });
    expect(other.status).toBe(422);
    expect(other.body.errors[0].meta.reason).toBe('idempotency_key_reused');
  });

  test('a refused request is stored as refused: its retry replays the refusal, nothing is written', async () => {
    const before = await tableSnapshot(s, UIDS);
    const body = operations(addEvent('Refused Once'), {
      op: 'add',
      data: { type: 'events', attributes: { title: 'No Start', category: 'talk' } },
    });
    const first = await post(editor.auth, body, { 'Idempotency-Key': 'atomic-2' });
    expect(first.status).toBe(422);
    const again = await post(editor.auth, body, { 'Idempotency-Key': 'atomic-2' });
    expect(again.status).toBe(422);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });
});

describe('a record removed earlier in the same request', () => {
  // A removal is undone with the rest when a later operation is refused; an operation that names a
  // record removed before it is refused as the single write refuses an absent record (404), never a 500
  // or a removal that did nothing.
  const WAIT = 30_000;

  test(
    'add, remove by lid, then an invalid add: 422 at the third operation, nothing kept',
    async () => {
      const before = await tableSnapshot(s, UIDS);
      const res = await post(
        editor.auth,
        operations(
          addEvent('Removed Then Refused', 'gone'),
          { op: 'remove', ref: { type: 'events', lid: 'gone' } },
          {
            op: 'add',
            data: { type: 'events', attributes: { title: 'No Start', category: 'talk' } },
          },
        ),
      );
      expect(res.status).toBe(422);
      expect(res.body.errors[0].source.pointer).toMatch(/^\/atomic:operations\/2\//);
      expect(await tableSnapshot(s, UIDS)).toEqual(before);
    },
    WAIT,
  );

  test(
    'an archive, then the same record again: 404 at the second operation, the record still published',
    async () => {
      const job = await publish(s, JOB, { title: 'Archivist', slug: 'archivist', department: 'engineering', employmentType: 'full-time' });
      const res = await post(
        editor.auth,
        operations(
          { op: 'remove', ref: { type: 'jobs', id: job.documentId } },
          { op: 'remove', ref: { type: 'jobs', id: job.documentId } },
        ),
      );
      expect(res.status).toBe(404);
      expect(res.body.errors[0].source).toEqual({ pointer: '/atomic:operations/1/ref/id' });
      expect(await rowsOf(JOB, { documentId: job.documentId, publishedAt: { $notNull: true } })).toHaveLength(1);
    },
    WAIT,
  );

  test.each([
    ['removed twice by lid', 'events', [{ op: 'remove', ref: { type: 'events', lid: 'twice' } }]],
    ['archived twice by lid', 'jobs', [{ op: 'remove', ref: { type: 'jobs', lid: 'twice' } }]],
    [
      'updated by lid with nothing to change after its removal',
      'events',
      [{ op: 'update', ref: { type: 'events', lid: 'twice' }, data: { type: 'events', attributes: {} } }],
    ],
    [
      'updated by lid with nothing to change after its archive',
      'jobs',
      [{ op: 'update', ref: { type: 'jobs', lid: 'twice' }, data: { type: 'jobs', attributes: {} } }],
    ],
  ])(
    '%s: 404 at the operation that names it, nothing kept',
    async (_name, type, last) => {
      const before = await tableSnapshot(s, UIDS);
      const attributes =
        type === 'events' ? event('Twice Gone') : { title: 'Twice Gone', department: 'engineering', employmentType: 'full-time' };
      const res = await post(
        editor.auth,
        operations({ op: 'add', data: { type, lid: 'twice', attributes } }, { op: 'remove', ref: { type, lid: 'twice' } }, ...last),
      );
      expect(res.status).toBe(404);
      expect(res.body.errors[0]).toMatchObject({
        source: { pointer: '/atomic:operations/2/ref/lid' },
        meta: { reason: 'record_not_found' },
      });
      expect(await tableSnapshot(s, UIDS)).toEqual(before);
    },
    WAIT,
  );
});

describe("another website's records", () => {
  test("a page of site-a relating to a page site-b got earlier by lid is 422 at the lid; an update of it through site-a's href is 400; nothing kept", async () => {
    const before = await tableSnapshot(s, UIDS);
    const addB = { op: 'add', href: '/cms/site-b/pages', data: { type: 'pages', lid: 'pb', attributes: { title: 'B Only' } } };
    const related = await post(
      editor.auth,
      operations(addB, {
        op: 'add',
        href: '/cms/site-a/pages',
        data: { type: 'pages', attributes: { title: 'A Page', relatedPages: [{ lid: 'pb' }] } },
      }),
    );
    expect(related.status).toBe(422);
    expect(related.body.errors[0].source).toEqual({ pointer: '/atomic:operations/1/data/attributes/relatedPages/0/lid' });
    const moved = await post(
      editor.auth,
      operations(addB, {
        op: 'update',
        href: '/cms/site-a/pages',
        ref: { type: 'pages', lid: 'pb' },
        data: { type: 'pages', attributes: { title: 'Moved' } },
      }),
    );
    expect(moved.status).toBe(400);
    expect(moved.body.errors[0].meta.reason).toBe('lid_type_mismatch');
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });
});

describe('the database connection', () => {
  test('no query is sent to a connection busy with another (pg warns of it, pg 9 refuses it): none on PostgreSQL', async () => {
    // Every request of this suite ran before: writes of events with relations, publications, rollbacks.
    const published = await post(editor.auth, operations(addEvent('Connection check', 'one'), addEvent('Connection check 2', 'two')));
    expect(published.status).toBe(200);
    expect(warnings.filter((warning) => /client\.query\(\)|pg@9/.test(warning))).toEqual([]);
    expect(sentToBusyClient).toBe(0);
  });
});

/**
 * Events from changes (contract section 16): every kind of change, made through the document service (as
 * the content manager makes it), an /api/v2 write and an atomic request, reaches each subscribing key's
 * endpoint once, as the record that key reads now: its readable fields only (a property test over random
 * grants), filtered by the endpoint's events and resources; a record the key cannot read is a removal;
 * drafts send nothing; a rolled-back write sends nothing.
 */
import type { Core } from '@strapi/strapi';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { bootApp, type TestApp } from '../helpers/app';
import { draft, publish } from '../helpers/fixtures';
import { createKey } from '../helpers/keys';
import { FAST_WEBHOOKS_ENV, eventually, startReceiver, webhookService, type Received, type Receiver } from '../helpers/webhooks';

const EVENT = 'api::event.event';
const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
/** Attributes of events a key may be granted to read (relations and media left out: they need their targets' grants too; the slug is in meta). */
const EVENT_FIELDS = ['title', 'summary', 'startsAt', 'endsAt', 'category', 'tags', 'price', 'soldOut', 'capacity', 'body'];

let app: TestApp;
let s: Core.Strapi;
let receiver: Receiver;

type EndpointsService = { create: (key: number, body: unknown) => Promise<{ endpoint: { id: number }; secret: string }> };
type Dispatcher = { turn: () => Promise<void> };

beforeAll(async () => {
  app = await bootApp(FAST_WEBHOOKS_ENV);
  s = app.strapi;
  receiver = await startReceiver();
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

const subscribe = async (grants: unknown, path: string, settings: Record<string, unknown> = {}) => {
  const key = await createKey(s, grants);
  const { endpoint, secret } = await webhookService<EndpointsService>(s, 'webhook-endpoints').create(key.id, {
    url: receiver.url(path),
    ...settings,
  });
  return { key, endpoint, secret };
};

const bodies = (path: string) =>
  receiver.received.filter((request) => request.path === path).map((request) => JSON.parse(request.body) as { type: string; data: any });

/** Waits until the dispatcher has nothing left to send (two quiet turns). */
const settle = async () => {
  const dispatcher = webhookService<Dispatcher>(s, 'webhook-dispatcher');
  let seen = -1;
  await eventually(
    async () => {
      await dispatcher.turn();
      await new Promise((resolve) => setTimeout(resolve, 150));
      const now = receiver.received.length;
      const quiet = now === seen;
      seen = now;
      return quiet;
    },
    20_000,
    'the deliveries to settle',
  );
};

describe('each kind of change, from each path', () => {
  let site: Awaited<ReturnType<typeof subscribe>>;
  let writer: Awaited<ReturnType<typeof createKey>>;

  beforeAll(async () => {
    site = await subscribe({ resources: { 'native:events': { actions: ['read'], read: ['title', 'startsAt'], write: [] } } }, '/kinds');
    writer = await createKey(s, {
      resources: { 'native:events': { actions: ['read', 'create', 'update', 'delete'], read: '*', write: '*' } },
    });
  });

  test('document service: publish, update, unpublish, delete; a draft save sends nothing', async () => {
    const created = await publish(s, EVENT, { title: 'Premiere', startsAt: '2027-03-01T19:00:00.000Z', category: 'concert', price: 12 });
    await settle();
    const id = created.documentId;
    await s
      .documents(EVENT as never)
      .update({ documentId: id, data: { title: 'Premiere (moved)' } as never, status: 'published' } as never);
    await settle();
    // A draft change alone: nothing.
    await s.documents(EVENT as never).update({ documentId: id, data: { title: 'Draft only' } as never } as never);
    await draft(s, EVENT, { title: 'Never published', startsAt: '2027-03-01T19:00:00.000Z', category: 'talk' });
    await settle();
    await s.documents(EVENT as never).unpublish({ documentId: id } as never);
    await settle();
    // Deleting what is no longer published changes nothing a key reads: no event.
    await s.documents(EVENT as never).delete({ documentId: id } as never);
    const deleted = await publish(s, EVENT, { title: 'Short lived', startsAt: '2027-03-02T19:00:00.000Z', category: 'talk' });
    await settle();
    await s.documents(EVENT as never).delete({ documentId: deleted.documentId } as never);
    // Published and deleted before the dispatcher's turn: the record is rendered as it is now, gone, so its
    // content is never sent; its publication sends nothing (the key could not read it before it, and cannot
    // now: issue 33), its deletion a removal (the key could read it before that).
    // (The dispatcher is held meanwhile: a write would otherwise wake a turn between the two.)
    const dispatcher = webhookService<{ stop: () => Promise<void>; start: () => void }>(s, 'webhook-dispatcher');
    await dispatcher.stop();
    const fleeting = await publish(s, EVENT, { title: 'Fleeting', startsAt: '2027-03-03T19:00:00.000Z', category: 'talk' });
    await s.documents(EVENT as never).delete({ documentId: fleeting.documentId } as never);
    dispatcher.start();
    await settle();

    const events = bodies('/kinds').filter((body) => body.data.id === id);
    expect(events.map((body) => body.type)).toEqual(['record.published', 'record.updated', 'record.unpublished']);
    expect(
      bodies('/kinds')
        .filter((body) => body.data.id === deleted.documentId)
        .map((body) => body.type),
    ).toEqual(['record.published', 'record.deleted']);
    expect(
      bodies('/kinds')
        .filter((body) => body.data.id === fleeting.documentId)
        .map((body) => body.type),
    ).toEqual(['record.deleted']);
    expect(JSON.stringify(bodies('/kinds'))).not.toContain('Fleeting');
    events.push(bodies('/kinds').find((body) => body.data.id === deleted.documentId && body.type === 'record.deleted')!);
    expect(events[0]!.data).toMatchObject({ type: 'events', attributes: { title: 'Premiere', startsAt: '2027-03-01T19:00:00.000Z' } });
    expect(Object.keys(events[0]!.data.attributes).sort()).toEqual(['startsAt', 'title']);
    expect(events[1]!.data.attributes.title).toBe('Premiere (moved)');
    for (const removal of events.slice(2)) {
      expect(removal.data).toEqual({
        type: 'events',
        id: expect.any(String),
        meta: { deletedAt: expect.any(String), resource: 'native:events' },
      });
    }
    expect(JSON.stringify(bodies('/kinds'))).not.toMatch(/Draft only|Never published/);
    // Every request verifies with the endpoint's secret.
    for (const request of receiver.received.filter((r: Received) => r.path === '/kinds')) {
      expect(() => new Webhook(site.secret).verify(request.body, request.headers)).not.toThrow();
    }
  });

  test('an /api/v2 write and an atomic request each send their events; a refused atomic request sends none', async () => {
    const before = bodies('/kinds').length;
    const created = await app
      .http()
      .post('/api/v2/events')
      .set('Authorization', writer.auth)
      .set('Content-Type', 'application/vnd.api+json')
      .send({ data: { type: 'events', attributes: { title: 'From the API', startsAt: '2027-04-01T10:00:00Z', category: 'talk' } } });
    expect(created.status).toBe(201);
    const atomic = await app
      .http()
      .post('/api/v2/operations')
      .set('Authorization', writer.auth)
      .set('Content-Type', ATOMIC)
      .send(
        JSON.stringify({
          'atomic:operations': [
            {
              op: 'add',
              data: { type: 'events', attributes: { title: 'Atomic one', startsAt: '2027-04-02T10:00:00Z', category: 'talk' } },
            },
            {
              op: 'add',
              data: { type: 'events', attributes: { title: 'Atomic two', startsAt: '2027-04-03T10:00:00Z', category: 'talk' } },
            },
          ],
        }),
      );
    expect(atomic.status).toBe(200);
    const refused = await app
      .http()
      .post('/api/v2/operations')
      .set('Authorization', writer.auth)
      .set('Content-Type', ATOMIC)
      .send(
        JSON.stringify({
          'atomic:operations': [
            {
              op: 'add',
              data: { type: 'events', attributes: { title: 'Rolled back', startsAt: '2027-04-02T10:00:00Z', category: 'talk' } },
            },
            { op: 'add', data: { type: 'events', attributes: { title: 'Bad', startsAt: 'not a date', category: 'talk' } } },
          ],
        }),
      );
    expect(refused.status).toBeGreaterThanOrEqual(400);
    await settle();
    const titles = bodies('/kinds')
      .slice(before)
      .map((body) => `${body.type} ${body.data.attributes?.title}`);
    expect(titles.sort()).toEqual(['record.published Atomic one', 'record.published Atomic two', 'record.published From the API']);
  });
});

test("a write wakes the dispatcher: the event arrives with no turn asked for (turns run outside the write's transaction)", async () => {
  await subscribe({ resources: { 'native:events': { actions: ['read'], read: ['title'], write: [] } } }, '/woken');
  const errors = jest.spyOn(s.log, 'error');
  const warnings = jest.spyOn(s.log, 'warn');
  const writer = await createKey(s, { resources: { 'native:events': { actions: ['read', 'create'], read: '*', write: '*' } } });
  for (const title of ['Woken one', 'Woken two']) {
    const res = await app
      .http()
      .post('/api/v2/events')
      .set('Authorization', writer.auth)
      .set('Content-Type', 'application/vnd.api+json')
      .send({ data: { type: 'events', attributes: { title, startsAt: '2027-04-01T10:00:00Z', category: 'talk' } } });
    expect(res.status).toBe(201);
  }
  await publish(s, EVENT, { title: 'Woken three', startsAt: '2027-04-01T10:00:00Z', category: 'talk' });
  const received = await receiver.waitFor(3, (request) => request.path === '/woken', 10_000);
  expect(received.map((request) => JSON.parse(request.body).data.attributes.title).sort()).toEqual([
    'Woken one',
    'Woken three',
    'Woken two',
  ]);
  // No turn failed on the way (a turn run inside a finished write's transaction does).
  const logged = [...errors.mock.calls, ...warnings.mock.calls].map((call) => String(call[0]));
  expect(logged.filter((message) => message.includes('webhook'))).toEqual([]);
  errors.mockRestore();
  warnings.mockRestore();
});

test('a deleted key is sent nothing more: its endpoint is turned off with the reason', async () => {
  const { key, endpoint } = await subscribe(
    { resources: { 'native:events': { actions: ['read'], read: ['title'], write: [] } } },
    '/gone-key',
  );
  await s.plugin('public-api').service('keys').remove(String(key.id));
  await publish(s, EVENT, { title: 'After the key', startsAt: '2027-04-01T10:00:00Z', category: 'talk' });
  await settle();
  const row = (await s.db.query('plugin::public-api.webhook-endpoint' as never).findOne({ where: { id: endpoint.id } })) as {
    enabled: boolean;
    disabledReason: string;
  };
  expect(row).toMatchObject({ enabled: false, disabledReason: 'The key was deleted.' });
  expect(bodies('/gone-key')).toEqual([]);
});

describe('what each key sees', () => {
  test('events and resources filters; a record the key cannot read is a removal for it', async () => {
    const onlyDeleted = await subscribe(
      { resources: { 'native:events': { actions: ['read'], read: ['title'], write: [] } } },
      '/deleted-only',
      {
        events: ['record.deleted'],
      },
    );
    const jobsOnly = await subscribe(
      {
        resources: {
          'native:events': { actions: ['read'], read: ['title'], write: [] },
          'native:jobs': { actions: ['read'], read: ['title'], write: [] },
        },
      },
      '/jobs-only',
      { resources: ['native:jobs'] },
    );
    const created = await publish(s, EVENT, { title: 'Filtered', startsAt: '2027-05-01T19:00:00.000Z', category: 'film' });
    await s.documents(EVENT as never).delete({ documentId: created.documentId } as never);
    await settle();
    expect(bodies('/deleted-only').map((body) => body.type)).toEqual(['record.deleted']);
    expect(bodies('/jobs-only')).toEqual([]);
    expect(onlyDeleted.endpoint.id).not.toBe(jobsOnly.endpoint.id);
  });

  test('random grants: no payload ever holds a field its key may not read (property)', async () => {
    const grantsArb = fc.subarray(EVENT_FIELDS, { minLength: 1 });
    const samples = fc.sample(grantsArb, 6);
    const subscribers = await Promise.all(
      samples.map((read, i) => subscribe({ resources: { 'native:events': { actions: ['read'], read, write: [] } } }, `/random/${i}`)),
    );
    const full = {
      title: 'Everything',
      summary: 'A summary',
      startsAt: '2027-07-01T19:00:00.000Z',
      endsAt: '2027-07-01T21:00:00.000Z',
      category: 'theatre',
      tags: ['a', 'b'],
      price: 20,
      soldOut: true,
      capacity: 300,
      body: [{ type: 'paragraph', children: [{ type: 'text', text: 'Body text' }] }],
    };
    const created = await publish(s, EVENT, full);
    await s
      .documents(EVENT as never)
      .update({ documentId: created.documentId, data: { summary: 'Changed' } as never, status: 'published' } as never);
    await settle();
    samples.forEach((read, i) => {
      const received = bodies(`/random/${i}`);
      expect(received.map((body) => body.type)).toEqual(['record.published', 'record.updated']);
      for (const body of received) {
        const shown = Object.keys(body.data.attributes ?? {});
        for (const field of shown) expect(read).toContain(field);
        // What it may read and the record has, it is shown.
        for (const field of read) expect(shown).toContain(field);
        for (const hidden of EVENT_FIELDS.filter((name) => !read.includes(name))) expect(JSON.stringify(body)).not.toContain(`"${hidden}"`);
      }
    });
    expect(subscribers).toHaveLength(samples.length);
  });
});

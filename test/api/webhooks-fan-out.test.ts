/**
 * The webhook fan-out at scale (issue 18): a change is worked on for the endpoints that subscribe to its
 * content type only (plus those that take everything), however many others there are; an endpoint's
 * position stays where it was while only other types change, and its next read still finds exactly its
 * own events; a change of subscription (made here, or by another instance: the revision row) is seen at
 * the next turn; a burst longer than one batch is worked through at once, not one batch per poll. And the
 * bounds a hostile key meets: each endpoint's log is kept to its newest `logPerEndpoint` finished rows, and
 * Redeliver cannot grow a full queue.
 *
 * The dispatcher is stopped: each turn is run here and its figures read.
 */
import type { Core } from '@strapi/strapi';
import { superAdmin } from '../helpers/admin';
import { bootApp, type TestApp } from '../helpers/app';
import { publish } from '../helpers/fixtures';
import { createKey } from '../helpers/keys';
import { FAST_WEBHOOKS_ENV, eventually, startReceiver, webhookService, type Receiver } from '../helpers/webhooks';

const EVENT = 'api::event.event';
const BUILDING = 'api::building.building';

let app: TestApp;
let s: Core.Strapi;
let receiver: Receiver;

type FanOut = { run: () => Promise<{ queued: number; endpoints: number[]; more: boolean }>; waiting: () => number };
type Dispatcher = {
  stop: () => Promise<void>;
  start: () => void;
  turn: () => Promise<void>;
  pruneSoon: () => void;
  trimLater: (endpoint: number) => void;
};
type Deliveries = {
  enqueue: (trx: unknown, rows: unknown[]) => Promise<void>;
  list: (endpoint: number, before: number | null, limit?: number) => Promise<{ data: { id: number; eventId: string; status: string }[] }>;
};
type EndpointsService = {
  create: (key: number, body: unknown) => Promise<{ endpoint: { id: number } }>;
  update: (id: number, body: unknown) => Promise<unknown>;
};
type Subscriptions = { changed: () => Promise<void> };

const fanOut = () => webhookService<FanOut>(s, 'webhook-fan-out');
const endpoints = () => webhookService<EndpointsService>(s, 'webhook-endpoints');

/**
 * Turns until the fan-out has nothing left; the endpoints worked on (each once, in id order) and the
 * deliveries queued. An endpoint that takes everything may be worked on for an entry of a type its key
 * does not read (the index does not know grants): the assertions name the endpoints that must and must not be.
 */
const drain = async () => {
  const total = { endpoints: new Set<number>(), queued: 0, turns: 0 };
  for (;;) {
    const turn = await fanOut().run();
    for (const id of turn.endpoints) total.endpoints.add(id);
    total.queued += turn.queued;
    total.turns += 1;
    if (!turn.more) return { ...total, endpoints: [...total.endpoints].sort((a, b) => a - b) };
    if (total.turns > 50) throw new Error('the fan-out never ran out of work');
  }
};

const queuedFor = async (endpoint: number) =>
  (await s.db.query('plugin::public-api.webhook-delivery' as never).findMany({ where: { endpoint }, orderBy: { id: 'asc' } } as never)) as {
    event: string;
    resource: string;
    recordId: string;
  }[];

const positionOf = async (endpoint: number) => {
  const row = (await s.db.query('plugin::public-api.webhook-endpoint' as never).findOne({ where: { id: endpoint } } as never)) as {
    positionSeq: string | number;
    positionTxid: string | number;
  };
  return `${row.positionTxid}:${row.positionSeq}`;
};

let reader: { id: number };
let buildingHooks: number[];
let eventHook: number;
let everythingHook: number;

beforeAll(async () => {
  // Twenty finished deliveries kept per endpoint (the log's bound; see the last test).
  app = await bootApp({ ...FAST_WEBHOOKS_ENV, PUBLIC_API_WEBHOOKS_LOG_PER_ENDPOINT: '20' });
  s = app.strapi;
  receiver = await startReceiver();
  await webhookService<Dispatcher>(s, 'webhook-dispatcher').stop();
  reader = await createKey(s, {
    resources: {
      'native:events': { actions: ['read'], read: ['title'], write: [] },
      'native:buildings': { actions: ['read'], read: ['name'], write: [] },
    },
  });
  // Thirty endpoints of buildings (three keys: at most ten per key), one of events, one of everything.
  buildingHooks = [];
  for (let k = 0; k < 3; k += 1) {
    const key = await createKey(s, { resources: { 'native:buildings': { actions: ['read'], read: ['name'], write: [] } } });
    for (let i = 0; i < 10; i += 1) {
      buildingHooks.push(
        (await endpoints().create(key.id, { url: receiver.url(`/b${k}-${i}`), resources: ['native:buildings'] })).endpoint.id,
      );
    }
  }
  eventHook = (await endpoints().create(reader.id, { url: receiver.url('/events'), resources: ['native:events'] })).endpoint.id;
  everythingHook = (await endpoints().create(reader.id, { url: receiver.url('/all') })).endpoint.id;
  // The first turns look at every endpoint once (new to this instance's index).
  await drain();
}, 120_000);
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

test('an event change is worked on for its subscribers only: 2 of 32 endpoints, whatever the other 30', async () => {
  const before = await Promise.all(buildingHooks.map(positionOf));
  const created = await publish(s, EVENT, { title: 'Fan-out', startsAt: '2027-05-01T10:00:00.000Z', category: 'talk' });
  const turn = await drain();
  expect(turn.endpoints).toEqual([eventHook, everythingHook]);
  expect(turn.queued).toBe(2);
  expect((await queuedFor(eventHook)).map((d) => [d.event, d.recordId])).toContainEqual(['record.published', created.documentId]);
  expect((await queuedFor(everythingHook)).map((d) => d.recordId)).toContain(created.documentId);
  // The building endpoints were not even read: their positions are where they were.
  expect(await Promise.all(buildingHooks.map(positionOf))).toEqual(before);
  // A quiet turn works on none of them.
  expect((await drain()).endpoints.filter((id) => id !== everythingHook)).toEqual([]);
});

test("an endpoint left behind by other types' changes gets exactly its own events at its next change", async () => {
  const hook = buildingHooks[0]!;
  const before = await positionOf(hook);
  for (let i = 0; i < 12; i += 1) await publish(s, EVENT, { title: `Other ${i}`, startsAt: '2027-05-01T10:00:00.000Z', category: 'talk' });
  await drain();
  expect(await positionOf(hook)).toBe(before);
  const building = await publish(s, BUILDING, { name: 'Hall', slug: 'fan-out-hall' });
  const turn = await drain();
  // Thirty building endpoints and the one of everything.
  expect(turn.endpoints).toEqual([...buildingHooks, everythingHook]);
  const queued = await queuedFor(hook);
  expect(queued.map((d) => [d.event, d.resource, d.recordId])).toEqual([['record.published', 'native:buildings', building.documentId]]);
  expect(await positionOf(hook)).not.toBe(before);
});

test('a change of subscription is seen at the next turn, made here or by another instance (the revision row)', async () => {
  // Here: the events endpoint now also takes buildings.
  await endpoints().update(eventHook, { resources: ['native:events', 'native:buildings'] });
  await drain();
  const hall = await publish(s, BUILDING, { name: 'Annex', slug: 'fan-out-annex' });
  await drain();
  expect((await queuedFor(eventHook)).map((d) => d.recordId)).toContain(hall.documentId);

  // Elsewhere: the row changed by another process, which bumps the revision as the service does.
  await s.db
    .query('plugin::public-api.webhook-endpoint' as never)
    .update({ where: { id: eventHook }, data: { resources: ['native:events'] } } as never);
  await webhookService<Subscriptions>(s, 'webhook-subscriptions').changed();
  await drain();
  const later = await publish(s, BUILDING, { name: 'Shed', slug: 'fan-out-shed' });
  const turn = await drain();
  expect(turn.endpoints).toEqual([...buildingHooks, everythingHook]);
  expect((await queuedFor(eventHook)).map((d) => d.recordId)).not.toContain(later.documentId);
});

test('an endpoint turned off is not worked on; turned on again, it gets what it missed', async () => {
  await endpoints().update(eventHook, { enabled: false });
  await drain();
  const missed = await publish(s, EVENT, { title: 'While off', startsAt: '2027-05-01T10:00:00.000Z', category: 'talk' });
  expect((await drain()).endpoints).toEqual([everythingHook]);
  expect((await queuedFor(eventHook)).map((d) => d.recordId)).not.toContain(missed.documentId);
  await endpoints().update(eventHook, { enabled: true });
  await drain();
  expect((await queuedFor(eventHook)).map((d) => d.recordId)).toContain(missed.documentId);
});

test('a burst longer than one batch is worked through in turns that follow at once, and sent', async () => {
  const dispatcher = webhookService<Dispatcher>(s, 'webhook-dispatcher');
  // Batches of 10 (the setting, read at each turn): 25 changes take three batches of the endpoint; the first turn says more is left.
  const settings = (s.config.get('plugin::public-api') as { webhooks: { fanOutBatch?: number } }).webhooks;
  settings.fanOutBatch = 10;
  const titles = Array.from({ length: 25 }, (_, i) => `Burst ${i}`);
  for (const title of titles) await publish(s, EVENT, { title, startsAt: '2027-05-01T10:00:00.000Z', category: 'talk' });
  const first = await fanOut().run();
  expect(first.more).toBe(true);
  dispatcher.start();
  await dispatcher.turn();
  const burst = (r: { path: string; body: string }) =>
    r.path === '/events' &&
    (JSON.parse(r.body) as { data: { attributes?: { title?: string } } }).data.attributes?.title?.startsWith('Burst ') === true;
  const arrived = await receiver.waitFor(25, burst, 30_000);
  const seen = arrived.map((r) => (JSON.parse(r.body) as { data: { attributes: { title: string } } }).data.attributes.title);
  expect(new Set(seen)).toEqual(new Set(titles));
  await eventually(async () => fanOut().waiting() === 0, 10_000, 'the fan-out to run out of endpoints');
  await dispatcher.stop();
  delete settings.fanOutBatch;
});

describe("a key's endpoints cannot grow the outbox or the log without bound", () => {
  const enqueue = (endpoint: number, name: string, n: number) =>
    webhookService<Deliveries>(s, 'webhook-deliveries').enqueue(
      s.db.connection,
      Array.from({ length: n }, (_, i) => ({
        endpoint,
        eventId: `msg_${name}_${i}`,
        event: 'record.updated',
        resource: 'native:events',
        recordId: `e${i}`,
        seq: i,
        occurredAt: Date.now(),
        payload: JSON.stringify({ type: 'record.updated', timestamp: new Date().toISOString(), data: { type: 'events', id: `e${i}` } }),
      })),
    );
  const log = async (endpoint: number) => (await webhookService<Deliveries>(s, 'webhook-deliveries').list(endpoint, null, 100)).data;

  test('the log keeps the newest logPerEndpoint finished deliveries of each endpoint', async () => {
    const dispatcher = webhookService<Dispatcher>(s, 'webhook-dispatcher');
    const id = (await endpoints().create(reader.id, { url: receiver.url('/bounded') })).endpoint.id;
    await enqueue(id, 'bounded', 30);
    dispatcher.start();
    await receiver.waitFor(30, (r) => r.path === '/bounded', 30_000);
    await eventually(async () => (await log(id)).every((d) => d.status === 'delivered'), 20_000, 'every delivery to be recorded');
    expect(await log(id)).toHaveLength(30);
    dispatcher.trimLater(id);
    dispatcher.pruneSoon();
    await dispatcher.turn();
    await dispatcher.stop();
    const kept = await log(id);
    expect(kept.map((d) => d.eventId)).toEqual(Array.from({ length: 20 }, (_, i) => `msg_bounded_${29 - i}`));
  });

  test("Redeliver is refused while the endpoint's queue is full: a clear admin error, nothing queued", async () => {
    const admin = await superAdmin(app);
    const id = (await endpoints().create(reader.id, { url: receiver.url('/full') })).endpoint.id;
    // Off: its deliveries wait (nothing sends them).
    await endpoints().update(id, { enabled: false });
    await enqueue(id, 'full', 3);
    const [one] = await log(id);
    const settings = (s.config.get('plugin::public-api') as { webhooks: { queuePerEndpoint?: number } }).webhooks;
    const bound = settings.queuePerEndpoint;
    settings.queuePerEndpoint = 3;
    try {
      const res = await app
        .http()
        .post(`/public-api/webhooks/${id}/deliveries/${one!.id}/redeliver`)
        .set('Authorization', admin.auth)
        .send({});
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        name: 'ApplicationError',
        message: 'This endpoint already has 3 deliveries waiting, the most it may have; redeliver once they have been sent.',
        details: { reason: 'webhook_queue_full', queued: 3 },
      });
      expect(await log(id)).toHaveLength(3);
      settings.queuePerEndpoint = 4;
      const ok = await app
        .http()
        .post(`/public-api/webhooks/${id}/deliveries/${one!.id}/redeliver`)
        .set('Authorization', admin.auth)
        .send({});
      expect(ok.status).toBe(201);
      expect(await log(id)).toHaveLength(4);
    } finally {
      settings.queuePerEndpoint = bound;
    }
  });
});

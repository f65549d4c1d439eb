/**
 * Removals on a grant change (issue 18, contract section 16): a key whose read grant loses a resource (the
 * admin route, or a website that stops publishing a collection) has each subscribed endpoint sent
 * `record.unpublished` with a removal for every published record of it, page by page (the endpoint's
 * queue holds 3 here), signed, with no field of the record. A field-level change, an endpoint that does
 * not subscribe to removals or to the resource, a grant given back before the removals went out and a
 * revoked key send none.
 */
import type { Core } from '@strapi/strapi';
import { Webhook } from 'standardwebhooks';
import { superAdmin, type AdminSession } from '../helpers/admin';
import { bootApp, type TestApp } from '../helpers/app';
import { draft, publish, website } from '../helpers/fixtures';
import { createKey, keysService } from '../helpers/keys';
import { FAST_WEBHOOKS_ENV, eventually, startReceiver, webhookService, type Receiver } from '../helpers/webhooks';

const EVENT = 'api::event.event';
const PAGE = 'api::page.page';
const QUEUE = 3;

let app: TestApp;
let s: Core.Strapi;
let receiver: Receiver;
let admin: AdminSession;

type EndpointsService = { create: (key: number, body: unknown) => Promise<{ endpoint: { id: number }; secret: string }> };
type Dispatcher = { turn: () => Promise<void>; stop: () => Promise<void>; start: () => void };
type Removals = { pending: () => Promise<number> };
type Body = { type: string; timestamp: string; data: { type: string; id: string; attributes?: unknown; meta: Record<string, unknown> } };

beforeAll(async () => {
  app = await bootApp({ ...FAST_WEBHOOKS_ENV, PUBLIC_API_WEBHOOKS_QUEUE_PER_ENDPOINT: String(QUEUE) });
  s = app.strapi;
  receiver = await startReceiver();
  admin = await superAdmin(app);
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

const dispatcher = () => webhookService<Dispatcher>(s, 'webhook-dispatcher');
const removals = () => webhookService<Removals>(s, 'webhook-removals');

const subscribe = async (grants: unknown, path: string, settings: Record<string, unknown> = {}) => {
  const key = await createKey(s, grants);
  const { endpoint, secret } = await webhookService<EndpointsService>(s, 'webhook-endpoints').create(key.id, {
    url: receiver.url(path),
    ...settings,
  });
  return { key, endpoint, secret };
};

const received = (path: string) => receiver.received.filter((request) => request.path === path);
const bodies = (path: string) => received(path).map((request) => JSON.parse(request.body) as Body);

/** Waits until nothing is planned and the dispatcher has nothing left to send (two quiet turns). */
const settle = async () => {
  let seen = -1;
  await eventually(
    async () => {
      await dispatcher().turn();
      await new Promise((resolve) => setTimeout(resolve, 150));
      const now = receiver.received.length;
      const quiet = now === seen && (await removals().pending()) === 0;
      seen = now;
      return quiet;
    },
    30_000,
    'the removals to settle',
  );
};

/** Document ids of every published record of a content type (what a key reading all of them reads). */
const publishedIds = async (uid: string, where: Record<string, unknown> = {}): Promise<string[]> => {
  const rows = (await s.db
    .query(uid as never)
    .findMany({ where: { publishedAt: { $notNull: true }, ...where }, select: ['documentId'] })) as {
    documentId: string;
  }[];
  return [...new Set(rows.map((row) => row.documentId))].sort();
};

const READ_EVENTS = { 'native:events': { actions: ['read'], read: ['title', 'summary'], write: [] } };
const READ_PRODUCTS = { 'native:products': { actions: ['read'], read: ['name'], write: [] } };

describe('a resource taken out of the read grant', () => {
  test('through the admin route: a signed removal for each published record, page by page, nothing of the record', async () => {
    for (let i = 0; i < 7; i += 1)
      await publish(s, EVENT, { title: `Secret title ${i}`, startsAt: '2027-04-01T19:00:00.000Z', category: 'talk' });
    const hidden = await draft(s, EVENT, { title: 'Draft never read', startsAt: '2027-04-02T19:00:00.000Z', category: 'talk' });
    const site = await subscribe({ resources: { ...READ_EVENTS, ...READ_PRODUCTS } }, '/admin-route');
    // Only what it may read on the events it did not ask for: a second endpoint subscribed to products alone.
    const productsOnly = await webhookService<EndpointsService>(s, 'webhook-endpoints').create(site.key.id, {
      url: receiver.url('/products-only'),
      resources: ['native:products'],
    });
    // An endpoint that does not take record.unpublished is sent nothing.
    await webhookService<EndpointsService>(s, 'webhook-endpoints').create(site.key.id, {
      url: receiver.url('/published-only'),
      events: ['record.published'],
    });
    await settle();
    const expected = await publishedIds(EVENT);
    expect(expected.length).toBeGreaterThanOrEqual(7);

    const res = await app
      .http()
      .put(`/public-api/keys/${site.key.id}`)
      .set('Authorization', admin.auth)
      .send({ grants: { resources: READ_PRODUCTS, commands: [], origins: [] } });
    expect(res.status).toBe(200);
    await settle();

    const sent = bodies('/admin-route');
    expect(sent.map((body) => body.type)).toEqual(expected.map(() => 'record.unpublished'));
    expect(sent.map((body) => body.data.id).sort()).toEqual(expected);
    expect(sent.map((body) => body.data.id)).not.toContain(hidden.documentId);
    for (const body of sent) {
      expect(body.data).toEqual({
        type: 'events',
        id: expect.any(String),
        meta: { deletedAt: expect.any(String), resource: 'native:events' },
      });
      expect(Date.parse(body.data.meta.deletedAt as string)).not.toBeNaN();
    }
    expect(JSON.stringify(sent)).not.toMatch(/Secret title|Draft never read/);
    // Each removal has its own webhook-id, and verifies with the endpoint's secret.
    const ids = received('/admin-route').map((request) => request.headers['webhook-id']);
    expect(new Set(ids).size).toBe(ids.length);
    for (const request of received('/admin-route'))
      expect(() => new Webhook(site.secret).verify(request.body, request.headers)).not.toThrow();
    expect(received('/products-only')).toHaveLength(0);
    expect(received('/published-only')).toHaveLength(0);
    expect(productsOnly.endpoint.id).toBeGreaterThan(0);
  });

  test('a field-level change is no removal (nor any event): the records are still in view', async () => {
    const site = await subscribe({ resources: READ_EVENTS }, '/fields');
    await settle();
    await keysService(s).update(site.key.id, {
      grants: { resources: { 'native:events': { actions: ['read'], read: ['title'], write: [] } }, commands: [], origins: [] },
    });
    expect(await removals().pending()).toBe(0);
    await settle();
    expect(received('/fields')).toHaveLength(0);
  });

  test('a grant given back before the removals went out sends none; a revoked key sends none', async () => {
    const back = await subscribe({ resources: READ_EVENTS }, '/given-back');
    const revoked = await subscribe({ resources: READ_EVENTS }, '/revoked');
    await settle();
    await dispatcher().stop();
    try {
      await keysService(s).update(back.key.id, { grants: { resources: READ_PRODUCTS, commands: [], origins: [] } });
      await keysService(s).update(revoked.key.id, { grants: { resources: READ_PRODUCTS, commands: [], origins: [] } });
      expect(await removals().pending()).toBe(2);
      await keysService(s).update(back.key.id, { grants: { resources: READ_EVENTS, commands: [], origins: [] } });
      await keysService(s).revoke(revoked.key.id);
    } finally {
      dispatcher().start();
    }
    await settle();
    expect(received('/given-back')).toHaveLength(0);
    expect(received('/revoked')).toHaveLength(0);
  });

  test('a refused grant change plans nothing', async () => {
    const site = await subscribe({ resources: READ_EVENTS }, '/refused');
    await settle();
    await expect(
      keysService(s).update(site.key.id, {
        grants: { resources: { 'native:nope': { actions: ['read'], read: '*', write: [] } }, commands: [], origins: [] },
      }),
    ).rejects.toThrow();
    expect(await removals().pending()).toBe(0);
    await settle();
    expect(received('/refused')).toHaveLength(0);
  });

  test("a website that stops publishing a collection: removals for that website's records only", async () => {
    const publications = [{ collection: 'pages', contentType: PAGE, mode: 'collection' }];
    const a = await website(s, 'removals-a', publications);
    const b = await website(s, 'removals-b', publications);
    for (let i = 0; i < 4; i += 1) await publish(s, PAGE, { title: `Page A${i}`, website: a.documentId });
    const onB = await publish(s, PAGE, { title: 'Page B', website: b.documentId });
    await subscribe(
      {
        resources: {
          'cms:removals-a/pages': { actions: ['read'], read: ['title'], write: [] },
          'cms:removals-b/pages': { actions: ['read'], read: ['title'], write: [] },
        },
      },
      '/website',
    );
    await settle();
    const websites = s.plugin('public-api').service('websites') as { update: (id: string, input: unknown) => Promise<unknown> };
    await websites.update(a.documentId, { publications: [] });
    await settle();
    const aId = (await s.db.query('plugin::public-api.website' as never).findOne({ where: { documentId: a.documentId } })) as {
      id: number;
    };
    const expected = await publishedIds(PAGE, { website: { id: aId.id } });
    expect(expected).toHaveLength(4);
    const sent = bodies('/website');
    expect(sent.map((body) => body.data.id).sort()).toEqual(expected);
    expect(sent.map((body) => body.data.id)).not.toContain(onB.documentId);
    for (const body of sent) {
      expect(body.type).toBe('record.unpublished');
      expect(body.data).toEqual({
        type: 'pages',
        id: expect.any(String),
        meta: { deletedAt: expect.any(String), resource: 'cms:removals-a/pages' },
      });
    }

    // The website deleted: its records lose their link to it with it, so no removal can name them (a known
    // limit, docs/api.md "Webhooks"); the change goes through and nothing is left planned.
    const count = received('/website').length;
    const websiteService = s.plugin('public-api').service('websites') as { remove: (id: string) => Promise<unknown> };
    await websiteService.remove(b.documentId);
    await settle();
    expect(received('/website').slice(count)).toEqual([]);
    expect(await removals().pending()).toBe(0);
  });
});

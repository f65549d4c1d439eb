/**
 * What a change may tell a key (issue 33, contract sections 1 and 16): webhook events and sync delta items
 * go out only when what the key reads changed, and name only records the key could read before or after.
 *
 * - Another website's records never reach a key, not even as a removal: a key of `cms:city-guide/pages`
 *   is told nothing when a culture-hub page is changed, unpublished, deleted or created.
 * - A record that only shows the changed one (a building listing its events) is sent again only when
 *   what it shows changed (a reference added, taken away or renamed), and only to keys that read that
 *   field: a change of an event's `summary` alone sends nothing about its venue, through /api/v2 or by
 *   publishing in the admin.
 * - A property test: random grants over two websites' pages, buildings and events, random writes one at a
 *   time; around each write every key's view is read in full (a fresh /sync run), and every webhook event
 *   and delta item is checked against the views before and after: it names a record the key read before
 *   or reads after, a record sent changed as the key reads it, and nothing that changed is left out.
 */
import type { Core } from '@strapi/strapi';
import fc from 'fast-check';
import { bootApp, type TestApp } from '../helpers/app';
import { publish, website } from '../helpers/fixtures';
import { createKey } from '../helpers/keys';
import { FAST_WEBHOOKS_ENV, eventually, startReceiver, webhookService, type Receiver } from '../helpers/webhooks';
import { listenOnce, pathOf } from '../helpers/writes';

const EVENT = 'api::event.event';
const BUILDING = 'api::building.building';
const PAGE = 'api::page.page';
const JSONAPI_TYPE = 'application/vnd.api+json';
const EVENT_DATA = { startsAt: '2027-05-01T18:00:00.000Z', category: 'concert' };

let app: TestApp;
let s: Core.Strapi;
let receiver: Receiver;
const sites: Record<'guide' | 'hub', string> = { guide: '', hub: '' };

type EndpointsService = { create: (key: number, body: unknown) => Promise<{ endpoint: { id: number } }> };
type Item = { type: string; id: string; attributes?: Record<string, unknown>; meta: Record<string, unknown> };
type Body = { type: string; data: Item };

beforeAll(async () => {
  app = await bootApp(FAST_WEBHOOKS_ENV);
  s = app.strapi;
  await listenOnce(app);
  receiver = await startReceiver();
  const publications = [{ collection: 'pages', contentType: PAGE, mode: 'collection' }];
  sites.guide = (await website(s, 'city-guide', publications)).documentId;
  sites.hub = (await website(s, 'culture-hub', publications)).documentId;
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

const subscribe = async (grants: unknown, path: string) => {
  const key = await createKey(s, grants);
  await webhookService<EndpointsService>(s, 'webhook-endpoints').create(key.id, { url: receiver.url(path) });
  return key;
};

const bodies = (path: string): Body[] =>
  receiver.received.filter((request) => request.path === path).map((request) => JSON.parse(request.body) as Body);

/** Waits until the dispatcher has nothing left to send (two quiet turns). */
const settle = async () => {
  const dispatcher = webhookService<{ turn: () => Promise<void> }>(s, 'webhook-dispatcher');
  let seen = -1;
  await eventually(
    async () => {
      await dispatcher.turn();
      await new Promise((resolve) => setTimeout(resolve, 150));
      const quiet = receiver.received.length === seen;
      seen = receiver.received.length;
      return quiet;
    },
    20_000,
    'the deliveries to settle',
  );
};

/** Follows a sync run from `path` to its last page: its items and the path of the next delta. */
const sync = async (path: string, auth: string): Promise<{ items: Item[]; next: string }> => {
  const items: Item[] = [];
  for (let next: string = path; ;) {
    const res = await app.http().get(next).set('Authorization', auth);
    expect(res.status).toBe(200);
    items.push(...(res.body.data as Item[]));
    if (res.body.links.next) next = pathOf(res.body.links.next);
    else return { items, next: pathOf(res.body.links.sync) };
  }
};

const keyOf = (item: Item) => `${String(item.meta.resource)} ${item.id}`;
const isRemoval = (item: Item) => 'deletedAt' in item.meta;

const patch = async (auth: string, path: string, type: string, attributes: Record<string, unknown>) => {
  const res = await app
    .http()
    .patch(path)
    .set('Authorization', auth)
    .set('Content-Type', JSONAPI_TYPE)
    .send(JSON.stringify({ data: { type, attributes } }));
  expect(res.status).toBe(200);
  return res;
};

describe("another website's records (issue 33, item 2)", () => {
  test('a key of cms:city-guide/pages is told nothing of culture-hub pages, and still of its own', async () => {
    const guide = await subscribe({ resources: { 'cms:city-guide/pages': { actions: ['read'], read: ['title'], write: [] } } }, '/guide');
    const editor = await createKey(s, {
      resources: { 'cms:culture-hub/pages': { actions: ['read', 'create', 'update', 'delete'], read: '*', write: '*' } },
    });
    const hubPage = (await publish(s, PAGE, { title: 'Hub page', website: sites.hub })).documentId;
    const hubGone = (await publish(s, PAGE, { title: 'Hub page to unpublish', website: sites.hub })).documentId;
    const hubDeleted = (await publish(s, PAGE, { title: 'Hub page to delete', website: sites.hub })).documentId;
    const guidePage = (await publish(s, PAGE, { title: 'Guide page', website: sites.guide })).documentId;
    await settle();
    const start = await sync('/api/v2/sync', guide.auth);
    const before = receiver.received.length;

    // Through /api/v2 (the reported case), the document service (the admin), and a creation.
    await patch(editor.auth, `/api/v2/cms/culture-hub/pages/${hubPage}`, 'pages', { title: 'Hub page, renamed' });
    await s.documents(PAGE as never).unpublish({ documentId: hubGone } as never);
    await s.documents(PAGE as never).delete({ documentId: hubDeleted } as never);
    const created = await app
      .http()
      .post('/api/v2/cms/culture-hub/pages')
      .set('Authorization', editor.auth)
      .set('Content-Type', JSONAPI_TYPE)
      .send(JSON.stringify({ data: { type: 'pages', attributes: { title: 'Hub page, new' } } }));
    expect(created.status).toBe(201);
    // Its own website's page leaves its view: that removal it gets.
    await s.documents(PAGE as never).unpublish({ documentId: guidePage } as never);
    await settle();

    const hub = [hubPage, hubGone, hubDeleted, created.body.data.id as string];
    const sent = receiver.received.slice(before).filter((request) => request.path === '/guide');
    for (const id of hub) expect(sent.map((request) => request.body).join('\n')).not.toContain(id);
    expect(sent.map((request) => JSON.parse(request.body) as Body)).toEqual([
      {
        type: 'record.unpublished',
        timestamp: expect.any(String),
        data: { type: 'pages', id: guidePage, meta: { deletedAt: expect.any(String), resource: 'cms:city-guide/pages' } },
      },
    ]);

    const delta = await sync(start.next, guide.auth);
    expect(delta.items).toEqual([
      { type: 'pages', id: guidePage, meta: { deletedAt: expect.any(String), resource: 'cms:city-guide/pages' } },
    ]);
  });

  test('a page moved to the other website is a removal for the website it left, and a record for the one it joined', async () => {
    const both = await subscribe(
      {
        resources: {
          'cms:city-guide/pages': { actions: ['read'], read: ['title'], write: [] },
        },
      },
      '/guide-moves',
    );
    const page = (await publish(s, PAGE, { title: 'Wanderer', website: sites.hub })).documentId;
    await settle();
    const start = await sync('/api/v2/sync', both.auth);
    // Into the key's website: the key reads it now.
    await s.documents(PAGE as never).update({ documentId: page, data: { website: sites.guide }, status: 'published' } as never);
    await settle();
    const joined = await sync(start.next, both.auth);
    expect(joined.items.map((item) => [item.id, isRemoval(item)])).toEqual([[page, false]]);
    // Out of it again: a removal (the key read it before).
    await s.documents(PAGE as never).update({ documentId: page, data: { website: sites.hub }, status: 'published' } as never);
    await settle();
    const left = await sync(joined.next, both.auth);
    expect(left.items).toEqual([{ type: 'pages', id: page, meta: { deletedAt: expect.any(String), resource: 'cms:city-guide/pages' } }]);
    expect(bodies('/guide-moves').map((body) => [body.type, body.data.id])).toEqual([
      ['record.updated', page],
      ['record.unpublished', page],
    ]);
    // Changed again on the other website: nothing.
    await s.documents(PAGE as never).update({ documentId: page, data: { title: 'Wanderer, away' }, status: 'published' } as never);
    await settle();
    expect(bodies('/guide-moves')).toHaveLength(2);
    expect((await sync(left.next, both.auth)).items).toEqual([]);
  });

  test('a key of both websites: one delta with a removal on each, a page moved between them among them', async () => {
    const key = await subscribe(
      {
        resources: {
          'cms:city-guide/pages': { actions: ['read'], read: ['title'], write: [] },
          'cms:culture-hub/pages': { actions: ['read'], read: ['title'], write: [] },
        },
      },
      '/both',
    );
    const leaving = (await publish(s, PAGE, { title: 'Leaving', website: sites.guide })).documentId;
    const moving = (await publish(s, PAGE, { title: 'Moving', website: sites.hub })).documentId;
    const start = await sync('/api/v2/sync', key.auth);
    await s.documents(PAGE as never).unpublish({ documentId: leaving } as never);
    await s.documents(PAGE as never).update({ documentId: moving, data: { website: sites.guide }, status: 'published' } as never);
    const delta = await sync(start.next, key.auth);
    expect(delta.items.map((item) => [keyOf(item), isRemoval(item)]).sort()).toEqual(
      [
        [`cms:city-guide/pages ${leaving}`, true],
        [`cms:city-guide/pages ${moving}`, false],
        [`cms:culture-hub/pages ${moving}`, true],
      ].sort(),
    );
  });

  test("two websites' grants read different fields: a page's own change is in the delta though a later one came through a field only the other reads", async () => {
    const key = await subscribe(
      {
        resources: {
          'cms:city-guide/pages': { actions: ['read'], read: ['title', 'relatedPages'], write: [] },
          'cms:culture-hub/pages': { actions: ['read'], read: ['title'], write: [] },
        },
      },
      '/two-grants',
    );
    const target = (await publish(s, PAGE, { title: 'Target', slug: 'target', website: sites.hub })).documentId;
    const page = (await publish(s, PAGE, { title: 'Holder', website: sites.hub, relatedPages: [target] })).documentId;
    const start = await sync('/api/v2/sync', key.auth);
    await s.documents(PAGE as never).update({ documentId: page, data: { title: 'Holder, renamed' }, status: 'published' } as never);
    // Then the target's slug: the holder's reference changes, through a field this key reads on city-guide only.
    await s.documents(PAGE as never).update({ documentId: target, data: { slug: 'target-moved' }, status: 'published' } as never);
    const delta = await sync(start.next, key.auth);
    expect(delta.items.find((item) => item.id === page)).toMatchObject({ attributes: { title: 'Holder, renamed' } });
    // The holder changed only through that field: not in the next delta.
    await s.documents(PAGE as never).update({ documentId: target, data: { slug: 'target-moved-again' }, status: 'published' } as never);
    expect((await sync(delta.next, key.auth)).items.map((item) => item.id)).toEqual([target]);
  });
});

describe('a record that did not change as the key reads it (issue 33, item 3)', () => {
  test("an event's summary changed: nothing about its venue; its venue changed: both buildings, to keys that read their events", async () => {
    const names = await subscribe({ resources: { 'native:buildings': { actions: ['read'], read: ['name'], write: [] } } }, '/names');
    const listings = await subscribe(
      {
        resources: {
          'native:buildings': { actions: ['read'], read: ['name', 'events'], write: [] },
          'native:events': { actions: ['read'], read: ['title'], write: [] },
        },
      },
      '/listings',
    );
    const editor = await createKey(s, {
      resources: {
        'native:events': { actions: ['read', 'update'], read: '*', write: '*' },
        'native:buildings': { actions: ['read'], read: ['name'], write: [] },
      },
    });
    const hall = (await publish(s, BUILDING, { name: 'Concert hall' })).documentId;
    const depot = (await publish(s, BUILDING, { name: 'Depot' })).documentId;
    const show = (await publish(s, EVENT, { ...EVENT_DATA, title: 'Show', summary: 'First', venue: hall })).documentId;
    await settle();
    const start = { names: await sync('/api/v2/sync', names.auth), listings: await sync('/api/v2/sync', listings.auth) };
    const hallBefore = start.listings.items.find((item) => item.id === hall)!;
    const before = receiver.received.length;
    const since = (path: string) =>
      receiver.received
        .slice(before)
        .filter((request) => request.path === path)
        .map((request) => JSON.parse(request.body) as Body);

    // The reported case: summary alone, through /api/v2; then the same published from the admin.
    await patch(editor.auth, `/api/v2/events/${show}`, 'events', { summary: 'Second' });
    await s.documents(EVENT as never).update({ documentId: show, data: { summary: 'Third' } } as never);
    await s.documents(EVENT as never).publish({ documentId: show } as never);
    await settle();
    expect(since('/names')).toEqual([]);
    // The event's own meta.updatedAt changed, and the key reads the event: it is sent; its venue is not.
    expect(since('/listings').map((body) => [body.type, body.data.id])).toEqual([
      ['record.updated', show],
      ['record.updated', show],
    ]);
    const quiet = { names: await sync(start.names.next, names.auth), listings: await sync(start.listings.next, listings.auth) };
    expect(quiet.names.items).toEqual([]);
    expect(quiet.listings.items.map((item) => item.id)).toEqual([show]);
    const hallNow = await app.http().get(`/api/v2/buildings/${hall}`).set('Authorization', listings.auth);
    expect(hallNow.body.data).toEqual({ ...hallBefore, meta: (({ resource, ...meta }) => meta)(hallBefore.meta) });

    // The venue changed: both buildings' event lists changed, for the key that reads them.
    await patch(editor.auth, `/api/v2/events/${show}`, 'events', { venue: depot });
    await settle();
    expect(since('/names')).toEqual([]);
    const moved = since('/listings').slice(2);
    expect(moved.map((body) => [body.type, body.data.id]).sort()).toEqual(
      [
        ['record.updated', depot],
        ['record.updated', hall],
        ['record.updated', show],
      ].sort(),
    );
    const listed = (id: string) =>
      (moved.find((body) => body.data.id === id)!.data.attributes!.events as { id: string }[]).map((ref) => ref.id);
    expect(listed(hall)).toEqual([]);
    expect(listed(depot)).toEqual([show]);
    expect((await sync(quiet.names.next, names.auth)).items).toEqual([]);
    expect((await sync(quiet.listings.next, listings.auth)).items.map((item) => item.id).sort()).toEqual([depot, hall, show].sort());
  });

  test('a building renamed sends nothing about its events; a new slug sends the events that reference it', async () => {
    const shows = await subscribe(
      {
        resources: {
          'native:events': { actions: ['read'], read: ['title', 'venue'], write: [] },
          'native:buildings': { actions: ['read'], read: ['name'], write: [] },
        },
      },
      '/shows',
    );
    const venue = (await publish(s, BUILDING, { name: 'Annex', slug: 'annex' })).documentId;
    const show = (await publish(s, EVENT, { ...EVENT_DATA, title: 'Annex show', venue })).documentId;
    await settle();
    const start = await sync('/api/v2/sync', shows.auth);
    await s.documents(BUILDING as never).update({ documentId: venue, data: { name: 'Annex (renamed)' }, status: 'published' } as never);
    await settle();
    const renamed = await sync(start.next, shows.auth);
    expect(renamed.items.map((item) => item.id)).toEqual([venue]);
    await s.documents(BUILDING as never).update({ documentId: venue, data: { slug: 'annex-west' }, status: 'published' } as never);
    await settle();
    const reslugged = await sync(renamed.next, shows.auth);
    expect(reslugged.items.map((item) => item.id).sort()).toEqual([show, venue].sort());
    expect(reslugged.items.find((item) => item.id === show)!.attributes!.venue).toMatchObject({ id: venue, slug: 'annex-west' });
    expect(
      bodies('/shows')
        .slice(2)
        .map((body) => [body.type, body.data.id]),
    ).toEqual([
      ['record.updated', venue],
      ['record.updated', venue],
      ['record.updated', show],
    ]);
  });
});

describe('property: events and deltas name only what the key read before or reads after, and only what changed for it', () => {
  const PAGE_FIELDS = ['title', 'summary', 'relatedPages'];
  const BUILDING_FIELDS = ['name', 'events'];
  const EVENT_FIELDS = ['title', 'summary', 'venue'];
  const grantArb = (fields: string[]) =>
    fc.option(
      fc.subarray(fields, { minLength: 1 }).map((read) => ({ actions: ['read'], read, write: [] })),
      { nil: undefined, freq: 3 },
    );
  const grantsArb = fc
    .record({
      'cms:city-guide/pages': grantArb(PAGE_FIELDS),
      'cms:culture-hub/pages': grantArb(PAGE_FIELDS),
      'native:buildings': grantArb(BUILDING_FIELDS),
      'native:events': grantArb(EVENT_FIELDS),
    })
    .map((resources) => ({ resources: Object.fromEntries(Object.entries(resources).filter(([, grant]) => grant !== undefined)) }))
    .filter((grants) => Object.keys(grants.resources).length > 0);

  test('random grants and websites, random writes one at a time', async () => {
    const seed = Number(process.env.EVENT_SCOPE_SEED ?? Date.now() % 100000);
    const random = fc.sample(fc.nat(), { seed, numRuns: 200 });
    let draw = 0;
    const pick = <T>(list: readonly T[]): T => list[random[draw++ % random.length]! % list.length]!;

    const buildings = [
      (await publish(s, BUILDING, { name: 'Prop hall 0', slug: 'prop-hall-0' })).documentId,
      (await publish(s, BUILDING, { name: 'Prop hall 1', slug: 'prop-hall-1' })).documentId,
    ];
    const events: string[] = [];
    for (let i = 0; i < 4; i += 1)
      events.push((await publish(s, EVENT, { ...EVENT_DATA, title: `Prop event ${i}`, summary: 'S', venue: buildings[i % 2] })).documentId);
    const pages: string[] = [];
    for (let i = 0; i < 4; i += 1)
      pages.push((await publish(s, PAGE, { title: `Prop page ${i}`, summary: 'S', website: i % 2 ? sites.hub : sites.guide })).documentId);
    await settle();

    const keys = [];
    for (const [i, grants] of fc.sample(grantsArb, { seed, numRuns: 5 }).entries()) {
      const key = await subscribe(grants, `/property/${i}`);
      const run = await sync('/api/v2/sync?limit=50', key.auth);
      keys.push({ i, key, grants, next: run.next, view: new Map(run.items.map((item) => [keyOf(item), item])) });
    }

    const toggle = async (uid: string, documentId: string) => {
      const table = uid === EVENT ? 'events' : uid === BUILDING ? 'buildings' : 'pages';
      const published = await s.db.connection(table).where({ document_id: documentId }).whereNotNull('published_at').first();
      if (published) await s.documents(uid as never).unpublish({ documentId } as never);
      else await s.documents(uid as never).publish({ documentId } as never);
    };
    const update = (uid: string, documentId: string, data: Record<string, unknown>) =>
      s.documents(uid as never).update({ documentId, data, status: 'published' } as never);
    const operations: [string, () => Promise<unknown>][] = [
      ['event summary', () => update(EVENT, pick(events), { summary: `Summary ${draw}` })],
      ['event title', () => update(EVENT, pick(events), { title: `Title ${draw}` })],
      ['event venue', () => update(EVENT, pick(events), { venue: pick(buildings) })],
      [
        'event summary published in the admin',
        async () => {
          const id = pick(events);
          await s.documents(EVENT as never).update({ documentId: id, data: { summary: `Draft ${draw}` } } as never);
          await s.documents(EVENT as never).publish({ documentId: id } as never);
        },
      ],
      ['event (un)published', () => toggle(EVENT, pick(events))],
      ['building name', () => update(BUILDING, pick(buildings), { name: `Hall ${draw}` })],
      ['building slug', () => update(BUILDING, pick(buildings), { slug: `hall-${draw}` })],
      ['building (un)published', () => toggle(BUILDING, pick(buildings))],
      ['page title', () => update(PAGE, pick(pages), { title: `Page ${draw}` })],
      ['page summary', () => update(PAGE, pick(pages), { summary: `Page summary ${draw}` })],
      ['page moved', () => update(PAGE, pick(pages), { website: pick([sites.guide, sites.hub]) })],
      ['page related', () => update(PAGE, pick(pages), { relatedPages: [pick(pages)] })],
      ['page (un)published', () => toggle(PAGE, pick(pages))],
      [
        'page replaced',
        async () => {
          const index = pages.indexOf(pick(pages));
          await s.documents(PAGE as never).delete({ documentId: pages[index]! } as never);
          pages[index] = (await publish(s, PAGE, { title: `Page new ${draw}`, website: pick([sites.guide, sites.hub]) })).documentId;
        },
      ],
    ];

    const strip = (item: Item) => ({ ...item, meta: (({ resource, ...meta }) => meta)(item.meta) });
    const log: string[] = [];
    const fail = (what: string) => {
      throw new Error(`${what} (seed ${seed}, operations: ${log.join('; ')})`);
    };
    let checked = 0;
    for (let step = 0; step < 14; step += 1) {
      const [name, operation] = pick(operations);
      log.push(name);
      const mark = receiver.received.length;
      await operation();
      await settle();
      for (const entry of keys) {
        const after = new Map((await sync('/api/v2/sync?limit=50', entry.key.auth)).items.map((item) => [keyOf(item), item]));
        const changed = [...new Set([...entry.view.keys(), ...after.keys()])].filter(
          (id) => JSON.stringify(entry.view.get(id) ?? null) !== JSON.stringify(after.get(id) ?? null),
        );
        const sent = receiver.received.slice(mark).filter((request) => request.path === `/property/${entry.i}`);
        const events = sent.map((request) => JSON.parse(request.body) as Body);
        // A record's payload names no resource (a removal does): it is the record under the resource that reads it now.
        const sameRecord = (event: Body) => (id: string) => id.endsWith(` ${event.data.id}`) && after.get(id)?.type === event.data.type;
        for (const event of events) {
          if (event.type === 'record.unpublished' || event.type === 'record.deleted') {
            const id = keyOf(event.data);
            if (!entry.view.has(id) || after.has(id))
              fail(`key ${entry.i}: ${event.type} of ${id}, which it did not read before or still reads`);
          } else {
            const id = [...after.keys()].find(sameRecord(event));
            if (!id) fail(`key ${entry.i}: ${event.type} of ${event.data.id}, which it does not read`);
            if (!changed.includes(id!)) fail(`key ${entry.i}: ${event.type} of ${id}, unchanged as it reads it`);
            expect(strip(event.data)).toEqual(strip(after.get(id!)!));
          }
          checked += 1;
        }
        // Nothing that changed for the key is left out (one event per change: a page moved between two
        // websites the key reads is the record under the one it joined).
        for (const id of changed)
          if (!events.some((event) => id.endsWith(` ${event.data.id}`) && (entry.view.get(id) ?? after.get(id))!.type === event.data.type))
            fail(
              `key ${entry.i}: no event for ${id}, which changed ${process.env.EVENT_SCOPE_DEBUG ? JSON.stringify({ grants: entry.grants, before: entry.view.get(id), after: after.get(id), events, journal: await s.db.connection('public_api_changes').where({ document_id: id.split(' ')[1] }) }) : ''}`,
            );

        const delta = await sync(entry.next, entry.key.auth);
        for (const item of delta.items) {
          const id = keyOf(item);
          if (isRemoval(item)) {
            if (!entry.view.has(id) || after.has(id))
              fail(`key ${entry.i}: delta removal of ${id}, which it did not read before or still reads`);
          } else if (!changed.includes(id)) fail(`key ${entry.i}: delta item ${id}, unchanged as it reads it`);
          checked += 1;
        }
        expect(delta.items.map(keyOf).sort()).toEqual([...changed].sort());
        entry.view = after;
        entry.next = delta.next;
      }
    }
    expect(log).toHaveLength(14);
    expect(checked).toBeGreaterThan(0);
  });
});

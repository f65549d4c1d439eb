/**
 * References the change journal follows beyond a record's own relation fields (issue 18): a relation
 * inside a dynamic zone (a page's `sections.related-events` section) and upload files behind media fields,
 * directly (a page's `hero`) or inside a component (an event's `seo.ogImage`). When the target changes (the
 * event is updated or unpublished; the media library replaces the file or edits its alt text), the
 * published records holding it get an `updated` entry: the sync feed's delta names them with what they show
 * now (the new asset URL), a webhook sends them with the key's readable fields only, and records that do
 * not hold the target are not named.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import { bootApp, type TestApp } from '../helpers/app';
import { solidImage } from '../helpers/assets';
import { publish, uploadImage, website } from '../helpers/fixtures';
import { createKey } from '../helpers/keys';
import { FAST_WEBHOOKS_ENV, eventually, startReceiver, webhookService, type Receiver } from '../helpers/webhooks';
import { listenOnce } from '../helpers/writes';

const EVENT = 'api::event.event';
const PAGE = 'api::page.page';
const TABLE = 'public_api_changes';
const SITE = 'references';
const PAGES = `cms:${SITE}/pages`;
const EVENT_DATA = { startsAt: '2027-06-01T18:00:00.000Z', category: 'concert' };

let app: TestApp;
let s: Core.Strapi;
let receiver: Receiver;
let site: string;
let reader: { auth: string; id: number };

type Item = { type: string; id: string; attributes?: Record<string, any>; meta: Record<string, unknown> };
type Body = { type: string; data: Item };
type EndpointsService = { create: (key: number, body: unknown) => Promise<{ endpoint: { id: number }; secret: string }> };

const READ = {
  resources: {
    [PAGES]: { actions: ['read'], read: ['title', 'hero', 'sections'] },
    'native:events': { actions: ['read'], read: ['title', 'seo'] },
  },
};

beforeAll(async () => {
  app = await bootApp(FAST_WEBHOOKS_ENV);
  s = app.strapi;
  await listenOnce(app);
  receiver = await startReceiver();
  site = (await website(s, SITE, [{ collection: 'pages', contentType: PAGE, mode: 'collection' }])).documentId;
  reader = await createKey(s, READ);
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/** Follows a sync run from `start` to its last page: its items and the next token's path. */
const syncRun = async (start: string): Promise<{ items: Item[]; next: string }> => {
  const items: Item[] = [];
  for (let next = start; ;) {
    const res = await app.http().get(next).set('Authorization', reader.auth);
    expect(res.status).toBe(200);
    items.push(...(res.body.data as Item[]));
    if (res.body.links.next) next = pathOf(res.body.links.next);
    else return { items, next: pathOf(res.body.links.sync) };
  }
};

/** A token at the end of the journal now (a full run). */
const tokenNow = async () => (await syncRun('/api/v2/sync?limit=100')).next;

const entriesFor = async (uid: string, documentId: string, afterSeq: number) =>
  (await s.db.connection(TABLE).where({ content_type: uid, document_id: documentId }).andWhere('seq', '>', afterSeq)) as {
    kind: string;
    via: string | null;
  }[];
const lastSeq = async () => Number(((await s.db.connection(TABLE).max({ seq: 'seq' })) as { seq: number }[])[0]?.seq ?? 0);

const readable = (item: Item) => Object.keys(item.attributes ?? {}).sort();

describe('a relation inside a dynamic zone', () => {
  test('the pages whose sections link to an event are named when its reference changes or it is unpublished; others are not', async () => {
    const event = await publish(s, EVENT, { ...EVENT_DATA, title: 'Linked concert', slug: 'linked-concert' });
    const linking = await publish(s, PAGE, {
      title: 'Programme',
      website: site,
      sections: [{ __component: 'sections.related-events', heading: 'See also', events: [event.documentId] }],
    });
    const unrelated = await publish(s, PAGE, { title: 'Unrelated', website: site });
    const token = await tokenNow();
    const seq = await lastSeq();

    // A change the reference does not show (the title): the page reads as before, no entry (issue 33).
    await s
      .documents(EVENT as never)
      .update({ documentId: event.documentId, data: { title: 'Linked concert (moved)' }, status: 'published' } as never);
    expect(await entriesFor(PAGE, linking.documentId, seq)).toEqual([]);
    // A new slug: the reference shows it.
    await s
      .documents(EVENT as never)
      .update({ documentId: event.documentId, data: { slug: 'linked-concert-moved' }, status: 'published' } as never);
    expect((await entriesFor(PAGE, linking.documentId, seq)).map((entry) => [entry.kind, entry.via])).toEqual([
      ['updated', 'sections/sections.related-events/events'],
    ]);
    const delta = await syncRun(token);
    const ids = delta.items.map((item) => item.id);
    expect(ids).toContain(linking.documentId);
    expect(ids).toContain(event.documentId);
    expect(ids).not.toContain(unrelated.documentId);
    const page = delta.items.find((item) => item.id === linking.documentId)!;
    expect(page.meta.resource).toBe(PAGES);
    expect(readable(page)).toEqual(['hero', 'sections', 'title']);

    // Unpublished: the section no longer shows it, so the page is named again.
    await s.documents(EVENT as never).unpublish({ documentId: event.documentId } as never);
    const after = await syncRun(delta.next);
    expect(after.items.map((item) => item.id)).toEqual(expect.arrayContaining([linking.documentId, event.documentId]));
    expect(after.items.map((item) => item.id)).not.toContain(unrelated.documentId);
    const shown = after.items.find((item) => item.id === linking.documentId)!;
    expect(JSON.stringify(shown.attributes!.sections)).not.toContain(event.documentId);
  });

  test('a webhook sends the linking page as record.updated with the readable fields only, to keys that read the section', async () => {
    // The section shows the event's reference only to a key that may read events too.
    const sections = await createKey(s, {
      resources: { [PAGES]: { actions: ['read'], read: ['title', 'sections'] }, 'native:events': { actions: ['read'], read: ['title'] } },
    });
    await webhookService<EndpointsService>(s, 'webhook-endpoints').create(sections.id, { url: receiver.url('/pages') });
    // A key that reads the sections but not events: the section shows no reference, so nothing changed for it.
    const blind = await createKey(s, { resources: { [PAGES]: { actions: ['read'], read: ['title', 'sections'] } } });
    await webhookService<EndpointsService>(s, 'webhook-endpoints').create(blind.id, { url: receiver.url('/blind') });
    // A key that does not read the sections reads nothing new when the reference changes (issue 33).
    const titles = await createKey(s, { resources: { [PAGES]: { actions: ['read'], read: ['title'] } } });
    await webhookService<EndpointsService>(s, 'webhook-endpoints').create(titles.id, { url: receiver.url('/titles') });
    const event = await publish(s, EVENT, { ...EVENT_DATA, title: 'Hooked concert', slug: 'hooked-concert' });
    const linking = await publish(s, PAGE, {
      title: 'Hooked programme',
      summary: 'Not granted',
      website: site,
      sections: [{ __component: 'sections.related-events', heading: 'Hooked', events: [event.documentId] }],
    });
    const dispatcher = webhookService<{ turn: () => Promise<void> }>(s, 'webhook-dispatcher');
    await eventually(async () => {
      await dispatcher.turn();
      return ['/pages', '/titles', '/blind'].every((path) =>
        receiver.received.some((request) => request.path === path && request.body.includes(linking.documentId)),
      );
    });
    const before = receiver.received.length;
    await s
      .documents(EVENT as never)
      .update({ documentId: event.documentId, data: { slug: 'hooked-concert-moved' }, status: 'published' } as never);
    await eventually(async () => {
      await dispatcher.turn();
      return receiver.received.slice(before).some((request) => request.path === '/pages' && request.body.includes(linking.documentId));
    });
    // A turn more, for a /titles delivery that should not come.
    await dispatcher.turn();
    const bodies = receiver.received
      .slice(before)
      .filter((request) => request.path === '/pages')
      .map((request) => JSON.parse(request.body) as Body);
    // The event itself (this key reads events) and the page whose section shows it.
    expect(bodies.map((body) => [body.type, body.data.id]).sort()).toEqual(
      [
        ['record.updated', event.documentId],
        ['record.updated', linking.documentId],
      ].sort(),
    );
    const page = bodies.find((body) => body.data.id === linking.documentId)!;
    expect(readable(page.data)).toEqual(['sections', 'title']);
    expect(JSON.stringify(page.data.attributes!.sections)).toContain('hooked-concert-moved');
    expect(JSON.stringify(bodies)).not.toMatch(/Not granted/);
    expect(receiver.received.slice(before).filter((request) => ['/titles', '/blind'].includes(request.path))).toEqual([]);
  });
});

describe('upload files behind media fields', () => {
  /** Replaces a file's bytes as the media library's "Replace" does (the upload plugin's replace). */
  const replaceFile = async (id: number, name: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-journal-'));
    const filepath = path.join(dir, name);
    const bytes = await solidImage(40, 30);
    fs.writeFileSync(filepath, bytes);
    try {
      await s
        .plugin('upload')
        .service('upload')
        .replace(id, { data: { fileInfo: {} }, file: { filepath, originalFilename: name, mimetype: 'image/png', size: bytes.length } });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };

  test('a replaced file: the sync delta names the page (hero) and the event (seo.ogImage) with the new asset URL', async () => {
    const file = await uploadImage(s, 'poster.png');
    const other = await uploadImage(s, 'other.png');
    const event = await publish(s, EVENT, { ...EVENT_DATA, title: 'Poster concert', seo: { metaTitle: 'Poster', ogImage: file.id } });
    const page = await publish(s, PAGE, { title: 'Poster page', website: site, hero: file.id });
    const unrelated = await publish(s, PAGE, { title: 'Other page', website: site, hero: other.id });
    const initial = await syncRun('/api/v2/sync?limit=100');
    const urlOf = (items: Item[], id: string, pick: (item: Item) => { url: string }) => pick(items.find((item) => item.id === id)!).url;
    const heroBefore = urlOf(initial.items, page.documentId, (item) => item.attributes!.hero);
    const ogBefore = urlOf(initial.items, event.documentId, (item) => item.attributes!.seo.ogImage);

    await replaceFile(file.id, 'poster.png');
    const delta = await syncRun(initial.next);
    const ids = delta.items.map((item) => item.id);
    expect(ids).toEqual(expect.arrayContaining([page.documentId, event.documentId]));
    expect(ids).not.toContain(unrelated.documentId);
    expect(urlOf(delta.items, page.documentId, (item) => item.attributes!.hero)).not.toBe(heroBefore);
    expect(urlOf(delta.items, event.documentId, (item) => item.attributes!.seo.ogImage)).not.toBe(ogBefore);
    for (const item of delta.items) {
      expect(readable(item)).toEqual(item.type === 'events' ? ['seo', 'title'] : ['hero', 'sections', 'title']);
    }

    // Alt text edited in the media library: named again, showing it.
    await s.plugin('upload').service('upload').updateFileInfo(file.id, { alternativeText: 'A new description' });
    const edited = await syncRun(delta.next);
    expect(edited.items.map((item) => item.id)).toEqual(expect.arrayContaining([page.documentId, event.documentId]));
    expect(edited.items.find((item) => item.id === page.documentId)!.attributes!.hero.alt).toBe('A new description');

    // A file's folder move writes nothing a record shows: no entry.
    const seq = await lastSeq();
    await s.db.query('plugin::upload.file').update({ where: { id: file.id }, data: { folderPath: '/' } });
    expect(await entriesFor(PAGE, page.documentId, seq)).toEqual([]);
  });
});

/**
 * The revalidation memo (services/revalidation.ts, issue 16): a read revalidated with If-None-Match is
 * answered 304 from what the instance remembers of its last 200 or 304, without reading the records,
 * for as long as nothing the document depends on changed: no change journaled since (the record, an
 * included record), the same grants and preview flag, the same websites and locales. Its 304 carries the
 * same headers as a full read's, and the memo never answers a request a full read would answer otherwise.
 */
import http from 'node:http';
import { bootApp, type TestApp } from '../helpers/app';
import { publish, website } from '../helpers/fixtures';
import { createKey, keysService } from '../helpers/keys';
import { portOf } from '../helpers/raw-http';

let app: TestApp;
let port: number;
const ids: Record<string, string> = {};

const BUILDING = 'api::building.building';
const EVENT = 'api::event.event';

type Key = { auth: string; id: number };
type Raw = { status: number; headers: http.IncomingHttpHeaders; body: string };
type MemoStats = { hits: number; misses: number; stored: number; entries: number };

const memo = () => app.strapi.plugin('public-api').service('revalidation') as { stats: () => MemoStats; clear: () => void };

const request = (method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> =>
  new Promise((resolve, reject) => {
    const all = { Accept: 'application/vnd.api+json', ...headers, ...(body ? { 'Content-Type': 'application/vnd.api+json' } : {}) };
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: all, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });

const get = (key: Key, path: string, headers: Record<string, string> = {}) => request('GET', path, { Authorization: key.auth, ...headers });

/** A 200, then a revalidation that the full read answers (and the memo remembers); returns the tag. */
const remembered = async (key: Key, path: string, headers: Record<string, string> = {}) => {
  const first = await get(key, path, headers);
  expect(first.status).toBe(200);
  const etag = String(first.headers.etag);
  const stored = memo().stats().stored;
  const full = await get(key, path, { ...headers, 'If-None-Match': etag });
  expect(full.status).toBe(304);
  expect(memo().stats().stored).toBe(stored + 1);
  return { etag, first, full };
};

/** A revalidation, and whether the memo answered it. */
const revalidate = async (key: Key, path: string, etag: string, headers: Record<string, string> = {}) => {
  const hits = memo().stats().hits;
  const res = await get(key, path, { ...headers, 'If-None-Match': etag });
  return { res, fromMemo: memo().stats().hits === hits + 1 };
};

const GRANTS = {
  resources: {
    'native:events': { actions: ['read', 'update'], read: ['title', 'summary', 'venue'], write: ['title'] },
    'native:buildings': { actions: ['read'], read: ['name', 'city'] },
    'cms:memo-site/events': { actions: ['read'], read: ['title'] },
  },
};

let key: Key;

beforeAll(async () => {
  app = await bootApp();
  port = await portOf(app);
  const s = app.strapi;
  const hall = await publish(s, BUILDING, { name: 'Hall', slug: 'hall', city: 'Utrecht', floors: 2 });
  ids.hall = hall.documentId;
  for (let i = 0; i < 5; i += 1) {
    const event = await publish(s, EVENT, {
      title: `Event ${i}`,
      slug: `event-${i}`,
      sort: i,
      summary: `A summary long enough to make a page weigh more than a kibibyte: ${'words '.repeat(60)}`,
      startsAt: `2027-06-0${i + 1}T10:00:00.000Z`,
      category: 'concert',
      venue: hall.documentId,
    });
    ids[`e${i}`] = event.documentId;
  }
  await website(s, 'memo-site', [{ collection: 'events', contentType: EVENT, mode: 'collection' }]);
  key = await createKey(s, GRANTS, { name: 'memo' });
});
afterAll(async () => {
  await app?.close();
});

describe('answers from the memo', () => {
  test('a second revalidation is answered from the memo, with the headers of the full read', async () => {
    const path = '/api/v2/events/event-0?include=venue';
    const { etag, full } = await remembered(key, path, { 'Accept-Encoding': 'identity' });
    const { res, fromMemo } = await revalidate(key, path, etag, { 'Accept-Encoding': 'identity' });
    expect(fromMemo).toBe(true);
    expect(res.status).toBe(304);
    expect(res.body).toBe('');
    for (const header of ['etag', 'cache-control', 'vary', 'cache-tag', 'surrogate-key']) {
      expect([header, res.headers[header]]).toEqual([header, full.headers[header]]);
    }
    // A weak form of the tag matches too; another tag is read in full.
    expect((await revalidate(key, path, `W/${etag}`)).fromMemo).toBe(true);
    const other = await revalidate(key, path, '"other"');
    expect(other.fromMemo).toBe(false);
    expect(other.res.status).toBe(200);
  });

  test('the tag of the coding the request asks for (a compressible page)', async () => {
    const path = '/api/v2/events?limit=5';
    const { etag } = await remembered(key, path, { 'Accept-Encoding': 'identity' });
    const br = await revalidate(key, path, etag, { 'Accept-Encoding': 'br' });
    expect(br.fromMemo).toBe(true);
    expect(br.res.status).toBe(304);
    expect(br.res.headers.etag).toBe(`${etag.slice(0, -1)}-br"`);
    const full = await get(key, path, { 'Accept-Encoding': 'br' });
    expect(full.headers.etag).toBe(br.res.headers.etag);
  });

  test('HEAD revalidates like GET', async () => {
    const path = '/api/v2/events/event-1';
    const { etag } = await remembered(key, path);
    const hits = memo().stats().hits;
    const head = await request('HEAD', path, { Authorization: key.auth, 'If-None-Match': etag });
    expect(head.status).toBe(304);
    expect(memo().stats().hits).toBe(hits + 1);
  });
});

describe('never stale', () => {
  test('a change to the record itself: the next revalidation reads it in full and gets a new tag', async () => {
    const path = '/api/v2/events/event-2';
    const { etag } = await remembered(key, path);
    const patched = await request(
      'PATCH',
      path,
      { Authorization: key.auth },
      JSON.stringify({ data: { type: 'events', id: ids.e2, attributes: { title: 'Event 2 renamed' } } }),
    );
    expect(patched.status).toBe(200);
    const { res, fromMemo } = await revalidate(key, path, etag);
    expect(fromMemo).toBe(false);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).data.attributes.title).toBe('Event 2 renamed');
    expect(res.headers.etag).not.toBe(etag);
  });

  test('a change to an included record, made in the content manager', async () => {
    const path = '/api/v2/events/event-3?include=venue';
    const { etag } = await remembered(key, path);
    await app.strapi
      .documents(BUILDING as never)
      .update({ documentId: ids.hall, data: { city: 'Gouda' } as never, status: 'published' } as never);
    const { res, fromMemo } = await revalidate(key, path, etag);
    expect(fromMemo).toBe(false);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).data.attributes.venue.attributes.city).toBe('Gouda');
  });

  test('a change to any other record spends the memo too (coarse, never stale)', async () => {
    const path = '/api/v2/events/event-4';
    const { etag } = await remembered(key, path);
    await publish(app.strapi, BUILDING, { name: 'Barn', slug: 'barn', city: 'Delft', floors: 1 });
    const { res, fromMemo } = await revalidate(key, path, etag);
    expect(fromMemo).toBe(false);
    // The document did not change: the full read answers 304, and the memo holds it again.
    expect(res.status).toBe(304);
    expect((await revalidate(key, path, etag)).fromMemo).toBe(true);
  });

  test("a change to the key's grants: a field taken away is never answered 304 from the old document", async () => {
    const own = await createKey(app.strapi, GRANTS, { name: 'memo grants' });
    const path = '/api/v2/events/event-1';
    const { etag } = await remembered(own, path);
    await keysService(app.strapi).update(own.id, {
      grants: { resources: { 'native:events': { actions: ['read'], read: ['title'] } } },
    });
    const { res, fromMemo } = await revalidate(own, path, etag);
    expect(fromMemo).toBe(false);
    expect(res.status).toBe(200);
    expect(Object.keys(JSON.parse(res.body).data.attributes)).toEqual(['title']);
  });

  test("a change to the website's publications", async () => {
    const path = '/api/v2/cms/memo-site/events/event-1';
    const { etag } = await remembered(key, path);
    expect((await revalidate(key, path, etag)).fromMemo).toBe(true);
    const websites = app.strapi.plugin('public-api').service('websites') as {
      list: () => Promise<{ id: number; slug: string }[]>;
      update: (id: number, input: unknown) => Promise<unknown>;
    };
    const site = (await websites.list()).find((candidate) => candidate.slug === 'memo-site')!;
    await websites.update(site.id, { publications: [] });
    const { res, fromMemo } = await revalidate(key, path, etag);
    expect(fromMemo).toBe(false);
    expect(res.status).toBe(404);
  });

  test('a revoked key is refused before the memo is looked at', async () => {
    const own = await createKey(
      app.strapi,
      { resources: { 'native:events': GRANTS.resources['native:events'] } },
      { name: 'memo revoked' },
    );
    const path = '/api/v2/events/event-0';
    const { etag } = await remembered(own, path);
    await keysService(app.strapi).revoke(own.id);
    expect((await get(own, path, { 'If-None-Match': etag })).status).toBe(401);
  });
});

describe('what is not memoized', () => {
  test('a later page (cursor) and a read without If-None-Match', async () => {
    const first = JSON.parse((await get(key, '/api/v2/events?limit=2')).body);
    const next = new URL(first.links.next).pathname + new URL(first.links.next).search;
    const page = await get(key, next);
    const stored = memo().stats().stored;
    expect((await get(key, next, { 'If-None-Match': String(page.headers.etag) })).status).toBe(304);
    expect((await get(key, next, { 'If-None-Match': String(page.headers.etag) })).status).toBe(304);
    await get(key, '/api/v2/events?limit=3');
    expect(memo().stats().stored).toBe(stored);
  });

  test("an error is not remembered; another key never gets a 304 for this key's tag", async () => {
    const stored = memo().stats().stored;
    expect((await get(key, '/api/v2/events/no-such-event', { 'If-None-Match': '"x"' })).status).toBe(404);
    expect(memo().stats().stored).toBe(stored);
    const narrow = await createKey(
      app.strapi,
      { resources: { 'native:events': { actions: ['read'], read: ['title'] } } },
      { name: 'memo narrow' },
    );
    const path = '/api/v2/events/event-0';
    const { etag } = await remembered(key, path);
    const other = await get(narrow, path, { 'If-None-Match': etag });
    expect(other.status).toBe(200);
  });
});

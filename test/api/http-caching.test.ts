/**
 * HTTP caching and compression of /api/v2 (contract section 14): strong ETags from the exact bytes,
 * If-None-Match and 304, If-Match and 412 on PATCH and DELETE (with Idempotency-Key), Cache-Control per
 * key (a cacheable key, a change applying on the next request), Cache-Tag and Surrogate-Key naming every
 * record in the document, and br/gzip negotiation.
 */
import http from 'node:http';
import zlib from 'node:zlib';
import { bootApp, type TestApp } from '../helpers/app';
import { pathOf } from '../helpers/assets';
import { publish, uploadImage, website } from '../helpers/fixtures';
import { createKey, keysService } from '../helpers/keys';
import { checkResponses } from '../helpers/openapi';
import { portOf } from '../helpers/raw-http';

let app: TestApp;
let port: number;
const ids: Record<string, string> = {};

const BUILDING = 'api::building.building';

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  port = await portOf(app);
  const s = app.strapi;
  const image = await uploadImage(s, 'caching-cover.png');
  const hall = await publish(s, BUILDING, { name: 'Hall', slug: 'hall', city: 'Utrecht', floors: 2 });
  const barn = await publish(s, BUILDING, { name: 'Barn', slug: 'barn', city: 'Gouda', floors: 1 });
  ids.hall = hall.documentId;
  ids.barn = barn.documentId;
  for (let i = 0; i < 12; i += 1) {
    const event = await publish(s, 'api::event.event', {
      title: `Event ${i}`,
      slug: `event-${i}`,
      sort: i,
      summary: `A summary long enough to make a page of events weigh more than a kibibyte: ${'words '.repeat(10)}`,
      startsAt: `2027-06-0${(i % 9) + 1}T10:00:00.000Z`,
      category: 'concert',
      capacity: 100 + i,
      venue: i % 2 ? barn.documentId : hall.documentId,
      cover: image.id,
    });
    ids[`e${i}`] = event.documentId;
  }
  await website(s, 'caching-site', [{ collection: 'home', contentType: 'api::homepage.homepage', mode: 'singleton' }]);
  await publish(s, 'api::homepage.homepage', { headline: 'Welcome', featuredEvents: [ids.e1] });
});
afterAll(async () => {
  await app?.close();
});

const WIDE = {
  resources: {
    'native:events': {
      actions: ['read', 'update', 'delete'],
      read: ['title', 'summary', 'startsAt', 'category', 'venue', 'cover'],
      write: ['title', 'summary'],
    },
    'native:buildings': { actions: ['read'], read: ['name', 'city'] },
    'cms:caching-site/home': { actions: ['read'], read: ['headline', 'featuredEvents'] },
  },
};
const NARROW = { resources: { 'native:events': { actions: ['read'], read: ['title'] } } };

type Key = { auth: string; id: number };
type Raw = { status: number; headers: http.IncomingHttpHeaders; bytes: Buffer };

/** A request with exactly these headers, its body as received (not decoded). */
const request = (method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> =>
  new Promise((resolve, reject) => {
    const accept = path.includes('/openapi') ? 'application/json' : 'application/vnd.api+json';
    const all = { Accept: accept, ...headers, ...(body ? { 'Content-Type': 'application/vnd.api+json' } : {}) };
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: all, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });

const get = (key: Key, path: string, headers: Record<string, string> = {}) => request('GET', path, { Authorization: key.auth, ...headers });
const json = (raw: Raw) => JSON.parse(raw.bytes.toString('utf8'));
const varyOf = (raw: Raw) =>
  String(raw.headers.vary ?? '')
    .split(',')
    .map((field) => field.trim().toLowerCase());

/** PATCH /events/<slug> (event-<n>) with a new title. */
const patchTitle = (key: Key, slug: string, title: string, headers: Record<string, string> = {}) =>
  request(
    'PATCH',
    `/api/v2/events/${slug}`,
    { Authorization: key.auth, ...headers },
    JSON.stringify({ data: { type: 'events', id: ids[slug.replace('event-', 'e')], attributes: { title } } }),
  );

let wide: Key;
let narrow: Key;
beforeAll(async () => {
  wide = await createKey(app.strapi, WIDE, { name: 'wide' });
  narrow = await createKey(app.strapi, NARROW, { name: 'narrow' });
});

describe('ETag and If-None-Match', () => {
  test.each(['/api/v2/events', `/api/v2/events/event-1?include=venue`, '/api/v2/', '/api/v2/commands/schema', '/api/v2/openapi.json'])(
    '%s: a strong ETag, stable, from the bytes; If-None-Match answers 304 with no body and the same headers',
    async (path) => {
      const first = await get(wide, path, { 'Accept-Encoding': 'identity' });
      expect(first.status).toBe(200);
      const etag = String(first.headers.etag);
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      const again = await get(wide, path, { 'Accept-Encoding': 'identity' });
      expect(again.headers.etag).toBe(etag);
      expect(again.bytes.equals(first.bytes)).toBe(true);

      const revalidated = await get(wide, path, { 'Accept-Encoding': 'identity', 'If-None-Match': `"other", ${etag}` });
      expect(revalidated.status).toBe(304);
      expect(revalidated.bytes.length).toBe(0);
      expect(revalidated.headers.etag).toBe(etag);
      expect(revalidated.headers['cache-control']).toBe(first.headers['cache-control']);
      expect(revalidated.headers.vary).toBe(first.headers.vary);
      // A weak form of the tag matches too (If-None-Match compares weakly); another tag does not.
      expect((await get(wide, path, { 'If-None-Match': `W/${etag}` })).status).toBe(304);
      expect((await get(wide, path, { 'If-None-Match': '"nope"' })).status).toBe(200);
      expect((await get(wide, path, { 'If-None-Match': 'not a tag' })).status).toBe(200);
    },
  );

  test('HEAD answers the ETag of GET and honors If-None-Match', async () => {
    const got = await get(wide, '/api/v2/events');
    const head = await request('HEAD', '/api/v2/events', { Authorization: wide.auth });
    expect(head.headers.etag).toBe(got.headers.etag);
    expect((await request('HEAD', '/api/v2/events', { Authorization: wide.auth, 'If-None-Match': String(got.headers.etag) })).status).toBe(
      304,
    );
  });

  test('a page with a next cursor keeps its ETag between requests (the cursor carries the hour, not the instant)', async () => {
    const first = await get(wide, '/api/v2/events?limit=2');
    expect(json(first).links.next).toBeDefined();
    const second = await get(wide, '/api/v2/events?limit=2');
    expect(second.headers.etag).toBe(first.headers.etag);
  });

  test('a change to an included record changes the ETag; the old one no longer revalidates', async () => {
    const path = `/api/v2/events/${ids.e2}?include=venue`;
    const before = await get(wide, path);
    const etag = String(before.headers.etag);
    await app.strapi
      .documents(BUILDING as never)
      .update({ documentId: ids.hall, data: { city: 'Amersfoort' } as never, status: 'published' } as never);
    const after = await get(wide, path, { 'If-None-Match': etag });
    expect(after.status).toBe(200);
    expect(json(after).data.attributes.venue.attributes.city).toBe('Amersfoort');
    expect(after.headers.etag).not.toBe(etag);
  });

  test('keys that see different documents get different ETags for the same URL', async () => {
    const a = await get(wide, `/api/v2/events/${ids.e3}`);
    const b = await get(narrow, `/api/v2/events/${ids.e3}`);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.headers.etag).not.toBe(b.headers.etag);
    // A tag of one key's document does not revalidate the other's.
    expect((await get(narrow, `/api/v2/events/${ids.e3}`, { 'If-None-Match': String(a.headers.etag) })).status).toBe(200);
  });
});

describe('Cache-Control', () => {
  test('private, no-cache by default with Vary: Authorization; errors and writes are no-store', async () => {
    const read = await get(wide, '/api/v2/events');
    expect(read.headers['cache-control']).toBe('private, no-cache');
    expect(varyOf(read)).toContain('authorization');
    const missing = await get(wide, '/api/v2/events/no-such-event');
    expect(missing.status).toBe(404);
    expect(missing.headers['cache-control']).toBe('no-store');
    expect(missing.headers.etag).toBeUndefined();
    const unauthenticated = await request('GET', '/api/v2/events', {});
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers['cache-control']).toBe('no-store');
    const written = await patchTitle(wide, 'event-4', 'Event 4 renamed');
    expect(written.status).toBe(200);
    expect(written.headers['cache-control']).toBe('no-store');
  });

  test('a cacheable key says public, s-maxage and stale-while-revalidate; a change applies on the next request', async () => {
    const key = await createKey(app.strapi, NARROW, { name: 'cacheable' });
    expect((await get(key, '/api/v2/events')).headers['cache-control']).toBe('private, no-cache');
    await keysService(app.strapi).update(key.id, { cache: { sharedMaxAge: 90 } });
    const shared = await get(key, '/api/v2/events');
    expect(shared.headers['cache-control']).toBe('public, s-maxage=90, stale-while-revalidate=90');
    expect(varyOf(shared)).toContain('authorization');
    // Its errors stay out of caches.
    expect((await get(key, '/api/v2/events/no-such-event')).headers['cache-control']).toBe('no-store');
    await keysService(app.strapi).update(key.id, { cache: null });
    expect((await get(key, '/api/v2/events')).headers['cache-control']).toBe('private, no-cache');
  });

  test('a cache policy out of range is refused with the field named', async () => {
    await expect(keysService(app.strapi).update(wide.id, { cache: { sharedMaxAge: 0 } })).rejects.toMatchObject({
      details: { errors: [expect.objectContaining({ path: ['cache', 'sharedMaxAge'] })] },
    });
    await expect(keysService(app.strapi).update(wide.id, { cache: { maxAge: 5 } })).rejects.toThrow(/no field 'maxAge'/);
  });
});

describe('Cache-Tag and Surrogate-Key', () => {
  test('a record names its resource, itself, and every record it shows (included and referenced ones too)', async () => {
    const res = await get(wide, `/api/v2/events/${ids.e5}?include=venue`);
    const tags = String(res.headers['cache-tag']).split(',');
    expect(tags).toEqual(['events', 'buildings', `events:${ids.e5}`, `buildings:${ids.barn}`]);
    expect(res.headers['surrogate-key']).toBe(tags.join(' '));
    const plain = String((await get(wide, `/api/v2/events/${ids.e5}`)).headers['cache-tag']).split(',');
    // A reference shows the target's slug: its record is named too.
    expect(plain).toEqual(expect.arrayContaining(['events', `events:${ids.e5}`, `buildings:${ids.barn}`]));
  });

  test('a CMS record names its website resource; a relation to a native resource names the native one', async () => {
    const res = await get(wide, '/api/v2/cms/caching-site/home');
    expect(res.status).toBe(200);
    const tags = String(res.headers['cache-tag']).split(',');
    expect(tags).toEqual(['caching-site/home', 'events', `caching-site/home:${json(res).data.id}`, `events:${ids.e1}`]);
  });

  test('a page names every record on it', async () => {
    const res = await get(narrow, '/api/v2/events?limit=5');
    const shown = json(res).data.map((record: { id: string }) => `events:${record.id}`);
    expect(String(res.headers['cache-tag']).split(',')).toEqual(['events', ...shown]);
  });

  test('documents that are not records have their own tag; errors have none', async () => {
    expect((await get(wide, '/api/v2/')).headers['cache-tag']).toBe('_index');
    const openapi = await get(wide, '/api/v2/openapi.json');
    expect(openapi.status).toBe(200);
    expect(openapi.headers['cache-tag']).toBe('_openapi');
    expect((await get(wide, '/api/v2/commands/schema')).headers['cache-tag']).toBe('_commands');
    expect((await get(wide, '/api/v2/events/no-such-event')).headers['cache-tag']).toBeUndefined();
  });
});

describe('If-Match on PATCH and DELETE', () => {
  test('the ETag of the GET lets the write through; the answer carries the ETag of the next GET', async () => {
    const read = await get(wide, `/api/v2/events/event-6`);
    const written = await patchTitle(wide, 'event-6', 'Event 6 v2', { 'If-Match': String(read.headers.etag) });
    expect(written.status).toBe(200);
    const next = await get(wide, `/api/v2/events/event-6`, { 'Accept-Encoding': 'identity' });
    expect(written.headers.etag).toBe(next.headers.etag);
    // The tag read at the record's id URL holds as well, and so does the tag of a compressed representation.
    const byId = await get(wide, `/api/v2/events/${ids.e6}`, { 'Accept-Encoding': 'gzip' });
    expect(String(byId.headers.etag)).toMatch(/-gzip"$/);
    expect((await patchTitle(wide, 'event-6', 'Event 6 v3', { 'If-Match': String(byId.headers.etag) })).status).toBe(200);
  });

  test('a stale ETag is 412 precondition_failed, and nothing is written', async () => {
    const read = await get(wide, `/api/v2/events/event-7`);
    expect((await patchTitle(wide, 'event-7', 'Event 7 v2')).status).toBe(200);
    const refused = await patchTitle(wide, 'event-7', 'Event 7 lost update', { 'If-Match': String(read.headers.etag) });
    expect(refused.status).toBe(412);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(json(refused).errors[0]).toMatchObject({
      status: '412',
      code: 'precondition_failed',
      source: { header: 'If-Match' },
      meta: { reason: 'precondition_failed' },
    });
    expect(json(await get(wide, `/api/v2/events/event-7`)).data.attributes.title).toBe('Event 7 v2');
    const deleted = await request('DELETE', `/api/v2/events/event-7`, { Authorization: wide.auth, 'If-Match': String(read.headers.etag) });
    expect(deleted.status).toBe(412);
    expect((await get(wide, `/api/v2/events/event-7`)).status).toBe(200);
  });

  test('`*` holds for an existing record; a weak tag never does; a malformed header is 400', async () => {
    expect((await patchTitle(wide, 'event-8', 'Event 8 v2', { 'If-Match': '*' })).status).toBe(200);
    const read = await get(wide, `/api/v2/events/event-8`);
    expect((await patchTitle(wide, 'event-8', 'Event 8 v3', { 'If-Match': `W/${read.headers.etag}` })).status).toBe(412);
    for (const malformed of ['abc', '"unclosed', '']) {
      const res = await patchTitle(wide, 'event-8', 'Event 8 v4', { 'If-Match': malformed });
      expect(res.status).toBe(400);
      expect(json(res).errors[0]).toMatchObject({ source: { header: 'If-Match' }, meta: { reason: 'if_match_invalid' } });
    }
  });

  test('of two writes sent at once with the same ETag, exactly one passes', async () => {
    const read = await get(wide, `/api/v2/events/event-11`);
    const tag = { 'If-Match': String(read.headers.etag) };
    const answers = await Promise.all([patchTitle(wide, 'event-11', 'Event 11 a', tag), patchTitle(wide, 'event-11', 'Event 11 b', tag)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 412]);
  });

  test('DELETE with the current ETag removes or archives the record', async () => {
    const read = await get(wide, `/api/v2/events/event-9`);
    const deleted = await request('DELETE', `/api/v2/events/event-9`, { Authorization: wide.auth, 'If-Match': String(read.headers.etag) });
    expect([200, 204]).toContain(deleted.status);
    expect((await get(wide, `/api/v2/events/event-9`)).status).toBe(404);
  });

  test('with Idempotency-Key, a retry replays the answer although the record has changed since', async () => {
    const read = await get(wide, `/api/v2/events/event-10`);
    const headers = { 'If-Match': String(read.headers.etag), 'Idempotency-Key': 'caching-if-match-1' };
    const first = await patchTitle(wide, 'event-10', 'Event 10 v2', headers);
    expect(first.status).toBe(200);
    const replay = await patchTitle(wide, 'event-10', 'Event 10 v2', headers);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers.etag).toBe(first.headers.etag);
  });

  test('with Idempotency-Key, a 412 is not kept: the retry with the new ETag and the same key writes', async () => {
    const stale = String((await get(wide, `/api/v2/events/event-10`)).headers.etag);
    expect((await patchTitle(wide, 'event-10', 'Event 10 v3')).status).toBe(200);
    const key = { 'Idempotency-Key': 'caching-if-match-2' };
    const refused = await patchTitle(wide, 'event-10', 'Event 10 v4', { ...key, 'If-Match': stale });
    expect(refused.status).toBe(412);
    const fresh = String((await get(wide, `/api/v2/events/event-10`)).headers.etag);
    const written = await patchTitle(wide, 'event-10', 'Event 10 v4', { ...key, 'If-Match': fresh });
    expect(written.status).toBe(200);
    expect(written.headers['idempotent-replayed']).toBeUndefined();
    expect(json(await get(wide, `/api/v2/events/event-10`)).data.attributes.title).toBe('Event 10 v4');
  });
});

describe('compression', () => {
  const page = '/api/v2/events?limit=12';

  test('br when accepted, gzip when br is refused, none when both are; Vary: Accept-Encoding', async () => {
    const identity = await get(wide, page, { 'Accept-Encoding': 'identity' });
    expect(identity.bytes.length).toBeGreaterThan(1024);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(varyOf(identity)).toContain('accept-encoding');

    const br = await get(wide, page, { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(br.bytes).equals(identity.bytes)).toBe(true);
    expect(br.bytes.length).toBeLessThan(identity.bytes.length / 2);
    expect(br.headers.etag).toBe(`${String(identity.headers.etag).slice(0, -1)}-br"`);
    expect(Number(br.headers['content-length'])).toBe(br.bytes.length);

    const gzip = await get(wide, page, { 'Accept-Encoding': 'br;q=0, gzip;q=0.5' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gzip.bytes).equals(identity.bytes)).toBe(true);

    for (const refused of ['br;q=0, gzip;q=0', '*;q=0, identity', 'deflate', 'gzip;q=0.2, identity;q=1']) {
      const res = await get(wide, page, { 'Accept-Encoding': refused });
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.bytes.equals(identity.bytes)).toBe(true);
    }
    expect((await get(wide, page, { 'Accept-Encoding': '*' })).headers['content-encoding']).toBe('br');
  });

  test('an If-None-Match with the tag of another coding still revalidates, and the 304 carries the tag of this one', async () => {
    const gzip = await get(wide, page, { 'Accept-Encoding': 'gzip' });
    const res = await get(wide, page, { 'Accept-Encoding': 'br', 'If-None-Match': String(gzip.headers.etag) });
    expect(res.status).toBe(304);
    expect(String(res.headers.etag)).toMatch(/-br"$/);
    expect(varyOf(res)).toContain('accept-encoding');
  });

  test('a document under 1 KiB is sent as it is, without Vary: Accept-Encoding', async () => {
    const res = await get(narrow, `/api/v2/events/${ids.e0}`, { 'Accept-Encoding': 'br, gzip' });
    expect(res.bytes.length).toBeLessThan(1024);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(varyOf(res)).not.toContain('accept-encoding');
  });

  test('images are never compressed', async () => {
    const record = json(await get(wide, `/api/v2/events/${ids.e0}`));
    const asset = await request('GET', pathOf(record.data.attributes.cover.url), { 'Accept-Encoding': 'br, gzip' });
    expect(asset.status).toBe(200);
    expect(asset.headers['content-encoding']).toBeUndefined();
  });
});

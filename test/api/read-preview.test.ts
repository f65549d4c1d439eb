/**
 * Preview keys (contract section 15, issue 17): `status=draft` reads the latest draft of each record,
 * for collections, single records, singletons, filters, cursors and `include`, answered with
 * `Cache-Control: no-store`; other keys get 403, and drafts never reach published reads.
 */
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { draft, ensureLocale, publish, website } from '../helpers/fixtures';

let app: TestApp;
const ids: Record<string, string> = {};

const GRANTS = {
  resources: {
    'native:events': { actions: ['read'], read: ['title', 'sort', 'venue'] },
    'native:buildings': { actions: ['read'], read: ['name'] },
    'cms:preview-site/home': { actions: ['read'], read: ['headline'] },
  },
};

type Key = { auth: string };
let preview: Key;
let plain: Key;

/** Saves a draft over a published record: the draft is newer than what is published. */
const editDraft = (uid: string, documentId: string, data: Record<string, unknown>) =>
  app.strapi.documents(uid as never).update({ documentId, data: data as never } as never);

/** The required values of an event that the tests do not look at. */
const EVENT = { startsAt: '2027-06-01T19:30:00.000Z', category: 'concert' };

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  const s = app.strapi;
  await ensureLocale(s, 'de', 'German');
  const hall = await publish(s, 'api::building.building', { name: 'Main Hall', slug: 'main-hall', sort: 1 });
  ids.hall = hall.documentId;
  const jazz = await publish(s, 'api::event.event', { ...EVENT, title: 'Jazz Night', slug: 'jazz-night', sort: 1, venue: hall.documentId });
  ids.jazz = jazz.documentId;
  const talk = await publish(s, 'api::event.event', { ...EVENT, title: 'Talk', slug: 'talk', sort: 2 });
  ids.talk = talk.documentId;
  const secret = await draft(s, 'api::event.event', {
    ...EVENT,
    title: 'Secret draft',
    slug: 'secret-draft',
    sort: 3,
    venue: hall.documentId,
  });
  ids.secret = secret.documentId;
  await editDraft('api::event.event', jazz.documentId, { title: 'Jazz Night (draft)' });
  await editDraft('api::building.building', hall.documentId, { name: 'Main Hall (draft)' });
  await website(s, 'preview-site', [{ collection: 'home', contentType: 'api::homepage.homepage', mode: 'singleton' }]);
  const home = await publish(s, 'api::homepage.homepage', { headline: 'Welcome' });
  await editDraft('api::homepage.homepage', home.documentId, { headline: 'Welcome (draft)' });
  preview = await createKey(s, GRANTS, { name: 'preview site', preview: true });
  plain = await createKey(s, GRANTS, { name: 'public site' });
});
afterAll(async () => {
  await app?.close();
});

const get = async (key: Key, path: string, status = 200) => {
  const res = await app.http().get(path).set('Authorization', key.auth);
  if (res.status !== status) throw new Error(`${path}: expected ${status}, got ${res.status}\n${res.text}`);
  expectValidJsonApi(res.body);
  return res;
};

const titles = (body: { data: { attributes: { title: string } }[] }) => body.data.map((record) => record.attributes.title);

describe('published reads never show drafts', () => {
  test.each([
    ['a preview key', () => preview],
    ['another key', () => plain],
  ])('%s reads the published versions, without meta.status', async (_name, key) => {
    for (const path of ['/api/v2/events', '/api/v2/events?status=published']) {
      const res = await get(key(), `${path}${path.includes('?') ? '&' : '?'}include=venue`);
      expect(titles(res.body)).toEqual(['Jazz Night', 'Talk']);
      expect(res.body.data[0].attributes.venue.attributes.name).toBe('Main Hall');
      expect(res.body.data[0].meta).not.toHaveProperty('status');
      expect(res.headers['cache-control']).toBe('private, no-cache');
    }
    await get(key(), '/api/v2/events/secret-draft', 404);
    expect((await get(key(), '/api/v2/events/jazz-night')).body.data.attributes.title).toBe('Jazz Night');
    expect((await get(key(), '/api/v2/cms/preview-site/home')).body.data.attributes.headline).toBe('Welcome');
    expect((await get(key(), '/api/v2/events?filter[title]=Jazz Night (draft)')).body.data).toEqual([]);
  });
});

describe('draft reads of a preview key', () => {
  test('a collection reads the latest draft of every record, never-published ones too, with meta.status and no-store', async () => {
    const res = await get(preview, '/api/v2/events?status=draft');
    expect(titles(res.body)).toEqual(['Jazz Night (draft)', 'Talk', 'Secret draft']);
    expect(res.body.data.map((record: { meta: { status: string } }) => record.meta.status)).toEqual(['published', 'published', 'draft']);
    // A draft has no publication date of its own.
    expect(res.body.data[0].meta.publishedAt).toBeNull();
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.etag).toMatch(/^"/);
  });

  test('single records by slug and id, and singletons', async () => {
    const bySlug = await get(preview, '/api/v2/events/secret-draft?status=draft');
    expect(bySlug.body.data.attributes.title).toBe('Secret draft');
    expect(bySlug.body.data.meta.status).toBe('draft');
    expect(bySlug.headers['cache-control']).toBe('no-store');
    const byId = await get(preview, `/api/v2/events/${ids.jazz}?status=draft`);
    expect(byId.body.data.attributes.title).toBe('Jazz Night (draft)');
    expect(byId.body.data.meta.status).toBe('published');
    const home = await get(preview, '/api/v2/cms/preview-site/home?status=draft');
    expect(home.body.data.attributes.headline).toBe('Welcome (draft)');
    expect(home.headers['cache-control']).toBe('no-store');
  });

  test('include expands the drafts of the targets, with the grants on the target', async () => {
    const res = await get(preview, '/api/v2/events?status=draft&include=venue');
    const [jazz, talk, secret] = res.body.data;
    expect(jazz.attributes.venue.attributes).toEqual({ name: 'Main Hall (draft)' });
    expect(jazz.attributes.venue.meta.status).toBe('published');
    expect(talk.attributes.venue).toBeNull();
    expect(secret.attributes.venue.id).toBe(ids.hall);
    const one = await get(preview, '/api/v2/events/secret-draft?status=draft&include=venue');
    expect(one.body.data.attributes.venue.attributes.name).toBe('Main Hall (draft)');
  });

  test('filters and sort match the drafts', async () => {
    const byTitle = await get(preview, '/api/v2/events?status=draft&filter[title]=Jazz Night (draft)');
    expect(titles(byTitle.body)).toEqual(['Jazz Night (draft)']);
    const byVenue = await get(preview, '/api/v2/events?status=draft&filter[venue]=main-hall&sort=-sort');
    expect(titles(byVenue.body)).toEqual(['Secret draft', 'Jazz Night (draft)']);
  });

  test('cursors and links.next keep the status; a cursor serves only reads of its own status', async () => {
    const first = await get(preview, '/api/v2/events?status=draft&limit=2');
    expect(new URL(first.body.links.next).searchParams.get('status')).toBe('draft');
    const next = new URL(first.body.links.next);
    const second = await get(preview, `${next.pathname}${next.search}`);
    expect(titles(second.body)).toEqual(['Secret draft']);
    expect(second.headers['cache-control']).toBe('no-store');

    const cursor = encodeURIComponent(first.body.meta.page.nextCursor);
    const onPublished = await get(preview, `/api/v2/events?limit=2&cursor=${cursor}`, 400);
    expect(onPublished.body.errors[0].meta.reason).toBe('cursor_mismatch');
    const published = await get(preview, '/api/v2/events?limit=1');
    const publishedCursor = encodeURIComponent(published.body.meta.page.nextCursor);
    const onDraft = await get(preview, `/api/v2/events?status=draft&limit=1&cursor=${publishedCursor}`, 400);
    expect(onDraft.body.errors[0].meta.reason).toBe('cursor_mismatch');
  });
});

describe('cost', () => {
  type QueryEvent = { sql: string };
  /** The SQL statements one request runs (after a warm-up that authenticated the key). */
  const statements = async (path: string): Promise<string[]> => {
    await get(preview, path);
    await app.flushKeyUse();
    const seen: string[] = [];
    const listener = (query: QueryEvent) => seen.push(query.sql);
    const connection = app.strapi.db.connection as unknown as {
      on: (event: string, listener: (query: QueryEvent) => void) => void;
      off: (event: string, listener: (query: QueryEvent) => void) => void;
    };
    connection.on('query', listener);
    try {
      await get(preview, path);
    } finally {
      connection.off('query', listener);
    }
    return seen;
  };

  test('a draft read runs as many statements as the published read, however many records (no query per row)', async () => {
    // The fewest of three: the process's own timers (the usage counters' flush, the webhook dispatcher, the
    // locale list's refresh) may run a statement while one request is watched.
    const count = async (query: string) => {
      const counts: number[] = [];
      for (let round = 0; round < 3; round += 1) counts.push((await statements(`/api/v2/events?include=venue&${query}`)).length);
      return Math.min(...counts);
    };
    expect(await count('status=draft&limit=1')).toBe(await count('limit=1'));
    expect(await count('status=draft&limit=2')).toBe(await count('status=draft&limit=1'));
    // A page that reaches the end reads the records without a sort value too (one segment more), drafts alike.
    expect(await count('status=draft&limit=3')).toBe(await count('limit=3'));
    const twoDrafts = await statements('/api/v2/events?status=draft&include=venue&limit=2');
    // meta.status is a subquery of the page query and of the expanded records' query, not a statement of its own.
    expect(twoDrafts.filter((sql) => /exists/i.test(sql)).length).toBe(2);
  });
});

describe('refusals', () => {
  test.each(['/api/v2/events?status=draft', '/api/v2/events/secret-draft?status=draft', '/api/v2/cms/preview-site/home?status=draft'])(
    'a key that is not a preview key gets 403 for %s, and learns nothing about drafts',
    async (path) => {
      const res = await get(plain, path, 403);
      expect(res.body.errors).toEqual([
        expect.objectContaining({
          status: '403',
          code: 'forbidden',
          source: { parameter: 'status' },
          meta: { reason: 'preview_not_granted' },
        }),
      ]);
      expect(res.text).not.toContain('Secret');
      expect(res.headers['cache-control']).toBe('no-store');
    },
  );

  test.each(['Draft', 'drafts', '', 'any'])('status=%j is a 400 on status for any key', async (value) => {
    for (const key of [preview, plain]) {
      for (const path of ['/api/v2/events', '/api/v2/events/talk', '/api/v2/cms/preview-site/home']) {
        const res = await get(key, `${path}?status=${encodeURIComponent(value)}`, 400);
        expect(res.body.errors[0]).toMatchObject({
          code: 'bad_request',
          source: { parameter: 'status' },
          meta: { reason: 'status_invalid' },
        });
      }
    }
  });
});

describe('OpenAPI', () => {
  const parameterNames = (
    document: { paths: Record<string, { get?: { parameters?: { $ref?: string; name?: string }[] } }> },
    path: string,
  ) => (document.paths[path]?.get?.parameters ?? []).map((parameter) => parameter.name ?? parameter.$ref);

  test('only a preview key is told about status and meta.status', async () => {
    const previewDoc = (await app.http().get('/api/v2/schema').set('Authorization', preview.auth)).body;
    const plainDoc = (await app.http().get('/api/v2/schema').set('Authorization', plain.auth)).body;
    expect(parameterNames(previewDoc, '/events')).toContain('#/components/parameters/Status');
    expect(parameterNames(previewDoc, '/cms/preview-site/home')).toContain('#/components/parameters/Status');
    expect(previewDoc.components.schemas.RecordMeta.properties.status.enum).toEqual(['draft', 'published']);
    expect(JSON.stringify(plainDoc)).not.toMatch(/Status|draft/);
    expect(plainDoc.components.schemas.RecordMeta.properties).not.toHaveProperty('status');
  });
});

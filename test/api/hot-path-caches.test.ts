/**
 * What the lean read path keeps between requests, and what it never keeps (issue 16):
 *
 * - websites and the resources built from them are kept per instance, keyed by the rows themselves: a
 *   change written to the database by anyone (here by SQL, as another instance's write looks to this
 *   one: no hook of this process runs) is seen on the very next request;
 * - the key is read on every request through one prepared statement: a key revoked, changed or
 *   regenerated in the database is refused or honoured as it now is on the very next request, and the
 *   key id has a unique index;
 * - richtext conversions are kept by record identity and version: a changed body is read as it now is;
 * - records are kept by everything they are made of (serialize/record-texts.ts): a value, a reference's
 *   target or a file changed in the database by anyone, even without a new updatedAt, is read as it now is.
 */
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { bootApp, type TestApp } from '../helpers/app';
import { createKey } from '../helpers/keys';
import { BLOCKS, publish, website } from '../helpers/fixtures';

let app: TestApp;
let db: Knex;

const PAGES = { collection: 'pages', contentType: 'api::page.page', mode: 'collection' };
const SETTINGS = { collection: 'settings', contentType: 'api::setting.setting', mode: 'singleton' };

beforeAll(async () => {
  app = await bootApp();
  db = app.strapi.db.connection as unknown as Knex;
});
afterAll(async () => {
  await app?.close();
});

const get = (path: string, auth: string) => app.http().get(path).set('Authorization', auth);
const indexIds = async (auth: string) => ((await get('/api/v2/', auth)).body.data as { id: string }[]).map((entry) => entry.id);

describe('websites', () => {
  test('a change written to the database elsewhere is seen on the next request', async () => {
    await website(app.strapi, 'hot-guide', [PAGES, SETTINGS]);
    const key = await createKey(app.strapi, {
      resources: {
        'cms:hot-guide/pages': { actions: ['read'], read: ['title'] },
        'cms:hot-guide/settings': { actions: ['read'], read: ['siteName'] },
      },
    });
    expect(await indexIds(key.auth)).toEqual(['cms:hot-guide/pages', 'cms:hot-guide/settings']);
    // Another instance withdraws the settings.
    await db('public_api_websites')
      .where({ slug: 'hot-guide' })
      .update({ publications: JSON.stringify([PAGES]) });
    expect(await indexIds(key.auth)).toEqual(['cms:hot-guide/pages']);
    expect((await get('/api/v2/cms/hot-guide/pages', key.auth)).status).toBe(200);
    expect((await get('/api/v2/cms/hot-guide/settings', key.auth)).status).toBe(404);

    // Another instance publishes the settings too, and renames the pages.
    await db('public_api_websites')
      .where({ slug: 'hot-guide' })
      .update({ publications: JSON.stringify([{ ...PAGES, name: 'Guide pages' }, SETTINGS]) });
    const index = (await get('/api/v2/', key.auth)).body.data as { id: string; attributes: { name: string } }[];
    expect(index.map((entry) => [entry.id, entry.attributes.name])).toEqual([
      ['cms:hot-guide/pages', 'Guide pages'],
      ['cms:hot-guide/settings', 'Settings'],
    ]);

    // ... then withdraws the pages: gone from the index and at their path, at once.
    await db('public_api_websites')
      .where({ slug: 'hot-guide' })
      .update({ publications: JSON.stringify([SETTINGS]) });
    expect(await indexIds(key.auth)).toEqual(['cms:hot-guide/settings']);
    expect((await get('/api/v2/cms/hot-guide/pages', key.auth)).status).toBe(404);

    // ... and deletes the website.
    await db('public_api_websites').where({ slug: 'hot-guide' }).delete();
    expect(await indexIds(key.auth)).toEqual([]);
    expect((await get('/api/v2/cms/hot-guide/settings', key.auth)).status).toBe(404);
  });
});

describe('keys', () => {
  test('revoked, changed or regenerated in the database: the next request sees it', async () => {
    const key = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: ['title'] } } });
    const other = await createKey(app.strapi, { resources: { 'native:jobs': { actions: ['read'], read: ['title'] } } });
    expect((await get('/api/v2/events', key.auth)).status).toBe(200);

    await db('public_api_keys').where({ key_id: key.keyId }).update({ revoked: true });
    expect((await get('/api/v2/events', key.auth)).status).toBe(401);
    await db('public_api_keys').where({ key_id: key.keyId }).update({ revoked: false });
    expect((await get('/api/v2/events', key.auth)).status).toBe(200);

    // Grants changed: the next request is judged by the new ones.
    await db('public_api_keys')
      .where({ key_id: key.keyId })
      .update({ grants: JSON.stringify({ 'native:jobs': { actions: ['read'], read: ['title'], write: [] } }) });
    expect((await get('/api/v2/events', key.auth)).status).toBe(403);
    expect((await get('/api/v2/jobs', key.auth)).status).toBe(200);

    // Expired.
    await db('public_api_keys')
      .where({ key_id: key.keyId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await get('/api/v2/jobs', key.auth)).status).toBe(401);

    // Another key's secret in place of this one's (a regenerated key): the old plaintext stops working.
    const otherHash = (await db('public_api_keys').where({ key_id: other.keyId }).first('secret_hash')).secret_hash as string;
    await db('public_api_keys').where({ key_id: key.keyId }).update({ expires_at: null, secret_hash: otherHash });
    expect((await get('/api/v2/jobs', key.auth)).status).toBe(401);
    expect((await get('/api/v2/jobs', other.auth)).status).toBe(200);
  });

  test('grants changed in the database: a revalidation is answered by the new grants (200, a new ETag, the field gone)', async () => {
    // The parsed grants and the projections made from them are kept between requests by the text read:
    // this checks that what is kept never outlives that text, in either direction.
    const grants = (read: string[]) => JSON.stringify({ 'native:events': { actions: ['read'], read, write: [] } });
    const key = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: ['title', 'summary'] } } });
    const event = await publish(app.strapi, 'api::event.event', {
      title: 'Granted',
      summary: 'Withdrawn later',
      startsAt: '2027-01-01T10:00:00.000Z',
      category: 'talk',
    });
    const path = `/api/v2/events/${event.documentId}`;
    // One Host for every request: the self link (and so the tag) would otherwise carry each request's port.
    const get = (target: string, auth: string) => app.http().get(target).set('Authorization', auth).set('Host', 'hot.test');
    const first = await get(path, key.auth);
    expect(first.status).toBe(200);
    const etag = String(first.headers.etag);
    expect((first.body.meta.fields as { key: string }[]).map((field) => field.key)).toEqual(['title', 'summary']);
    expect((await get(path, key.auth).set('If-None-Match', etag)).status).toBe(304);

    await db('public_api_keys')
      .where({ key_id: key.keyId })
      .update({ grants: grants(['title']) });
    const narrowed = await get(path, key.auth).set('If-None-Match', etag);
    expect(narrowed.status).toBe(200);
    expect(narrowed.headers.etag).not.toBe(etag);
    expect((narrowed.body.meta.fields as { key: string }[]).map((field) => field.key)).toEqual(['title']);
    expect(Object.keys(narrowed.body.data.attributes as object)).toEqual(['title']);
    expect(JSON.stringify(narrowed.body)).not.toMatch(/summary|Withdrawn later/);

    // The first grants again: the first document and tag again.
    await db('public_api_keys')
      .where({ key_id: key.keyId })
      .update({ grants: grants(['title', 'summary']) });
    expect((await get(path, key.auth).set('If-None-Match', etag)).status).toBe(304);
    // Its rate limit, read with the same row, applies on the next request too.
    await db('public_api_keys')
      .where({ key_id: key.keyId })
      .update({ limits: JSON.stringify({ requests: 1000, window: 3600 }) });
    expect((await get(path, key.auth)).headers['ratelimit-policy']).toBe('"key";q=1000;w=3600');
  });

  test('the resource index, kept by grants and websites, follows a grant changed in the database at once (issue 37)', async () => {
    const grants = (ids: string[]) =>
      JSON.stringify(Object.fromEntries(ids.map((id) => [id, { actions: ['read'], read: ['title'], write: [] }])));
    const key = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: ['title'] } } });
    const index = () => app.http().get('/api/v2/').set('Authorization', key.auth).set('Host', 'hot.test');
    const first = await index();
    expect((first.body.data as { id: string }[]).map((entry) => entry.id)).toEqual(['native:events']);
    // Read again: the same bytes and tag.
    const again = await index();
    expect(again.text).toBe(first.text);
    expect(again.headers.etag).toBe(first.headers.etag);

    await db('public_api_keys')
      .where({ key_id: key.keyId })
      .update({ grants: grants(['native:events', 'native:jobs']) });
    const widened = await index();
    expect((widened.body.data as { id: string }[]).map((entry) => entry.id)).toEqual(['native:events', 'native:jobs']);
    expect(widened.headers.etag).not.toBe(first.headers.etag);
    expect(widened.headers.etag).toBe(`"${createHash('sha256').update(widened.text).digest('base64url').slice(0, 27)}"`);

    await db('public_api_keys')
      .where({ key_id: key.keyId })
      .update({ grants: grants(['native:jobs']) });
    expect(((await index()).body.data as { id: string }[]).map((entry) => entry.id)).toEqual(['native:jobs']);
  });

  test('the key id has a unique index', async () => {
    const name = 'public_api_keys_pda_key_id';
    const client = app.strapi.db.dialect.client;
    const found =
      client === 'postgres'
        ? await db('pg_indexes').where({ indexname: name }).select('indexdef')
        : client === 'mysql'
          ? // MariaDB: one row per column of the index; NON_UNIQUE 0 for a unique one.
            (
              (await db('information_schema.statistics')
                .where({ table_schema: db.raw('DATABASE()'), index_name: name })
                .select({ non_unique: 'non_unique' })) as { non_unique: number | string }[]
            ).map((row) => ({ indexdef: Number(row.non_unique) === 0 ? 'UNIQUE INDEX' : 'INDEX' }))
          : await db('sqlite_master').where({ type: 'index', name }).select({ indexdef: 'sql' });
    expect(found).toHaveLength(1);
    expect(String(found[0]!.indexdef)).toMatch(/UNIQUE INDEX/i);
  });
});

describe('richtext', () => {
  test('a changed body is read as it now is', async () => {
    const key = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: ['title', 'body'] } } });
    const event = await publish(app.strapi, 'api::event.event', {
      title: 'Hot body',
      startsAt: '2027-01-01T10:00:00.000Z',
      category: 'talk',
      body: BLOCKS,
    });
    const text = async () => JSON.stringify((await get(`/api/v2/events/${event.documentId}`, key.auth)).body.data.attributes.body);
    expect(await text()).toContain('Hello ');
    expect(await text()).toContain('Hello '); // from the cache

    // Through Strapi (a new updatedAt).
    await app.strapi.documents('api::event.event').update({
      documentId: event.documentId,
      status: 'published',
      data: { body: [{ type: 'paragraph', children: [{ type: 'text', text: 'Changed through Strapi' }] }] },
    } as never);
    expect(await text()).toContain('Changed through Strapi');

    // By SQL, keeping updatedAt: another length is still seen.
    await db('events')
      .where({ document_id: event.documentId })
      .whereNotNull('published_at')
      .update({ body: JSON.stringify([{ type: 'paragraph', children: [{ type: 'text', text: 'Changed by hand' }] }]) });
    expect(await text()).toContain('Changed by hand');
  });
});

describe('records', () => {
  test('a value, a target or a file changed in the database, updatedAt kept, is read as it now is', async () => {
    const key = await createKey(app.strapi, {
      resources: {
        'native:events': { actions: ['read'], read: ['title', 'capacity', 'venue', 'cover'] },
        'native:buildings': { actions: ['read'], read: ['name'] },
      },
    });
    const hall = await publish(app.strapi, 'api::building.building', { name: 'Kept Hall', slug: 'kept-hall' });
    const event = await publish(app.strapi, 'api::event.event', {
      title: 'Kept event',
      slug: 'kept-event',
      startsAt: '2027-02-01T10:00:00.000Z',
      category: 'talk',
      capacity: 40,
      venue: hall.documentId,
    });
    // One Host for every read: records are kept per base URL (supertest's own is a new port each time).
    const read = async () => {
      const res = await get('/api/v2/events?filter[slug]=kept-event', key.auth).set('Host', 'kept.test');
      expect(res.status).toBe(200);
      const [record] = res.body.data as { attributes: Record<string, unknown> }[];
      return { attributes: record!.attributes };
    };
    const first = await read();
    expect(first.attributes).toMatchObject({ title: 'Kept event', capacity: 40, venue: { slug: 'kept-hall' } });
    expect((await read()).attributes).toEqual(first.attributes); // the kept record

    const published = () => db('events').where({ document_id: event.documentId }).whereNotNull('published_at');
    const { updated_at: updatedAt } = (await published().first('updated_at')) as { updated_at: unknown };
    // Same length, same updatedAt: only the value tells.
    await published().update({ title: 'Kept EVENT', updated_at: updatedAt });
    expect((await read()).attributes.title).toBe('Kept EVENT');
    await published().update({ capacity: 41, updated_at: updatedAt });
    expect((await read()).attributes.capacity).toBe(41);

    // The venue renamed, then unpublished, in its own table: the event's row is untouched.
    const hallRow = () => db('buildings').where({ document_id: hall.documentId }).whereNotNull('published_at');
    await hallRow().update({ slug: 'kept-hall-2' });
    expect((await read()).attributes.venue).toMatchObject({ slug: 'kept-hall-2' });
    await hallRow().update({ published_at: null });
    expect((await read()).attributes.venue).toBeNull();

    // A file attached by SQL (the cover is the file's row and the morph link).
    const [file] = (await db('files')
      .insert({
        document_id: 'keptcoverfile000000000001',
        name: 'kept-cover.png',
        hash: 'kept_cover',
        ext: '.png',
        mime: 'image/png',
        size: 1.2,
        url: '/uploads/kept_cover.png',
        provider: 'local',
        width: 10,
        height: 10,
        // A Date: PostgreSQL's timestamp columns take no milliseconds number (knex hands SQLite its number).
        created_at: new Date(),
        updated_at: new Date(),
        published_at: new Date(),
      })
      .returning('id')) as ({ id: number } | number)[];
    const eventRow = (await published().first('id')) as { id: number };
    await db('files_related_mph').insert({
      file_id: typeof file === 'object' ? file.id : file,
      related_id: eventRow.id,
      related_type: 'api::event.event',
      field: 'cover',
      order: 1,
    });
    const withCover = await read();
    expect(withCover.attributes.cover).toMatchObject({ fileName: 'kept-cover.png' });
    await db('files').where({ document_id: 'keptcoverfile000000000001' }).update({ alternative_text: 'Now described' });
    expect((await read()).attributes.cover).toMatchObject({ alt: 'Now described' });
  });
});

/**
 * Writing native records through /api/v2 (contract section 7): what a create, an update and a delete
 * store and answer, value by value, with slugs, locales, references, assets and richtext.
 */
import type { Core } from '@strapi/strapi';
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { draft, ensureLocale, publish, uploadDocument, uploadImage } from '../helpers/fixtures';
import { listenOnce, pathOf, resourceDocument, tableSnapshot, writer } from '../helpers/writes';

const EVENT = 'api::event.event';
const JOB = 'api::job.job';
const PRODUCT = 'api::product.product';
const FESTIVAL = 'api::festival.festival';
const BUILDING = 'api::building.building';
const ALL_UIDS = [EVENT, JOB, PRODUCT, FESTIVAL, BUILDING];

let app: TestApp;
let s: Core.Strapi;
let api: ReturnType<typeof writer>;
let editor: { auth: string };
const ids: Record<string, string> = {};
const files: Record<string, { id: number; documentId: string }> = {};

const EVERYTHING = { actions: ['read', 'create', 'update', 'delete'], read: '*', write: '*' };

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  s = app.strapi;
  api = writer(app);
  await listenOnce(app);
  await ensureLocale(s, 'de', 'German');
  files.hall = await uploadImage(s, 'hall.png', 64, 48);
  files.photo = await uploadImage(s, 'photo.png', 32, 24);
  files.manual = await uploadDocument(s, 'manual.pdf');
  ids.hall = (await publish(s, BUILDING, { name: 'Main Hall', slug: 'main-hall' })).documentId;
  ids.annex = (await publish(s, BUILDING, { name: 'Annex', slug: 'annex' })).documentId;
  ids.secretHall = (await draft(s, BUILDING, { name: 'Secret Hall', slug: 'secret-hall' })).documentId;
  ids.fest = (
    await publish(s, FESTIVAL, { name: 'Summer Fest', slug: 'summer-fest', startsOn: '2027-06-01', endsOn: '2027-06-03' })
  ).documentId;
  editor = await createKey(s, {
    resources: {
      'native:events': EVERYTHING,
      'native:jobs': EVERYTHING,
      'native:products': EVERYTHING,
      'native:festivals': EVERYTHING,
      'native:buildings': { actions: ['read'], read: ['name'] },
    },
  });
});
afterAll(async () => {
  await app?.close();
});

const asset = (name: string, width: number, height: number) => ({
  id: expect.any(String),
  url: expect.stringMatching(new RegExp(`/api/v2/assets/[A-Za-z0-9_-]{32}/${name.replace('.', '\\.')}$`)),
  fileName: name,
  mimeType: 'image/png',
  size: expect.any(Number),
  width,
  height,
  alt: `${name} alt`,
  caption: `${name} caption`,
});

const META = { createdAt: expect.any(Number), updatedAt: expect.any(Number), publishedAt: expect.any(Number) };

const RICHTEXT = () => ({
  type: 'doc',
  content: [
    { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'About' }] },
    {
      type: 'paragraph',
      content: [
        { type: 'text', text: 'Hello ' },
        { type: 'text', text: 'world', marks: [{ type: 'bold' }, { type: 'italic' }] },
        { type: 'hardBreak' },
        { type: 'text', text: 'link', marks: [{ type: 'link', attrs: { href: 'https://example.com' } }] },
      ],
    },
    { type: 'bulletList', content: [{ type: 'listItem', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'one' }] }] }] },
    { type: 'codeBlock', attrs: { language: 'js' }, content: [{ type: 'text', text: 'a\nb' }] },
    { type: 'image', attrs: { id: files.photo!.documentId } },
  ],
});

/** The versions of a document: by locale, the draft before the published one. */
const rowsOfDocument = async (uid: string, documentId: string) => {
  const rows = (await s.db.query(uid as never).findMany({ where: { documentId } })) as Record<string, any>[];
  const rank = (row: Record<string, any>) => `${row.locale ?? ''}:${row.publishedAt === null ? 0 : 1}`;
  return rows.sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0));
};

describe('create', () => {
  test('201 with Location and the record as a read shows it, published, every field type stored', async () => {
    const res = await api.post(
      '/api/v2/events',
      editor.auth,
      resourceDocument('events', {
        title: 'Jazz Night',
        sort: 2,
        summary: 'An evening of jazz',
        startsAt: '2027-06-01T21:30:00+02:00',
        endsAt: '2027-06-01T22:00:00Z',
        category: 'concert',
        tags: ['jazz', 'live'],
        price: 25.5,
        soldOut: false,
        capacity: 300,
        venue: 'main-hall',
        festival: { id: ids.fest },
        cover: files.hall!.documentId,
        body: RICHTEXT(),
      }),
    );
    expect(res.status).toBe(201);
    const id = res.body.data.id as string;
    ids.jazz = id;
    expect(res.headers.location).toMatch(/\/api\/v2\/events\/jazz-night$/);
    expect(res.body.links).toEqual({ self: res.headers.location });
    expect(res.body.meta.resource).toEqual({ name: 'Events', slug: 'events', mode: 'collection' });
    expect(res.body.data).toEqual({
      type: 'events',
      id: expect.stringMatching(/^[a-z0-9]{24}$/),
      attributes: {
        title: 'Jazz Night',
        slug: 'jazz-night',
        sort: 2,
        summary: 'An evening of jazz',
        startsAt: '2027-06-01T19:30:00.000Z',
        endsAt: '2027-06-01T22:00:00.000Z',
        category: 'concert',
        tags: ['jazz', 'live'],
        price: 25.5,
        seo: null, // the SEO component (contract 15), not sent: none stored
        soldOut: false,
        capacity: 300,
        venue: { id: ids.hall, slug: 'main-hall', collection: 'buildings' },
        festival: { id: ids.fest, slug: 'summer-fest', collection: 'festivals' },
        cover: asset('hall.png', 64, 48),
        body: {
          ...RICHTEXT(),
          content: [
            ...RICHTEXT().content.slice(0, 4),
            {
              type: 'image',
              attrs: {
                id: files.photo!.documentId,
                src: expect.stringMatching(/\/api\/v2\/assets\/[A-Za-z0-9_-]{32}\/photo\.png$/),
                alt: 'photo.png alt',
                caption: 'photo.png caption',
                width: 32,
                height: 24,
                mimeType: 'image/png',
                fileName: 'photo.png',
              },
            },
          ],
        },
      },
      meta: { slug: 'jazz-night', sort: 2, ...META },
    });
    // Exactly what a read of the Location answers.
    const read = await api.get(pathOf(res.headers.location!), editor.auth);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    // Published: one draft and one published version, equal.
    const rows = await rowsOfDocument(EVENT, id);
    expect(rows.map((row) => [row.locale, row.publishedAt === null ? 'draft' : 'published', row.title, row.slug])).toEqual([
      ['en', 'draft', 'Jazz Night', 'jazz-night'],
      ['en', 'published', 'Jazz Night', 'jazz-night'],
    ]);
  });

  test('richtext is stored losslessly: a document read and written back reads the same', async () => {
    const before = await api.get('/api/v2/events/jazz-night', editor.auth);
    const stored = (await rowsOfDocument(EVENT, ids.jazz!))[1]!.body;
    const res = await api.patch(
      '/api/v2/events/jazz-night',
      editor.auth,
      resourceDocument('events', { body: before.body.data.attributes.body }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.body).toEqual(before.body.data.attributes.body);
    expect((await rowsOfDocument(EVENT, ids.jazz!))[1]!.body).toEqual(stored);
    expect(stored[4]).toMatchObject({
      type: 'image',
      image: { documentId: files.photo!.documentId, name: 'photo.png', mime: 'image/png', width: 32, height: 24 },
    });
  });

  test('markdown, selects with defaults, files and to-many assets in order, references by slug', async () => {
    const job = await api.post(
      '/api/v2/jobs',
      editor.auth,
      resourceDocument('jobs', {
        title: 'Stage Manager',
        department: 'operations',
        description: '# Role\n\nRun **the** stage.',
        salaryMin: 30000,
        salaryMax: 40000,
        closesOn: '2027-01-31',
      }),
    );
    expect(job.status).toBe(201);
    expect(job.body.data.attributes).toEqual({
      title: 'Stage Manager',
      slug: 'stage-manager',
      sort: null,
      department: 'operations',
      employmentType: 'full-time',
      remote: false,
      location: null,
      salaryMin: 30000,
      salaryMax: 40000,
      closesOn: '2027-01-31',
      contactEmail: null,
      description: '# Role\n\nRun **the** stage.',
    });

    const product = await api.post(
      '/api/v2/products',
      editor.auth,
      resourceDocument('products', {
        name: 'Festival Pass',
        sku: 'PASS-1',
        price: 99.9,
        tags: ['pass'],
        images: [files.photo!.documentId, { id: files.hall!.documentId }],
        manual: files.manual!.documentId,
        event: 'jazz-night',
      }),
    );
    expect(product.status).toBe(201);
    expect(product.body.data.attributes).toMatchObject({
      name: 'Festival Pass',
      slug: 'festival-pass',
      sku: 'PASS-1',
      price: 99.9,
      currency: 'EUR',
      inStock: true,
      tags: ['pass'],
      images: [asset('photo.png', 32, 24), asset('hall.png', 64, 48)],
      manual: { id: files.manual!.documentId, fileName: 'manual.pdf', mimeType: 'application/pdf', width: null, height: null },
      event: { id: ids.jazz, slug: 'jazz-night', collection: 'events' },
    });
  });

  test('a slug is generated from its target field and kept unique; a duplicate sent is 409 and nothing is written', async () => {
    const second = await api.post(
      '/api/v2/events',
      editor.auth,
      resourceDocument('events', { title: 'Jazz Night', category: 'concert', startsAt: '2027-07-01T19:00:00Z' }),
    );
    expect(second.status).toBe(201);
    expect(second.body.data.meta.slug).toBe('jazz-night-1');
    expect(second.headers.location).toMatch(/\/events\/jazz-night-1$/);

    const before = await tableSnapshot(s, ALL_UIDS);
    const duplicate = await api.post(
      '/api/v2/events',
      editor.auth,
      resourceDocument('events', { title: 'Other', slug: 'jazz-night', category: 'talk', startsAt: '2027-07-01T19:00:00Z' }),
    );
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors).toEqual([
      {
        status: '409',
        code: 'conflict',
        title: 'Conflict',
        detail: "Another events record already uses the slug 'jazz-night'.",
        source: { pointer: '/data/attributes/slug' },
        meta: { reason: 'duplicate_slug' },
      },
    ]);
    expect(await tableSnapshot(s, ALL_UIDS)).toEqual(before);

    const badSlug = await api.post(
      '/api/v2/events',
      editor.auth,
      resourceDocument('events', { title: 'Other', slug: 'not a slug', category: 'talk', startsAt: '2027-07-01T19:00:00Z' }),
    );
    expect(badSlug.status).toBe(422);
    expect(badSlug.body.errors).toEqual([
      expect.objectContaining({ source: { pointer: '/data/attributes/slug' }, meta: { reason: 'validation_failed' } }),
    ]);
    expect(await tableSnapshot(s, ALL_UIDS)).toEqual(before);
  });

  test('a generated slug takes the first free suffix, past drafts, gaps and more than one batch of candidates', async () => {
    const taken = ['crowd', ...Array.from({ length: 24 }, (_, index) => `crowd-${index + 1}`)].filter((slug) => slug !== 'crowd-22');
    for (const slug of taken.slice(0, 10))
      await draft(s, EVENT, { title: 'Crowd', slug, category: 'talk', startsAt: '2027-07-01T19:00:00Z' });
    for (const slug of taken.slice(10))
      await publish(s, EVENT, { title: 'Crowd', slug, category: 'talk', startsAt: '2027-07-01T19:00:00Z' });
    const res = await api.post(
      '/api/v2/events',
      editor.auth,
      resourceDocument('events', { title: 'Crowd', category: 'talk', startsAt: '2027-07-01T19:00:00Z' }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.meta.slug).toBe('crowd-22');
    // Slugified as the admin does it (the same library): accents, case and punctuation.
    const accented = await api.post(
      '/api/v2/events',
      editor.auth,
      resourceDocument('events', { title: 'Café Über Nacht!', category: 'talk', startsAt: '2027-07-01T19:00:00Z' }),
    );
    expect(accented.body.data.meta.slug).toBe('cafe-ueber-nacht');
  });

  test('a target value with nothing to make a slug of gives the model name, as the admin does', async () => {
    const res = await api.post(
      '/api/v2/events',
      editor.auth,
      resourceDocument('events', { title: '!!!', category: 'talk', startsAt: '2027-07-01T19:00:00Z' }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.meta.slug).toBe('event');
    expect(res.headers.location).toMatch(/\/api\/v2\/events\/event$/);
  });

  test('slugs are unique per locale: the same slug in another language is another record', async () => {
    const de = await api.post(
      '/api/v2/events?locale=de',
      editor.auth,
      resourceDocument('events', { title: 'Jazz Night', category: 'concert', startsAt: '2027-06-01T19:30:00Z' }),
    );
    expect(de.status).toBe(201);
    expect(de.body.data.meta.slug).toBe('jazz-night');
    expect(de.headers.location).toMatch(/\/api\/v2\/events\/jazz-night\?locale=de$/);
    expect((await api.get(pathOf(de.headers.location!), editor.auth)).body).toEqual(de.body);
    // Only in German: no English version of that record.
    expect((await api.get(`/api/v2/events/${de.body.data.id}`, editor.auth)).status).toBe(404);
    const rows = await rowsOfDocument(EVENT, de.body.data.id);
    expect(rows.map((row) => row.locale)).toEqual(['de', 'de']);
  });
});

describe('update', () => {
  test('PATCH changes only the fields sent; the record stays published and answers 200', async () => {
    const before = (await api.get('/api/v2/events/jazz-night', editor.auth)).body;
    const res = await api.patch(
      '/api/v2/events/jazz-night',
      editor.auth,
      resourceDocument('events', { title: 'Jazz Night (late show)', capacity: 250, venue: { slug: 'annex' }, tags: [] }, ids.jazz),
    );
    expect(res.status).toBe(200);
    expect(res.headers.location).toBeUndefined();
    expect(res.body.data).toEqual({
      ...before.data,
      attributes: {
        ...before.data.attributes,
        title: 'Jazz Night (late show)',
        capacity: 250,
        tags: [],
        venue: { id: ids.annex, slug: 'annex', collection: 'buildings' },
      },
      meta: { ...before.data.meta, updatedAt: expect.any(Number), publishedAt: expect.any(Number) },
    });
    // The slug stays: it is not derived again when its target field changes.
    expect(res.body.data.meta.slug).toBe('jazz-night');
    expect(res.body.data.meta.updatedAt).toBeGreaterThanOrEqual(before.data.meta.updatedAt);
    expect((await api.get('/api/v2/events/jazz-night', editor.auth)).body.data).toEqual(res.body.data);
    const rows = await rowsOfDocument(EVENT, ids.jazz!);
    expect(rows.map((row) => [row.publishedAt === null ? 'draft' : 'published', row.title, row.capacity])).toEqual([
      ['draft', 'Jazz Night (late show)', 250],
      ['published', 'Jazz Night (late show)', 250],
    ]);
  });

  test('a record is addressed by slug or by id; null clears references, assets and values; a new slug moves it', async () => {
    const res = await api.patch(
      `/api/v2/events/${ids.jazz}`,
      editor.auth,
      resourceDocument('events', { venue: null, cover: null, summary: null, slug: 'late-jazz' }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toMatchObject({ venue: null, cover: null, summary: null, slug: 'late-jazz' });
    expect(res.body.links.self).toMatch(/\/api\/v2\/events\/late-jazz$/);
    expect((await api.get('/api/v2/events/jazz-night', editor.auth)).status).toBe(404);
    expect((await api.get('/api/v2/events/late-jazz', editor.auth)).body.data).toEqual(res.body.data);
  });

  test('nothing sent, nothing written', async () => {
    const before = await tableSnapshot(s, ALL_UIDS);
    const read = await api.get('/api/v2/events/late-jazz', editor.auth);
    const res = await api.patch('/api/v2/events/late-jazz', editor.auth, { data: { type: 'events' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(read.body);
    expect(await tableSnapshot(s, ALL_UIDS)).toEqual(before);
  });

  test('to-many references replace the list, in the order sent', async () => {
    const talk = await api.post(
      '/api/v2/events',
      editor.auth,
      resourceDocument('events', { title: 'Talk', category: 'talk', startsAt: '2027-06-02T10:00:00Z' }),
    );
    const res = await api.patch(
      '/api/v2/festivals/summer-fest',
      editor.auth,
      resourceDocument('festivals', { events: ['talk', { id: ids.jazz }] }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.events).toEqual([
      { id: talk.body.data.id, slug: 'talk', collection: 'events' },
      { id: ids.jazz, slug: 'late-jazz', collection: 'events' },
    ]);
    const cleared = await api.patch('/api/v2/festivals/summer-fest', editor.auth, resourceDocument('festivals', { events: [] }));
    expect(cleared.body.data.attributes.events).toEqual([]);
  });

  test('unpublished changes made in the admin are never published by a PATCH: 409 until they are published', async () => {
    await s.documents(EVENT as never).update({ documentId: ids.jazz!, data: { summary: 'draft only' } as never });
    const before = await tableSnapshot(s, ALL_UIDS);
    const res = await api.patch('/api/v2/events/late-jazz', editor.auth, resourceDocument('events', { capacity: 10 }));
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual([expect.objectContaining({ code: 'conflict', meta: { reason: 'unpublished_changes' } })]);
    expect(await tableSnapshot(s, ALL_UIDS)).toEqual(before);
    expect((await api.get('/api/v2/events/late-jazz', editor.auth)).body.data.attributes.summary).toBeNull();

    await s.documents(EVENT as never).publish({ documentId: ids.jazz! });
    const after = await api.patch('/api/v2/events/late-jazz', editor.auth, resourceDocument('events', { capacity: 10 }));
    expect(after.status).toBe(200);
    expect(after.body.data.attributes).toMatchObject({ summary: 'draft only', capacity: 10 });
  });
});

describe('locales', () => {
  test('a write is in one locale: the locale parameter or the default; shared fields follow Strapi', async () => {
    const created = await api.post(
      '/api/v2/events',
      editor.auth,
      resourceDocument('events', { title: 'Opera Gala', category: 'concert', startsAt: '2027-09-01T19:00:00Z', capacity: 100 }),
    );
    const id = created.body.data.id as string;
    await s
      .documents(EVENT as never)
      .update({ documentId: id, locale: 'de', data: { title: 'Operngala', slug: 'operngala' } as never, status: 'published' } as never);

    const de = await api.patch(`/api/v2/events/operngala?locale=de`, editor.auth, resourceDocument('events', { title: 'Große Operngala' }));
    expect(de.status).toBe(200);
    expect(de.body.links.self).toMatch(/\/events\/operngala\?locale=de$/);
    expect(de.body.data).toMatchObject({ id, attributes: { title: 'Große Operngala', capacity: 100 } });
    expect((await api.get('/api/v2/events/opera-gala', editor.auth)).body.data.attributes.title).toBe('Opera Gala');

    // The English slug does not name the German record.
    expect((await api.patch(`/api/v2/events/opera-gala?locale=de`, editor.auth, resourceDocument('events', { title: 'x' }))).status).toBe(
      404,
    );
    // A record missing in a locale is 404 there, as for reads.
    expect((await api.patch(`/api/v2/events/late-jazz?locale=de`, editor.auth, resourceDocument('events', { title: 'x' }))).status).toBe(
      404,
    );

    const unknown = await api.patch(`/api/v2/events/opera-gala?locale=xx`, editor.auth, resourceDocument('events', { title: 'x' }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ source: { parameter: 'locale' }, meta: { reason: 'locale_unknown' } });

    // DELETE in a locale removes that language only.
    expect((await api.del(`/api/v2/events/operngala?locale=de`, editor.auth)).status).toBe(204);
    expect((await api.get(`/api/v2/events/operngala?locale=de`, editor.auth)).status).toBe(404);
    expect((await api.get('/api/v2/events/opera-gala', editor.auth)).status).toBe(200);
    expect((await rowsOfDocument(EVENT, id)).map((row) => row.locale)).toEqual(['en', 'en']);
  });

  test('resources that are not localized ignore the locale, as reads do', async () => {
    const res = await api.patch('/api/v2/jobs/stage-manager?locale=de', editor.auth, resourceDocument('jobs', { remote: true }));
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.remote).toBe(true);
    expect(res.body.links.self).toMatch(/\/jobs\/stage-manager$/);
  });
});

describe('delete', () => {
  test('removing resources answer 204 without a body; the record is gone', async () => {
    const created = await api.post(
      '/api/v2/events',
      editor.auth,
      resourceDocument('events', { title: 'Short Lived', category: 'film', startsAt: '2027-06-02T10:00:00Z' }),
    );
    const id = created.body.data.id as string;
    const res = await api.del('/api/v2/events/short-lived', editor.auth);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await api.get(`/api/v2/events/${id}`, editor.auth)).status).toBe(404);
    expect(await rowsOfDocument(EVENT, id)).toEqual([]);
    expect((await api.del(`/api/v2/events/${id}`, editor.auth)).status).toBe(404);
  });

  test('jobs archive: 200 with the final state, unpublished, gone from reads, kept for editors', async () => {
    const before = (await api.get('/api/v2/jobs/stage-manager', editor.auth)).body;
    const res = await api.del('/api/v2/jobs/stage-manager', editor.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...before, data: { ...before.data, meta: { ...before.data.meta, publishedAt: null } } });
    expect((await api.get('/api/v2/jobs/stage-manager', editor.auth)).status).toBe(404);
    expect((await api.get('/api/v2/jobs', editor.auth)).body.data.map((job: { id: string }) => job.id)).not.toContain(before.data.id);
    const rows = await rowsOfDocument(JOB, before.data.id);
    expect(rows.map((row) => [row.publishedAt, row.title])).toEqual([[null, 'Stage Manager']]);
    expect((await api.del('/api/v2/jobs/stage-manager', editor.auth)).status).toBe(404);
  });
});

describe("the content type's validation and the domain rules: 422 with pointers, nothing written", () => {
  const refused = async (path: string, body: unknown, method: 'post' | 'patch' = 'post') => {
    const before = await tableSnapshot(s, ALL_UIDS);
    const res = await api[method](path, editor.auth, body);
    expect(res.status).toBe(422);
    expect(await tableSnapshot(s, ALL_UIDS)).toEqual(before);
    return res.body.errors.map((error: { source?: { pointer?: string }; detail: string; meta?: { reason: string } }) => [
      error.source?.pointer,
      error.meta?.reason,
      error.detail,
    ]);
  };

  test('required fields (checked when Strapi publishes, after the draft is written: rolled back)', async () => {
    expect(await refused('/api/v2/events', resourceDocument('events', { summary: 'no title, no start, no category' }))).toEqual([
      ['/data/attributes/title', 'validation_failed', expect.stringMatching(/^title /)],
      ['/data/attributes/startsAt', 'validation_failed', 'startsAt must be defined.'],
      ['/data/attributes/category', 'validation_failed', expect.stringContaining('category')],
    ]);
  });

  test('min, max, regex and email from the schema', async () => {
    expect(
      await refused(
        '/api/v2/events',
        resourceDocument('events', { title: 'x', category: 'talk', startsAt: '2027-01-01T00:00:00Z', capacity: -1 }),
      ),
    ).toEqual([['/data/attributes/capacity', 'validation_failed', 'capacity must be greater than or equal to 0']]);
    expect(await refused('/api/v2/festivals/summer-fest', resourceDocument('festivals', { website: 'not a url' }), 'patch')).toEqual([
      ['/data/attributes/website', 'validation_failed', expect.stringContaining('website must match')],
    ]);
    expect(await refused('/api/v2/products', resourceDocument('products', { name: 'x', sku: 'lower-case', price: 1 }))).toEqual([
      ['/data/attributes/sku', 'validation_failed', expect.stringContaining('sku must match')],
    ]);
    expect(await refused('/api/v2/jobs', resourceDocument('jobs', { title: 'x', department: 'design', contactEmail: 'nope' }))).toEqual([
      ['/data/attributes/contactEmail', 'validation_failed', expect.stringContaining('email')],
    ]);
  });

  test('domain rules, on create and on update, blamed on the field the write sent', async () => {
    expect(
      await refused(
        '/api/v2/events',
        resourceDocument('events', { title: 'x', category: 'talk', startsAt: '2027-01-01T10:00:00Z', endsAt: '2027-01-01T09:00:00Z' }),
      ),
    ).toEqual([['/data/attributes/endsAt', 'validation_failed', 'An event must end after it starts (2027-01-01T10:00:00.000Z).']]);
    expect(await refused('/api/v2/festivals/summer-fest', resourceDocument('festivals', { startsOn: '2027-06-05' }), 'patch')).toEqual([
      ['/data/attributes/startsOn', 'validation_failed', 'A festival cannot start after its last day (2027-06-03).'],
    ]);
    expect(
      await refused('/api/v2/jobs', resourceDocument('jobs', { title: 'x', department: 'design', salaryMin: 10, salaryMax: 5 })),
    ).toEqual([['/data/attributes/salaryMax', 'validation_failed', 'The maximum salary cannot be below the minimum salary (10).']]);
    expect(await refused('/api/v2/products', resourceDocument('products', { name: 'Copy', sku: 'PASS-1', price: 1 }))).toEqual([
      ['/data/attributes/sku', 'validation_failed', 'This SKU is already used by another product (PASS-1).'],
    ]);
  });

  test('a domain rule quotes a stored value only to a key that may read its field', async () => {
    await publish(s, 'api::job.job', { title: 'Quoted', slug: 'quoted-job', department: 'design', salaryMin: 47110, salaryMax: 50000 });
    await publish(s, 'api::event.event', { title: 'Quoted', slug: 'quoted-event', category: 'talk', startsAt: '2027-03-14T19:47:11.000Z' });
    const grant = (read: string[], write: string[]) => ({
      actions: [...(read.length ? ['read' as const] : []), 'update' as const],
      read,
      write,
    });
    const blind = await createKey(s, {
      resources: {
        'native:jobs': grant([], ['salaryMax']),
        'native:events': grant([], ['endsAt']),
        'native:festivals': grant([], ['endsOn']),
      },
    });
    const seeing = await createKey(s, {
      resources: {
        'native:jobs': grant(['salaryMin'], ['salaryMax']),
        'native:events': grant(['startsAt'], ['endsAt']),
        'native:festivals': grant(['startsOn'], ['endsOn']),
      },
    });
    const cases = [
      [
        '/api/v2/jobs/quoted-job',
        resourceDocument('jobs', { salaryMax: 100 }),
        '47110',
        'The maximum salary cannot be below the minimum salary.',
      ],
      [
        '/api/v2/events/quoted-event',
        resourceDocument('events', { endsAt: '2027-03-14T10:00:00Z' }),
        '2027-03-14T19:47:11',
        'An event must end after it starts.',
      ],
      [
        '/api/v2/festivals/summer-fest',
        resourceDocument('festivals', { endsOn: '2027-05-01' }),
        '2027-06-01',
        'A festival cannot end before its first day.',
      ],
    ] as const;
    for (const [path, body, stored, message] of cases) {
      const before = await tableSnapshot(s, ALL_UIDS);
      const refused = await api.patch(path, blind.auth, body);
      expect(refused.status).toBe(422);
      expect(refused.body.errors.map((error: { detail: string }) => error.detail)).toEqual([message]);
      expect(refused.text).not.toContain(stored);
      const told = await api.patch(path, seeing.auth, body);
      expect(told.status).toBe(422);
      expect(told.body.errors[0].detail).toContain(stored);
      expect(await tableSnapshot(s, ALL_UIDS)).toEqual(before);
    }
  });

  test('a field this key cannot see is never named', async () => {
    const narrow = await createKey(s, { resources: { 'native:events': { actions: ['create'], read: [], write: ['summary'] } } });
    const before = await tableSnapshot(s, ALL_UIDS);
    const res = await api.post('/api/v2/events', narrow.auth, resourceDocument('events', { summary: 'x' }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      {
        status: '422',
        code: 'unprocessable_entity',
        title: 'Unprocessable Entity',
        detail: 'The record would not be valid: a field this key cannot see does not accept the result.',
        meta: { reason: 'hidden_field_invalid' },
      },
    ]);
    expect(JSON.stringify(res.body.errors[0].detail)).not.toMatch(/title|startsAt|category/);
    expect(await tableSnapshot(s, ALL_UIDS)).toEqual(before);
  });
});

describe('references and assets', () => {
  const problems = async (path: string, body: unknown, auth = editor.auth) => {
    const before = await tableSnapshot(s, ALL_UIDS);
    const res = await api.post(path, auth, body);
    expect(res.status).toBe(422);
    expect(await tableSnapshot(s, ALL_UIDS)).toEqual(before);
    return res.body.errors.map((error: { source?: { pointer?: string }; meta?: { reason: string } }) => [
      error.source?.pointer,
      error.meta?.reason,
    ]);
  };
  const event = (attributes: Record<string, unknown>) =>
    resourceDocument('events', { title: 'Ref', category: 'talk', startsAt: '2027-01-01T10:00:00Z', ...attributes });

  test('unknown, unpublished and repeated targets, and a slug that is not the id’s record, are 422 at the reference', async () => {
    expect(await problems('/api/v2/events', event({ venue: 'nowhere' }))).toEqual([['/data/attributes/venue', 'target_not_found']]);
    expect(await problems('/api/v2/events', event({ venue: 'secret-hall' }))).toEqual([['/data/attributes/venue', 'target_not_found']]);
    expect(await problems('/api/v2/events', event({ venue: { id: ids.secretHall } }))).toEqual([
      ['/data/attributes/venue', 'target_not_found'],
    ]);
    expect(await problems('/api/v2/events', event({ venue: { id: ids.hall, slug: 'annex' } }))).toEqual([
      ['/data/attributes/venue', 'target_not_found'],
    ]);
    // A slug is not an id: `{ id }` names by id only.
    expect(await problems('/api/v2/events', event({ venue: { id: 'main-hall' } }))).toEqual([
      ['/data/attributes/venue', 'target_not_found'],
    ]);
    expect(
      await problems(
        '/api/v2/festivals',
        resourceDocument('festivals', {
          name: 'F',
          startsOn: '2027-01-01',
          endsOn: '2027-01-02',
          events: ['late-jazz', 'nope', { id: ids.jazz }],
        }),
      ),
    ).toEqual([
      ['/data/attributes/events/1', 'target_not_found'],
      ['/data/attributes/events/2', 'target_repeated'],
    ]);
  });

  test('a target resource the key may not read is 422, even when the reference exists', async () => {
    const key = await createKey(s, {
      resources: {
        'native:events': { actions: ['create'], read: [], write: ['title', 'category', 'startsAt', 'venue'] },
        'native:buildings': { actions: ['create'], read: [], write: [] },
      },
    });
    expect(await problems('/api/v2/events', event({ venue: 'main-hall' }), key.auth)).toEqual([
      ['/data/attributes/venue', 'target_not_readable'],
    ]);
  });

  test('assets by id: unknown, of a type the field does not take, or repeated are 422', async () => {
    expect(await problems('/api/v2/events', event({ cover: 'nope' }))).toEqual([['/data/attributes/cover', 'asset_not_found']]);
    expect(await problems('/api/v2/events', event({ cover: files.manual!.documentId }))).toEqual([
      ['/data/attributes/cover', 'asset_type_not_allowed'],
    ]);
    expect(
      await problems(
        '/api/v2/products',
        resourceDocument('products', {
          name: 'P',
          sku: 'P-2',
          price: 1,
          manual: files.hall!.documentId,
          images: [files.hall!.documentId, files.hall!.documentId],
        }),
      ),
    ).toEqual([
      ['/data/attributes/manual', 'asset_type_not_allowed'],
      ['/data/attributes/images/1', 'asset_repeated'],
    ]);
    expect(
      await problems(
        '/api/v2/events',
        event({ body: { type: 'doc', content: [{ type: 'image', attrs: { id: files.manual!.documentId } }] } }),
      ),
    ).toEqual([['/data/attributes/body/content/0/attrs', 'richtext_invalid']]);
  });

  test('every problem of a write at once: fields, values, references', async () => {
    expect(
      await problems(
        '/api/v2/events',
        event({ nope: 1, capacity: 'many', venue: 'nowhere', body: { type: 'doc', content: [{ type: 'table' }] } }),
      ),
    ).toEqual([
      ['/data/attributes/nope', 'field_not_writable'],
      ['/data/attributes/capacity', 'value_invalid'],
    ]);
  });
});

describe('a write never half-applies', () => {
  test('a failure after the record was written and published leaves nothing of it (500, logged, no internals)', async () => {
    const records = s.plugin('public-api').service('records') as { byDocumentId: (...args: unknown[]) => Promise<unknown> };
    const job = await api.post('/api/v2/jobs', editor.auth, resourceDocument('jobs', { title: 'Doomed Job', department: 'sales' }));
    expect(job.status).toBe(201);
    const original = records.byDocumentId;
    records.byDocumentId = async () => {
      throw new Error('SELECT * FROM secret_table failed');
    };
    const before = await tableSnapshot(s, ALL_UIDS);
    try {
      const res = await api.post(
        '/api/v2/events',
        editor.auth,
        resourceDocument('events', {
          title: 'Doomed',
          category: 'talk',
          startsAt: '2027-01-01T10:00:00Z',
          venue: 'main-hall',
          tags: ['x'],
        }),
      );
      expect(res.status).toBe(500);
      expect(res.text).not.toMatch(/secret_table|SELECT/);
      const patch = await api.patch(
        '/api/v2/events/late-jazz',
        editor.auth,
        resourceDocument('events', { title: 'Doomed too', venue: 'annex' }),
      );
      expect(patch.status).toBe(500);
      const archive = await api.del('/api/v2/jobs/doomed-job', editor.auth);
      expect(archive.status).toBe(500);
    } finally {
      records.byDocumentId = original;
    }
    expect(await tableSnapshot(s, ALL_UIDS)).toEqual(before);
  });
});

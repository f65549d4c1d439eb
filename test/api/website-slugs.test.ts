/**
 * Slugs of website-scoped content types are unique per website, not across websites (contract section 1),
 * however a record is written: the Public Data API, Strapi's document service, the admin's content-manager
 * API. Nothing written through one website depends on, or tells of, another website's records: each
 * answer is the one a model of that website alone predicts, while the other website holds the same slugs.
 *
 * Every website-scoped content type of the application is covered: the list comes from the schemas.
 */
import type { Core } from '@strapi/strapi';
import fc from 'fast-check';
import { websiteScopeAttributeOf, WEBSITE_UID } from '../../src/plugins/public-api/server/src/registry/fields';
import type { StrapiAttribute } from '../../src/plugins/public-api/server/src/registry/types';
import { slugDefinitionOf } from '../../src/plugins/public-api/server/src/slugs/definition';
import { bootApp, type TestApp } from '../helpers/app';
import { superAdmin } from '../helpers/admin';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { website } from '../helpers/fixtures';
import { listenOnce, resourceDocument, tableSnapshot, writer } from '../helpers/writes';

type Schema = { uid: string; info: { pluralName: string }; attributes: Record<string, StrapiAttribute> };
type Row = Record<string, unknown>;

let app: TestApp;
let s: Core.Strapi;
let api: ReturnType<typeof writer>;
let key: { auth: string };
let adminAuth: string;
const sites: Record<'a' | 'b', { slug: string; documentId: string; id: number }> = {} as never;

/** Every content type of the application with a relation to websites. */
const websiteScoped = (): Schema[] =>
  Object.values(s.contentTypes as unknown as Record<string, Schema>).filter(
    (schema) => schema.uid.startsWith('api::') && websiteScopeAttributeOf(schema.attributes) !== undefined,
  );

/** How a content type keeps its records' slug: the attribute, the field it is made from, the website relation. */
type SlugDefinition = { attribute: string; targetField: string | undefined; scopeAttribute: string };

/**
 * The website-scoped content types whose records have a slug, whatever attribute type holds it (a Strapi
 * uid, or a string the plugin keeps): what this suite runs over.
 */
const slugged = (): Array<{ schema: Schema; definition: SlugDefinition }> =>
  websiteScoped().flatMap((schema) => {
    const found = Object.entries(schema.attributes).find(
      ([, attribute]) => attribute.type === 'uid' || attribute.pluginOptions?.['public-api']?.slug,
    );
    if (!found) return [];
    const [attribute, declared] = found;
    const targetField = declared.type === 'uid' ? declared.targetField : declared.pluginOptions?.['public-api']?.slug?.targetField;
    return [{ schema, definition: { attribute, targetField, scopeAttribute: websiteScopeAttributeOf(schema.attributes)! } }];
  });

const collectionOf = (schema: Schema) => schema.info.pluralName;

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  s = app.strapi;
  api = writer(app);
  await listenOnce(app);
  const publications = slugged().map(({ schema }) => ({ collection: collectionOf(schema), contentType: schema.uid, mode: 'collection' }));
  for (const [name, slug] of [
    ['a', 'site-a'],
    ['b', 'site-b'],
  ] as const) {
    const created = await website(s, slug, publications);
    const row = (await s.db.query(WEBSITE_UID).findOne({ where: { documentId: created.documentId }, select: ['id'] })) as { id: number };
    sites[name] = { slug, documentId: created.documentId, id: row.id };
  }
  const all = { actions: ['read', 'create', 'update', 'delete'], read: '*', write: '*' };
  key = await createKey(s, {
    resources: Object.fromEntries(
      slugged().flatMap(({ schema }) =>
        [`cms:site-a/${collectionOf(schema)}`, `cms:site-b/${collectionOf(schema)}`].map((id) => [id, all]),
      ),
    ),
  });
  adminAuth = (await superAdmin(app)).auth;
}, 60_000);
afterAll(async () => {
  await app?.close();
});

test('every website-scoped content type keeps its slug per website: none is a Strapi uid, which is unique across websites', () => {
  const scoped = websiteScoped();
  expect(scoped.map((schema) => schema.uid)).toEqual(expect.arrayContaining(['api::page.page', 'api::setting.setting']));
  for (const schema of scoped) {
    const uids = Object.entries(schema.attributes)
      .filter(([, attribute]) => attribute.type === 'uid')
      .map(([name]) => name);
    expect([schema.uid, uids]).toEqual([schema.uid, []]);
  }
  expect(slugged().map(({ schema }) => schema.uid)).toContain('api::page.page');
  // The plugin keeps these slugs, per website.
  for (const { schema } of slugged()) expect(slugDefinitionOf(schema)).toMatchObject({ uid: schema.uid, scopeAttribute: 'website' });
});

// ---------------------------------------------------------------------------------------------------------
// A model of one website's records, and the operations run against it
// ---------------------------------------------------------------------------------------------------------

/** Titles and the slug each gives; several give the same one, so generated slugs need suffixes. */
const TITLES: Record<string, string> = {
  'About us': 'about-us',
  'ABOUT US!': 'about-us',
  Contact: 'contact',
  'Contact ': 'contact',
  News: 'news',
};
/** Slugs sent as they are: some are what titles give, some a suffixed one. */
const SLUGS = ['about-us', 'about-us-1', 'contact', 'contact-2', 'news'];

type Site = 'a' | 'b';
type Operation =
  { kind: 'create'; site: Site; title: string; slug: string | null } | { kind: 'update'; site: Site; index: number; slug: string };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      site: fc.constantFrom<Site>('a', 'b'),
      title: fc.constantFrom(...Object.keys(TITLES)),
      slug: fc.option(fc.constantFrom(...SLUGS), { nil: null }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      site: fc.constantFrom<Site>('a', 'b'),
      index: fc.nat(20),
      slug: fc.constantFrom(...SLUGS),
    }),
  },
);

/** What one website holds: its records (documentId -> slug), in creation order. */
type Model = Record<Site, Array<{ documentId: string; slug: string }>>;

type Outcome = { ok: true; documentId: string; slug: string } | { ok: false; conflict: true; text: string };

/** A slug made from `base` within one website's records: `x`, else `x-1`, `x-2`, ... */
const expectedGenerated = (held: readonly string[], base: string): string => {
  if (!held.includes(base)) return base;
  for (let n = 1; ; n += 1) if (!held.includes(`${base}-${n}`)) return `${base}-${n}`;
};

/** The minimal valid data of a record of the content type, with this title (the slug's source). */
const recordData = (schema: Schema, definition: SlugDefinition, title: string): Row => {
  const data: Row = {};
  for (const [name, attribute] of Object.entries(schema.attributes)) {
    if (name === definition.targetField) data[name] = title;
    else if (attribute.required) throw new Error(`Give ${schema.uid}.${name} (${attribute.type}) a value in recordData.`);
  }
  return data;
};

/** One way of writing records: the API through a website's path, the document service, the admin. */
type Channel = {
  name: string;
  create: (schema: Schema, definition: SlugDefinition, site: Site, title: string, slug: string | null) => Promise<Outcome>;
  /** Gives `record` the slug `slug`. */
  update: (
    schema: Schema,
    definition: SlugDefinition,
    site: Site,
    record: { documentId: string; slug: string },
    slug: string,
  ) => Promise<Outcome>;
};

const storedSlug = async (uid: string, attribute: string, documentId: string): Promise<string> => {
  const rows = (await s.db.query(uid as never).findMany({ where: { documentId }, select: [attribute, 'publishedAt'] })) as Row[];
  const slugs = [...new Set(rows.map((row) => row[attribute]))];
  // The draft and the published version agree: the slug is the document's.
  expect(slugs).toHaveLength(1);
  return String(slugs[0]);
};

const apiChannel: Channel = {
  name: 'the Public Data API',
  async create(schema, definition, site, title, slug) {
    const path = `/api/v2/cms/${sites[site].slug}/${collectionOf(schema)}`;
    const attributes = { ...recordData(schema, definition, title), ...(slug === null ? {} : { [definition.attribute]: slug }) };
    const res = await api.post(path, key.auth, resourceDocument(collectionOf(schema), attributes));
    if (res.status === 409) return { ok: false, conflict: true, text: res.text };
    expect([res.status, res.text]).toEqual([201, expect.any(String)]);
    expect(res.body.data.meta.slug).toBe(res.body.data.attributes[definition.attribute]);
    return { ok: true, documentId: res.body.data.id, slug: res.body.data.meta.slug };
  },
  async update(schema, definition, site, { documentId, slug: current }, slug) {
    // A CMS record's path names it by its slug.
    const path = `/api/v2/cms/${sites[site].slug}/${collectionOf(schema)}/${current}`;
    const res = await api.patch(path, key.auth, resourceDocument(collectionOf(schema), { [definition.attribute]: slug }));
    if (res.status === 409) return { ok: false, conflict: true, text: res.text };
    expect([res.status, res.text]).toEqual([200, expect.any(String)]);
    return { ok: true, documentId, slug: res.body.data.meta.slug };
  },
};

/** A refusal as Strapi reports it: a ValidationError on the slug field. */
const refusal = (error: unknown, attribute: string): Outcome => {
  const details = (error as { name?: string; details?: { errors?: Array<{ path: string[] }> } }).details;
  expect((error as Error).name).toBe('ValidationError');
  expect(details?.errors?.map((item) => item.path)).toEqual([[attribute]]);
  return { ok: false, conflict: true, text: JSON.stringify({ message: (error as Error).message, details }) };
};

const documentServiceChannel: Channel = {
  name: "Strapi's document service",
  async create(schema, definition, site, title, slug) {
    const data = {
      ...recordData(schema, definition, title),
      [definition.attribute]: slug ?? '',
      [definition.scopeAttribute]: sites[site].documentId,
    };
    try {
      const created = (await s.documents(schema.uid as never).create({ data: data as never, status: 'published' })) as unknown as Row;
      const stored = await storedSlug(schema.uid, definition.attribute, String(created.documentId));
      // What the caller gets back is what was stored, the generated slug included.
      expect(created[definition.attribute]).toBe(stored);
      return { ok: true, documentId: String(created.documentId), slug: stored };
    } catch (error) {
      return refusal(error, definition.attribute);
    }
  },
  async update(schema, definition, _site, { documentId }, slug) {
    try {
      await s
        .documents(schema.uid as never)
        .update({ documentId, data: { [definition.attribute]: slug } as never, status: 'published' } as never);
      return { ok: true, documentId, slug: await storedSlug(schema.uid, definition.attribute, documentId) };
    } catch (error) {
      return refusal(error, definition.attribute);
    }
  },
};

/** The admin's own API: what an editor's "Publish" sends (create and publish, or save and publish). */
const adminChannel: Channel = {
  name: "the admin's content-manager API",
  async create(schema, definition, site, title, slug) {
    const body = {
      ...recordData(schema, definition, title),
      [definition.attribute]: slug ?? '',
      [definition.scopeAttribute]: { connect: [{ documentId: sites[site].documentId }] },
    };
    const res = await app
      .http()
      .post(`/content-manager/collection-types/${schema.uid}/actions/publish`)
      .set('Authorization', adminAuth)
      .send(body);
    if (res.status === 400) return refusal(res.body.error, definition.attribute);
    expect([res.status, res.text]).toEqual([200, expect.any(String)]);
    const documentId = String(res.body.data.documentId);
    return { ok: true, documentId, slug: await storedSlug(schema.uid, definition.attribute, documentId) };
  },
  async update(schema, definition, _site, { documentId }, slug) {
    const res = await app
      .http()
      .post(`/content-manager/collection-types/${schema.uid}/${documentId}/actions/publish`)
      .set('Authorization', adminAuth)
      .send({ [definition.attribute]: slug });
    if (res.status === 400) return refusal(res.body.error, definition.attribute);
    expect([res.status, res.text]).toEqual([200, expect.any(String)]);
    return { ok: true, documentId, slug: await storedSlug(schema.uid, definition.attribute, documentId) };
  },
};

/** Removes every record of the content type, so that each run starts from two empty websites. */
const clear = async (uid: string) => {
  const rows = (await s.db.query(uid as never).findMany({ select: ['documentId'] })) as Row[];
  for (const documentId of new Set(rows.map((row) => String(row.documentId)))) await s.documents(uid as never).delete({ documentId });
};

const other = (site: Site): Site => (site === 'a' ? 'b' : 'a');

/** Runs operations through a channel and checks each outcome against the model of its website alone. */
const runAgainstModel = async (channel: Channel, schema: Schema, definition: SlugDefinition, operations: Operation[]) => {
  await clear(schema.uid);
  const model: Model = { a: [], b: [] };
  for (const op of operations) {
    const held = model[op.site].map((record) => record.slug);
    if (op.kind === 'create') {
      const before = await tableSnapshot(s, [schema.uid]);
      const outcome = await channel.create(schema, definition, op.site, op.title, op.slug);
      const expected =
        op.slug === null
          ? { ok: true, slug: expectedGenerated(held, TITLES[op.title]!) }
          : held.includes(op.slug)
            ? { ok: false }
            : { ok: true, slug: op.slug };
      expect([channel.name, op, outcome.ok ? { ok: true, slug: outcome.slug } : { ok: false }]).toEqual([channel.name, op, expected]);
      if (outcome.ok) model[op.site].push({ documentId: outcome.documentId, slug: outcome.slug });
      else {
        expect(await tableSnapshot(s, [schema.uid])).toEqual(before);
        expectNoHintOf(outcome.text, model[other(op.site)], other(op.site));
      }
    } else {
      const records = model[op.site];
      if (records.length === 0) continue;
      const record = records[op.index % records.length]!;
      const before = await tableSnapshot(s, [schema.uid]);
      const outcome = await channel.update(schema, definition, op.site, record, op.slug);
      const taken = records.some((held) => held !== record && held.slug === op.slug);
      expect([channel.name, op, outcome.ok ? { ok: true, slug: outcome.slug } : { ok: false }]).toEqual([
        channel.name,
        op,
        taken ? { ok: false } : { ok: true, slug: op.slug },
      ]);
      if (outcome.ok) record.slug = outcome.slug;
      else {
        expect(await tableSnapshot(s, [schema.uid])).toEqual(before);
        expectNoHintOf(outcome.text, model[other(op.site)], other(op.site));
      }
    }
  }
  // The other website's records are exactly as its own operations left them.
  for (const site of ['a', 'b'] as const) {
    for (const record of model[site]) expect(await storedSlug(schema.uid, definition.attribute, record.documentId)).toBe(record.slug);
  }
};

/** A refusal names nothing of the other website: not its name, not one of its records. */
const expectNoHintOf = (text: string, records: Model[Site], site: Site) => {
  expect(text).not.toContain(sites[site].slug);
  expect(text).not.toContain(sites[site].documentId);
  for (const record of records) expect(text).not.toContain(record.documentId);
};

describe.each([apiChannel, documentServiceChannel, adminChannel])('written through $name', (channel) => {
  test('a slug is unique within its website only: each answer is what that website alone predicts', async () => {
    for (const { schema, definition } of slugged()) {
      await fc.assert(
        fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 8 }), (operations) =>
          runAgainstModel(channel, schema, definition, operations),
        ),
        { numRuns: 12 },
      );
    }
  }, 300_000);

  test('the same slug on both websites, generated naturally on each, and a duplicate refused on one', async () => {
    for (const { schema, definition } of slugged()) {
      await runAgainstModel(channel, schema, definition, [
        { kind: 'create', site: 'a', title: 'About us', slug: null },
        { kind: 'create', site: 'b', title: 'About us', slug: null },
        { kind: 'create', site: 'b', title: 'Contact', slug: null },
        { kind: 'create', site: 'a', title: 'Contact', slug: 'contact' },
        { kind: 'create', site: 'a', title: 'Contact', slug: 'contact' },
        { kind: 'create', site: 'a', title: 'About us', slug: null },
      ]);
      const slugsOf = async (site: Site) =>
        (
          (await s.db.query(schema.uid as never).findMany({
            where: { publishedAt: { $notNull: true }, [definition.scopeAttribute]: { id: sites[site].id } },
            select: [definition.attribute],
            orderBy: { id: 'asc' },
          })) as Row[]
        ).map((row) => row[definition.attribute]);
      expect(await slugsOf('a')).toEqual(['about-us', 'contact', 'about-us-1']);
      expect(await slugsOf('b')).toEqual(['about-us', 'contact']);
    }
  }, 120_000);
});

describe('drafts, moves between websites, and simultaneous writes', () => {
  const documents = (uid: string) =>
    s.documents(uid as never) as unknown as {
      create: (params: Row) => Promise<Row>;
      update: (params: Row) => Promise<Row | null>;
      publish: (params: Row) => Promise<Row>;
    };
  const rowsOf = async (uid: string, attribute: string, documentId: string) =>
    (
      (await s.db.query(uid as never).findMany({
        where: { documentId },
        select: [attribute, 'publishedAt'],
        populate: { website: { select: ['slug'] } },
        orderBy: { id: 'asc' },
      })) as Row[]
    ).map((row) => ({
      slug: row[attribute],
      published: row.publishedAt !== null,
      website: (row.website as Row | null)?.slug ?? null,
    }));

  test('a draft saved without a slug gets one at once, free of drafts too; a draft may hold a published slug, but cannot publish it', async () => {
    for (const { schema, definition } of slugged()) {
      await clear(schema.uid);
      const draft = await documents(schema.uid).create({
        data: { ...recordData(schema, definition, 'Events'), [definition.scopeAttribute]: sites.a.documentId },
      });
      expect(draft[definition.attribute]).toBe('events');
      // The generated slug avoids the draft: another record gets the next one.
      const next = await documents(schema.uid).create({
        data: { ...recordData(schema, definition, 'Events'), [definition.scopeAttribute]: sites.a.documentId },
        status: 'published',
      });
      expect(next[definition.attribute]).toBe('events-1');
      // As with a Strapi uid, only published versions must differ: a draft may take a published slug...
      const copy = await documents(schema.uid).create({
        data: {
          ...recordData(schema, definition, 'Copy'),
          [definition.attribute]: 'events-1',
          [definition.scopeAttribute]: sites.a.documentId,
        },
      });
      expect(await rowsOf(schema.uid, definition.attribute, String(copy.documentId))).toEqual([
        { slug: 'events-1', published: false, website: 'site-a' },
      ]);
      // ...but publishing it is refused, and nothing changes.
      const before = await tableSnapshot(s, [schema.uid]);
      await expect(documents(schema.uid).publish({ documentId: copy.documentId })).rejects.toMatchObject({
        name: 'ValidationError',
        details: { errors: [{ path: [definition.attribute] }] },
      });
      expect(await tableSnapshot(s, [schema.uid])).toEqual(before);
      // On the other website the same slug publishes.
      await documents(schema.uid).update({ documentId: copy.documentId, data: { [definition.scopeAttribute]: sites.b.documentId } });
      await documents(schema.uid).publish({ documentId: copy.documentId });
      expect(await rowsOf(schema.uid, definition.attribute, String(copy.documentId))).toEqual([
        { slug: 'events-1', published: false, website: 'site-b' },
        { slug: 'events-1', published: true, website: 'site-b' },
      ]);
    }
  });

  test("a record moved to another website is checked against that website's records when it is published", async () => {
    for (const { schema, definition } of slugged()) {
      await clear(schema.uid);
      await documents(schema.uid).create({
        data: { ...recordData(schema, definition, 'Team'), [definition.scopeAttribute]: sites.b.documentId },
        status: 'published',
      });
      const moving = await documents(schema.uid).create({
        data: { ...recordData(schema, definition, 'Team'), [definition.scopeAttribute]: sites.a.documentId },
        status: 'published',
      });
      expect(moving[definition.attribute]).toBe('team');
      const before = await tableSnapshot(s, [schema.uid]);
      await expect(
        documents(schema.uid).update({
          documentId: moving.documentId,
          data: { [definition.scopeAttribute]: sites.b.documentId },
          status: 'published',
        }),
      ).rejects.toMatchObject({ name: 'ValidationError', details: { errors: [{ path: [definition.attribute] }] } });
      expect(await tableSnapshot(s, [schema.uid])).toEqual(before);
      // With a slug of its own there, it moves.
      await documents(schema.uid).update({
        documentId: moving.documentId,
        data: { [definition.scopeAttribute]: sites.b.documentId, [definition.attribute]: 'team-2' },
        status: 'published',
      });
      expect(await rowsOf(schema.uid, definition.attribute, String(moving.documentId))).toEqual([
        { slug: 'team-2', published: false, website: 'site-b' },
        { slug: 'team-2', published: true, website: 'site-b' },
      ]);
    }
  });

  test('simultaneous creates of one slug on one website: one succeeds; of one title: each gets its own slug', async () => {
    for (const { schema, definition } of slugged()) {
      await clear(schema.uid);
      const path = `/api/v2/cms/site-a/${collectionOf(schema)}`;
      const post = (attributes: Row) =>
        api.post(path, key.auth, resourceDocument(collectionOf(schema), { ...recordData(schema, definition, 'Race'), ...attributes }));
      const explicit = await Promise.all([
        post({ [definition.attribute]: 'race' }),
        post({ [definition.attribute]: 'race' }),
        post({ [definition.attribute]: 'race' }),
      ]);
      expect(explicit.map((res) => res.status).sort()).toEqual([201, 409, 409]);
      const generated = await Promise.all([post({}), post({}), post({})]);
      expect(generated.map((res) => res.status)).toEqual([201, 201, 201]);
      expect(generated.map((res) => res.body.data.meta.slug).sort()).toEqual(['race-1', 'race-2', 'race-3']);

      // The same through the document service, as the admin writes.
      const create = (slug: string) =>
        documents(schema.uid)
          .create({
            data: {
              ...recordData(schema, definition, 'Rally'),
              [definition.attribute]: slug,
              [definition.scopeAttribute]: sites.b.documentId,
            },
            status: 'published',
          })
          .then(
            (created) => created[definition.attribute],
            (error: Error) => error.name,
          );
      expect((await Promise.all([create('rally'), create('rally'), create('rally')])).sort()).toEqual([
        'ValidationError',
        'ValidationError',
        'rally',
      ]);
      expect((await Promise.all([create(''), create(''), create('')])).sort()).toEqual(['rally-1', 'rally-2', 'rally-3']);
    }
  });
});

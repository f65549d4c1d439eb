/**
 * A long to-many list is cut in SQL (contract section 13, read/first-links.ts): a building linked to
 * 3,000 events answers its first 100 references and `meta.truncated`, in exactly the order and with
 * exactly the de-duplication and visibility of the read that loaded every link and cut in JavaScript
 * (reproduced below as the oracle), and the relation query returns one row past the cap, not 3,000.
 *
 * The events are inserted as Strapi stores a published document (a draft row and a published row, each
 * linked to the matching building row), with knex: 3,000 document service calls would take minutes. The
 * buildings' order column is shuffled, some links lead to rows no read shows (drafts, another language),
 * and on a second building some documents are linked twice, so the order, the de-duplication and the
 * visibility are all tested.
 */
import type { Knex } from 'knex';
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { publish, website } from '../helpers/fixtures';
import { usingMariadb, usingPostgres } from '../helpers/database';
import { readModelOf } from '../../src/plugins/public-api/server/src/read/model';
import { linkListIndexName } from '../../src/plugins/public-api/server/src/services/indexes';

const CAP = 100;
const EVENTS = 3000;
const EVENT = 'api::event.event';
const BUILDING = 'api::building.building';

let app: TestApp;
let depot: { documentId: string; id: number };
let depotRows: { draft: number; published: number };
let annex: { documentId: string };
let annexRows: { draft: number; published: number };
const sql: string[] = [];
let lastCut: { sql: string; bindings: unknown[] } | null = null;
const returned: number[] = [];
/** The queries of the buildings' `events` references: the cut per owner (CROSS JOIN), the cut by document (window). */
const relationQuery = (text: string) => /events_venue_lnk/.test(text) && /cross join|row_number\(\) over/i.test(text);

type Meta = { tableName: string; attributes: Record<string, { columnName?: string }> };

/** A seeded random order (mulberry32), so that a failure can be replayed. */
const shuffled = <T>(items: T[], seed: number): T[] => {
  let state = seed;
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
};

const knex = (): Knex => app.strapi.db.connection as unknown as Knex;

/** `count` events (draft and published rows, locale `locale`) linked to the building's rows; their published row ids. */
const insertEvents = async (prefix: string, count: number, locale: string, building: { draft: number; published: number }) => {
  const meta = app.strapi.db.metadata.get(EVENT) as unknown as Meta;
  const column = (attribute: string) => meta.attributes[attribute]!.columnName!;
  const join = readModelOf(app.strapi, BUILDING).relations.events!;
  const stamp = new Date('2026-11-01T00:00:00.000Z');
  const rows = Array.from({ length: count }, (_, n) => ({
    [column('documentId')]: `${prefix}${String(n).padStart(5, '0')}`,
    [column('title')]: `${prefix} ${n}`,
    [column('slug')]: `${prefix}-${n}`,
    [column('startsAt')]: stamp,
    [column('category')]: 'talk',
    [column('locale')]: locale,
    [column('createdAt')]: stamp,
    [column('updatedAt')]: stamp,
  }));
  const ids: { documentId: string; draft: number; published: number }[] = [];
  for (let start = 0; start < rows.length; start += 200) {
    const batch = rows.slice(start, start + 200);
    await knex()(meta.tableName).insert(batch.map((row) => ({ ...row, [column('publishedAt')]: null })));
    await knex()(meta.tableName).insert(batch.map((row) => ({ ...row, [column('publishedAt')]: stamp })));
  }
  const inserted = (await knex()(meta.tableName)
    .select({ id: 'id', documentId: column('documentId'), publishedAt: column('publishedAt') })
    .where(column('documentId'), 'like', `${prefix}%`)
    .where(column('locale'), locale)) as { id: number; documentId: string; publishedAt: unknown }[];
  const byDocument = new Map<string, { documentId: string; draft: number; published: number }>();
  for (const row of inserted) {
    const entry = byDocument.get(row.documentId) ?? { documentId: row.documentId, draft: 0, published: 0 };
    if (row.publishedAt === null) entry.draft = Number(row.id);
    else entry.published = Number(row.id);
    byDocument.set(row.documentId, entry);
  }
  ids.push(...byDocument.values());
  const links = ids.flatMap((event) => [
    { [join.targetColumn]: event.draft, [join.ownerColumn]: building.draft },
    { [join.targetColumn]: event.published, [join.ownerColumn]: building.published },
  ]);
  for (let start = 0; start < links.length; start += 200) await knex()(join.table).insert(links.slice(start, start + 200));
  return ids;
};

type BuildingRows = { draft: number; published: number };

/** A published building whose `events` are `count` inserted events, in a shuffled order of the building. */
const buildingWith = async (slug: string, count: number, seed: number) => {
  const doc = await publish(app.strapi, BUILDING, { name: slug, slug });
  const rows = (await knex()('buildings').select('id', 'published_at').where('document_id', doc.documentId)) as {
    id: number;
    published_at: unknown;
  }[];
  const buildingRows: BuildingRows = {
    draft: Number(rows.find((row) => row.published_at === null)!.id),
    published: Number(rows.find((row) => row.published_at !== null)!.id),
  };
  const events = await insertEvents(slug, count, 'en', buildingRows);
  const join = readModelOf(app.strapi, BUILDING).relations.events!;
  const order = shuffled(
    events.map((event) => event.published),
    seed,
  );
  await knex().transaction(async (trx) => {
    for (const [position, eventRow] of order.entries()) {
      await trx(join.table)
        .where({ [join.ownerColumn]: buildingRows.published, [join.targetColumn]: eventRow })
        .update({ [join.orderColumn!]: position + 1 });
    }
  });
  return { doc, rows: buildingRows, events, order };
};

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  const s = app.strapi;
  const join = readModelOf(s, BUILDING).relations.events!;
  expect(join.orderColumn).toBeDefined();
  const built = await buildingWith('depot', EVENTS, 15);
  depot = built.doc;
  depotRows = built.rows;
  // Links no read of the depot in English shows: events in another language (their order null), and
  // draft rows linked to the published building row, first in the order.
  await insertEvents('depot-fr', 20, 'fr', depotRows);
  await knex()(join.table).insert(
    built.events
      .slice(0, 10)
      // Order 0: before every link of the building (theirs start at 1); MariaDB's order columns are unsigned.
      .map((event) => ({ [join.ownerColumn]: depotRows.published, [join.targetColumn]: event.draft, [join.orderColumn!]: 0 })),
  );

  // The annex: a document reached through two links (Strapi's link per version; here a second published
  // row of the same document), the second link ranking before the first for half of them, after for the rest.
  const annexBuilt = await buildingWith('annex', 150, 16);
  annex = annexBuilt.doc;
  annexRows = annexBuilt.rows;
  const meta = s.db.metadata.get(EVENT) as unknown as Meta;
  const twice = annexBuilt.events.filter((_, index) => index % 3 === 0).slice(0, 40);
  for (const [index, event] of twice.entries()) {
    const [row] = (await knex()(meta.tableName).where('id', event.published)) as Record<string, unknown>[];
    const { id: _id, ...copy } = row!;
    const [inserted] = (await knex()(meta.tableName).insert(copy).returning('id')) as ({ id: number } | number)[];
    const copyId = typeof inserted === 'object' ? inserted.id : inserted!;
    await knex()(join.table).insert({
      [join.ownerColumn]: annexRows.published,
      [join.targetColumn]: copyId,
      [join.orderColumn!]: index % 2 === 0 ? 0 : 1000 + index,
    });
  }

  await publish(s, EVENT, {
    title: 'Elsewhere',
    slug: 'elsewhere',
    startsAt: '2027-01-01T10:00:00.000Z',
    category: 'talk',
    venue: (await publish(s, BUILDING, { name: 'Other', slug: 'other' })).documentId,
  });
  // The relation queries, and how many rows each sent back.
  const connection = app.strapi.db.connection as unknown as Knex;
  connection.on('query', (query: { sql: string; bindings?: unknown[] }) => {
    sql.push(query.sql);
    // The cut of links per owner: a CROSS JOIN (SQLite, PostgreSQL) or, on MariaDB, the window numbering
    // each owner's links (`__position`; the second step's window numbers copies, `__copy`).
    if (relationQuery(query.sql) && /cross join|__position/i.test(query.sql)) lastCut = { sql: query.sql, bindings: query.bindings ?? [] };
  });
  connection.on('query-response', (response: unknown, query: { sql: string }) => {
    if (relationQuery(query.sql)) returned.push(Array.isArray(response) ? response.length : -1);
  });
}, 300_000);
afterAll(async () => {
  await app?.close();
});

/**
 * The read before the cut moved into SQL, as the oracle: every visible link of the owner in the
 * relation's order (order column, then link id), each document kept at its first link, cut to the cap.
 */
const expectedReferences = async (ownerRow: number): Promise<string[]> => {
  const join = readModelOf(app.strapi, BUILDING).relations.events!;
  const rows = (await knex()(`${join.table} as j`)
    .join('events', 'events.id', `j.${join.targetColumn}`)
    .select({ documentId: 'events.document_id' })
    .where(`j.${join.ownerColumn}`, ownerRow)
    .whereNotNull('events.published_at')
    .where('events.locale', 'en')
    .orderBy(`j.${join.orderColumn!}`)
    .orderBy('j.id')) as { documentId: string }[];
  const seen = new Set<string>();
  const list: string[] = [];
  for (const { documentId } of rows) {
    if (seen.has(documentId)) continue;
    seen.add(documentId);
    list.push(documentId);
  }
  return list;
};

const GRANTS = {
  resources: {
    'native:events': { actions: ['read'], read: ['title', 'venue'] },
    'native:buildings': { actions: ['read'], read: ['name', 'events'] },
  },
};

const get = async (key: { auth: string }, path: string) => {
  const res = await app.http().get(path).set('Authorization', key.auth);
  if (res.status !== 200) throw new Error(`${path}: expected 200, got ${res.status}\n${res.text}`);
  expectValidJsonApi(res.body);
  return res.body;
};

test('an owner with 3,000 links answers its first 100 references in the relation order, each document once, and meta.truncated', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const expected = await expectedReferences(depotRows.published);
  expect(expected).toHaveLength(EVENTS);
  returned.length = 0;
  const body = await get(key, '/api/v2/buildings/depot');
  const shown = (body.data.attributes.events as { id: string; collection: string }[]).map((ref) => ref.id);
  expect(shown).toEqual(expected.slice(0, CAP));
  expect(body.data.meta.truncated).toEqual(['events']);
  // The relation query sent back one row past the cap, not every link.
  expect(returned).toEqual([CAP + 1]);
  for (const ref of body.data.attributes.events) expect(ref.collection).toBe('events');
});

test('a page of several owners cuts each one in one query', async () => {
  const key = await createKey(app.strapi, GRANTS);
  returned.length = 0;
  sql.length = 0;
  const page = await get(key, '/api/v2/buildings?limit=10');
  const byId = new Map(
    (page.data as { id: string; attributes: { events: { id: string }[] }; meta: { truncated?: string[] } }[]).map((r) => [r.id, r]),
  );
  expect(byId.get(depot.documentId)!.attributes.events.map((ref) => ref.id)).toEqual(
    (await expectedReferences(depotRows.published)).slice(0, CAP),
  );
  expect(byId.get(depot.documentId)!.meta.truncated).toEqual(['events']);
  expect(byId.get(annex.documentId)!.attributes.events.map((ref) => ref.id)).toEqual(
    (await expectedReferences(annexRows.published)).slice(0, CAP),
  );
  expect(byId.get(annex.documentId)!.meta.truncated).toEqual(['events']);
  const other = [...byId.values()].find((record) => record.attributes.events.length === 1)!;
  expect(other.meta).not.toHaveProperty('truncated');
  // One query cut every owner's list to 101 links (and the one event of the third); the annex's links
  // repeat documents, so its 101 links named fewer documents: it alone was read again, by document.
  expect(sql.filter(relationQuery)).toHaveLength(2);
  expect(returned).toEqual([2 * (CAP + 1) + 1, CAP + 1]);
});

test('a document linked twice appears once, at its first link in the order', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const expected = await expectedReferences(annexRows.published);
  expect(expected).toHaveLength(150);
  returned.length = 0;
  const body = await get(key, '/api/v2/buildings/annex');
  // The cut by links named fewer than 101 documents, so the list was read again by document.
  expect(returned).toEqual([CAP + 1, CAP + 1]);
  const shown = (body.data.attributes.events as { id: string }[]).map((ref) => ref.id);
  expect(shown).toEqual(expected.slice(0, CAP));
  expect(new Set(shown).size).toBe(CAP);
  expect(body.data.meta.truncated).toEqual(['events']);
});

test('include expands the 100 references shown, in their order', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const body = await get(key, '/api/v2/buildings/depot?include=events');
  const expanded = body.data.attributes.events as { id: string; attributes: { venue: { id: string } } }[];
  expect(expanded.map((record) => record.id)).toEqual((await expectedReferences(depotRows.published)).slice(0, CAP));
  for (const record of expanded) expect(record.attributes.venue.id).toBe(depot.documentId);
});

test('the rest of the list is read with a filter on the inverse relation, every event once', async () => {
  const key = await createKey(app.strapi, GRANTS);
  const read: string[] = [];
  let next: string | null = `/api/v2/events?filter[venue][eq]=depot&limit=100`;
  while (next) {
    const body = await get(key, next);
    for (const record of body.data as { id: string }[]) read.push(record.id);
    next = body.links.next ? new URL(body.links.next).pathname + new URL(body.links.next).search : null;
  }
  expect(read).toHaveLength(EVENTS);
  expect(new Set(read)).toEqual(new Set(await expectedReferences(depotRows.published)));
});

/**
 * The plan of a query, as one line of text. PostgreSQL chooses by table statistics, so its plan is taken
 * with current statistics and with sequential scans and sorts priced out (as read-indexes.test.ts does),
 * to show that the index can serve each owner's links in order.
 */
const planOf = async (query: { sql: string; bindings: unknown[] }): Promise<string> => {
  if (usingMariadb()) {
    // EXPLAIN's rows, each as `<table alias> type=<access> key=<index>`.
    await knex().raw('ANALYZE TABLE events, events_venue_lnk, buildings');
    const [rows] = await knex().raw(`EXPLAIN ${query.sql}`, query.bindings as Knex.RawBinding[]);
    return (rows as { table: string; type: string; key: string | null; Extra: string | null }[])
      .map((row) => `${row.table} type=${row.type} key=${row.key ?? '-'} ${row.Extra ?? ''}`)
      .join(' | ');
  }
  if (!usingPostgres()) {
    const plan = await knex().raw(`EXPLAIN QUERY PLAN ${query.sql}`, query.bindings as Knex.RawBinding[]);
    return plan.map((row: { detail: string }) => row.detail).join(' | ');
  }
  // The links were bulk inserted: the statistics autovacuum would gather, gathered now.
  await knex().raw('ANALYZE events, events_venue_lnk, buildings');
  return knex().transaction(async (trx) => {
    await trx.raw('SET LOCAL enable_seqscan = off');
    await trx.raw('SET LOCAL enable_bitmapscan = off');
    await trx.raw('SET LOCAL enable_sort = off');
    const plan = await trx.raw(`EXPLAIN ${query.sql.replace(/\$\d+/g, '?')}`, query.bindings as Knex.RawBinding[]);
    return plan.rows.map((row: { 'QUERY PLAN': string }) => row['QUERY PLAN']).join(' | ');
  });
};

test("each owner's links are read in order from the plugin's index on the join table, up to the cut", async () => {
  const key = await createKey(app.strapi, GRANTS);
  lastCut = null;
  // MariaDB has neither LATERAL nor LIMIT in an IN subquery (read/first-links.ts): a window numbers every
  // visible link of the page's owners, and the first `cap` of each are kept. What must hold there is that
  // an owner's links are looked up by owner in the plugin's index, not by a scan of the join table. Its
  // optimizer prices plans with the table's statistics and no switch prices scans out (PostgreSQL's
  // enable_seqscan): for the depot, which holds nearly every link of the table, scanning the table is the
  // cheaper plan, and it chooses it. So the plan is read for an owner of one link, the common case. The
  // window sorts what it numbers whichever index found the links, so the lookup may use the plugin's index
  // or Strapi's own on the owner column (`_ifk`): both are a lookup by owner.
  await get(key, usingMariadb() ? '/api/v2/buildings/other' : '/api/v2/buildings/depot');
  expect(lastCut).not.toBeNull();
  const plan = await planOf(lastCut!);
  if (usingMariadb()) {
    expect(plan).toMatch(/\bj type=(ref|range) key=events_venue_lnk_(pda_building_id|ifk)\b/);
    return;
  }
  expect(plan).toContain('events_venue_lnk_pda_building_id');
  if (usingPostgres()) expect(plan).toMatch(/Limit/);
  else expect(plan).toContain('CORRELATED LIST SUBQUERY');
});

/**
 * Lists inside components (issue 17): a related-events section's events obey the same cap, cut in SQL per
 * component row from the plugin's index on the component's join table, and the record's `meta.truncated`
 * names the component field that holds the cut list.
 */
describe('reference lists inside components', () => {
  const SECTION = 'sections.related-events';
  let site: string;
  let pageId: string;
  let listed: string[];

  beforeAll(async () => {
    const s = app.strapi;
    site = (await website(s, 'lists-site', [{ collection: 'pages', contentType: 'api::page.page', mode: 'collection' }])).documentId;
    // 150 of the depot's events, in an order of their own.
    const picked = shuffled((await expectedReferences(depotRows.published)).slice(0, 150), 17);
    listed = picked;
    const page = (await s.documents('api::page.page').create({
      data: {
        title: 'Many events',
        website: site,
        sections: [
          { __component: SECTION, heading: 'Short', events: picked.slice(0, 3) },
          { __component: SECTION, heading: 'Long', events: picked },
        ],
      },
      status: 'published',
    } as never)) as unknown as { documentId: string };
    pageId = page.documentId;
    await s.documents('api::page.page').create({
      data: { title: 'Few events', website: site, sections: [{ __component: SECTION, heading: 'Few', events: picked.slice(0, 5) }] },
      status: 'published',
    } as never);
  }, 300_000);

  const PAGE_GRANTS = {
    resources: {
      'cms:lists-site/pages': { actions: ['read'], read: ['title', 'sections'] },
      'native:events': { actions: ['read'], read: ['title'] },
    },
  };
  type Section = { type: string; attributes: { heading: string; events: { id: string }[] } };

  test('a section linked to 150 events shows its first 100 in order, and meta.truncated names the zone', async () => {
    const key = await createKey(app.strapi, PAGE_GRANTS);
    const rows: number[] = [];
    const listen = (response: unknown, query: { sql: string }) => {
      // The cut: a CROSS JOIN (SQLite), LATERAL (PostgreSQL) or the window numbering links (MariaDB).
      if (/related_events/.test(query.sql) && /cross join|lateral|__position/i.test(query.sql))
        rows.push(Array.isArray(response) ? response.length : -1);
    };
    knex().on('query-response', listen);
    let body;
    try {
      body = await get(key, `/api/v2/cms/lists-site/pages/${pageId}`);
    } finally {
      knex().off('query-response', listen);
    }
    const [short, long] = body.data.attributes.sections as Section[];
    expect(short!.attributes.events.map((ref) => ref.id)).toEqual(listed.slice(0, 3));
    expect(long!.attributes.events.map((ref) => ref.id)).toEqual(listed.slice(0, CAP));
    expect(body.data.meta.truncated).toEqual(['sections']);
    // One cut for both sections: the short one's 3 links and the long one's 101, not 150.
    expect(rows).toEqual([3 + CAP + 1]);
  });

  test('a page whose lists are all short has no meta.truncated; include expands the 100 shown', async () => {
    const key = await createKey(app.strapi, PAGE_GRANTS);
    const page = await get(key, '/api/v2/cms/lists-site/pages?limit=10');
    const few = (page.data as { id: string; meta: { truncated?: string[] } }[]).find((record) => record.id !== pageId)!;
    expect(few.meta).not.toHaveProperty('truncated');
    expect((page.data as { id: string; meta: { truncated?: string[] } }[]).find((record) => record.id === pageId)!.meta.truncated).toEqual([
      'sections',
    ]);
    const expanded = await get(key, `/api/v2/cms/lists-site/pages/${pageId}?include=sections.events`);
    const long = (expanded.data.attributes.sections as Section[])[1]!;
    expect(long.attributes.events.map((event) => event.id)).toEqual(listed.slice(0, CAP));
  });

  test('a write never drops what reads did not show: the zone sent whole is 409 (PATCH and atomic); other fields and short lists are written', async () => {
    const writer = await createKey(app.strapi, {
      resources: {
        'cms:lists-site/pages': { actions: ['read', 'update'], read: ['title', 'sections'], write: ['title', 'sections'] },
        'native:events': { actions: ['read'], read: ['title'] },
      },
    });
    const path = `/api/v2/cms/lists-site/pages/${pageId}`;
    const shown = await get(writer, path);
    const patch = (attributes: Record<string, unknown>, id = pageId, target = path) =>
      app
        .http()
        .patch(target)
        .set('Authorization', writer.auth)
        .set('Content-Type', 'application/vnd.api+json')
        .send({ data: { type: 'pages', id, attributes } });
    // The zone written back exactly as read: the references past the first 100 would go.
    const refused = await patch({ sections: shown.data.attributes.sections });
    expect(refused.status).toBe(409);
    expect(refused.body.errors).toEqual([
      expect.objectContaining({ source: { pointer: '/data/attributes/sections' }, meta: { reason: 'relation_list_truncated' } }),
    ]);
    const atomic = await app
      .http()
      .post('/api/v2/operations')
      .set('Authorization', writer.auth)
      .set('Content-Type', 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"')
      .set('Accept', 'application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"')
      .send({
        'atomic:operations': [
          {
            op: 'update',
            href: `/cms/lists-site/pages/${pageId}`,
            data: { type: 'pages', attributes: { title: 'Renamed first' } },
          },
          { op: 'update', href: `/cms/lists-site/pages/${pageId}`, data: { type: 'pages', attributes: { sections: [] } } },
        ],
      });
    expect(atomic.status).toBe(409);
    expect(atomic.body.errors[0]).toMatchObject({
      source: { pointer: '/atomic:operations/1/data/attributes/sections' },
      meta: { reason: 'relation_list_truncated' },
    });
    // Nothing was written: all 150 links stay, and the first operation's title was rolled back.
    const after = await get(writer, path);
    expect(after.data.attributes.title).toBe('Many events');
    expect((after.data.attributes.sections as Section[])[1]!.attributes.events.map((ref) => ref.id)).toEqual(listed.slice(0, CAP));
    expect(after.data.meta.truncated).toEqual(['sections']);
    // A write that leaves the zone out goes through; so does a whole zone on a page whose lists are short.
    const renamed = await patch({ title: 'Many events, renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.meta.truncated).toEqual(['sections']);
    const few = ((await get(writer, '/api/v2/cms/lists-site/pages?limit=10')).data as { id: string }[]).find(
      (record) => record.id !== pageId,
    )!;
    const fewPath = `/api/v2/cms/lists-site/pages/${few.id}`;
    const fewShown = await get(writer, fewPath);
    const rewritten = await patch({ sections: fewShown.data.attributes.sections }, few.id, fewPath);
    expect(rewritten.status).toBe(200);
  });

  test("the plugin's index on the component's join table is created at start for what websites publish", async () => {
    // What the next start does (the website above was created after this one): the indexes of every resource.
    const plugin = app.strapi.plugin('public-api');
    await plugin.service('indexes').ensure(await plugin.service('resources').all());
    const join = readModelOf(app.strapi, SECTION).relations.events!;
    const name = linkListIndexName(join);
    const found = usingPostgres()
      ? ((await knex().raw('SELECT indexname AS name FROM pg_indexes WHERE indexname = ?', [name])).rows as unknown[])
      : usingMariadb()
        ? ((
            await knex().raw(
              'SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = DATABASE() AND index_name = ?',
              [name],
            )
          )[0] as unknown[])
        : ((await knex().raw("SELECT name FROM sqlite_master WHERE type = 'index' AND name = ?", [name])) as unknown[]);
    expect(found).toHaveLength(1);
  });
});

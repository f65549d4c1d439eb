/**
 * The read path's indexes exist after every start, and the page query is served by one, on SQLite, on
 * PostgreSQL (TEST_DATABASE=postgres) and on MariaDB (TEST_DATABASE=mariadb).
 */
import type { Knex } from 'knex';
import type { Response } from 'supertest';
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { usingMariadb, usingPostgres } from '../helpers/database';
import { publish } from '../helpers/fixtures';
import { createKey } from '../helpers/keys';

let app: TestApp;
beforeAll(async () => {
  app = await checkResponses(await bootApp());
});
afterAll(async () => {
  await app?.close();
});

const indexNames = async (knex: Knex, table: string): Promise<string[]> => {
  if (usingPostgres()) {
    const result = await knex.raw('SELECT indexname AS name FROM pg_indexes WHERE tablename = ?', [table]);
    return result.rows.map((row: { name: string }) => row.name);
  }
  if (usingMariadb()) {
    const [rows] = await knex.raw(
      'SELECT DISTINCT index_name AS name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ?',
      [table],
    );
    return (rows as { name: string }[]).map((row) => row.name);
  }
  return (await knex.raw("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", [table])).map(
    (row: { name: string }) => row.name,
  );
};

test.each(['events', 'buildings', 'festivals', 'jobs', 'products'])('%s has its order and slug indexes', async (table) => {
  const names = await indexNames(app.strapi.db.connection as unknown as Knex, table);
  expect(names).toEqual(expect.arrayContaining([`${table}_pda_order`, `${table}_pda_slug`]));
});

/**
 * The plan of a query, as one line of text. SQLite: EXPLAIN QUERY PLAN, whose choice does not depend on
 * table sizes. PostgreSQL chooses by table statistics, and an almost empty test table is read fastest
 * without any index: there the plan is taken with sequential scans and sorts priced out (in a transaction
 * of its own), so it shows whether an index can deliver the rows in page order, which is the point.
 * MariaDB: EXPLAIN's rows, each as `<table> type=<access> key=<index> <Extra>`.
 */
const planOf = async (knex: Knex, sql: string, bindings: readonly unknown[] = []): Promise<string> => {
  if (usingMariadb()) {
    const [rows] = await knex.raw(`EXPLAIN ${sql}`, bindings as Knex.RawBinding[]);
    return (rows as { table: string; type: string; key: string | null; Extra: string | null }[])
      .map((row) => `${row.table} type=${row.type} key=${row.key ?? '-'} ${row.Extra ?? ''}`)
      .join(' | ');
  }
  if (!usingPostgres()) {
    const plan = await knex.raw(`EXPLAIN QUERY PLAN ${sql}`, bindings as Knex.RawBinding[]);
    return plan.map((row: { detail: string }) => row.detail).join(' | ');
  }
  return knex.transaction(async (trx) => {
    await trx.raw('SET LOCAL enable_seqscan = off');
    await trx.raw('SET LOCAL enable_bitmapscan = off');
    await trx.raw('SET LOCAL enable_sort = off');
    const plan = await trx.raw(`EXPLAIN ${sql}`, bindings as Knex.RawBinding[]);
    return plan.rows.map((row: { 'QUERY PLAN': string }) => row['QUERY PLAN']).join(' | ');
  });
};

/**
 * What a plan that does not read the page from the index says: SQLite builds a temporary b-tree,
 * PostgreSQL has a Sort node. MariaDB has no expression or partial index, so its order index cannot lead
 * with `(sort IS NULL)` and is led by `published_at` (services/indexes.ts): the page is a range of that
 * index sorted after (Using filesort), and what must hold there is that the rows come from the index,
 * not from a full scan of the table (type=ALL).
 */
const SORTS = usingPostgres() ? /\bSort\b/ : usingMariadb() ? /type=ALL/ : /TEMP B-TREE/;
/** How each database writes the segment condition on the sort column (src/.../read/sql.ts). */
const IN_NULL_SEGMENT = usingPostgres() ? /is null\) is true/i : /is null\) = 1/i;
const IN_VALUED_SEGMENT = usingPostgres() ? /is null\) is false/i : /is null\) = 0/i;
/**
 * The index a draft read is served by: a partial index of the drafts on SQLite and PostgreSQL, the one
 * order index on MariaDB, whose leading `published_at` tells drafts (null) from published rows.
 */
const DRAFT_ORDER = usingMariadb() ? 'pda_order' : 'pda_draft_order';

test.each(['events', 'buildings', 'festivals', 'jobs', 'products'])(
  '%s has the order index of its drafts (preview reads)',
  async (table) => {
    const names = await indexNames(app.strapi.db.connection as unknown as Knex, table);
    expect(names).toContain(`${table}_${DRAFT_ORDER}`);
  },
);

test('a draft read (status=draft) reads the default page order from the drafts index, not sorted', async () => {
  const knex = app.strapi.db.connection as unknown as Knex;
  const details = await planOf(
    knex,
    "SELECT id FROM events WHERE published_at IS NULL AND locale = 'en' ORDER BY (sort IS NULL) ASC, sort ASC, document_id ASC LIMIT 26",
  );
  expect(details).toContain(`events_${DRAFT_ORDER}`);
  expect(details).not.toMatch(SORTS);
});

test('the default page order is read from the index, not sorted', async () => {
  const knex = app.strapi.db.connection as unknown as Knex;
  const details = await planOf(
    knex,
    "SELECT id FROM events WHERE published_at IS NOT NULL AND locale = 'en' ORDER BY (sort IS NULL) ASC, sort ASC, document_id ASC LIMIT 26",
  );
  expect(details).toContain('events_pda_order');
  expect(details).not.toMatch(SORTS);
});

test('every query of a walk, first page to last, is a range on the order index', async () => {
  for (let index = 0; index < 7; index += 1) {
    await publish(app.strapi, 'api::event.event', {
      title: `Indexed ${index}`,
      startsAt: '2027-01-01T10:00:00.000Z',
      category: 'talk',
      sort: index % 3 === 0 ? null : index,
    });
  }
  const key = await createKey(app.strapi, {
    resources: { 'native:events': { actions: ['read'], read: ['title'], write: [] } },
    commands: [],
    origins: [],
  });
  const knex = app.strapi.db.connection as unknown as Knex;
  const queries: { sql: string; bindings: readonly unknown[] }[] = [];
  const listen = (query: { sql: string; bindings?: readonly unknown[] }) => {
    if (/^select .* from [`"]events[`"]/i.test(query.sql) && /order by/i.test(query.sql))
      queries.push({ sql: query.sql, bindings: query.bindings ?? [] });
  };
  knex.on('query', listen);
  let next: string | null = '/api/v2/events?limit=2';
  let records = 0;
  try {
    while (next) {
      const page: Response = await app.http().get(next).set('Authorization', key.auth);
      expect(page.status).toBe(200);
      records += page.body.data.length;
      next = page.body.links.next ? new URL(page.body.links.next).pathname + new URL(page.body.links.next).search : null;
    }
  } finally {
    knex.off('query', listen);
  }
  expect(records).toBe(7);
  // Pages inside the valued segment, one crossing into the null segment, pages inside that one.
  expect(queries.some((query) => IN_NULL_SEGMENT.test(query.sql))).toBe(true);
  expect(queries.some((query) => IN_VALUED_SEGMENT.test(query.sql))).toBe(true);
  for (const query of queries) {
    // knex reports PostgreSQL's placeholders as $1, $2...; raw() takes ?.
    const details = await planOf(knex, query.sql.replace(/\$\d+/g, '?'), query.bindings);
    // MariaDB: `(sort IS NULL) = 1` cannot narrow an index led by published_at, so a page of the null
    // segment may be read as a range of document ids (Strapi's events_documents_idx) as well as of the
    // order index: a range of an index either way, never the whole table.
    const served = usingMariadb()
      ? expect.stringMatching(/^events type=(range|ref) key=events_/)
      : expect.stringContaining('events_pda_order');
    expect({ sql: query.sql, details }).toEqual({ sql: query.sql, details: served });
    expect({ sql: query.sql, details }).toEqual({ sql: query.sql, details: expect.not.stringMatching(SORTS) });
  }
});

/**
 * The plan of the component links' query. MariaDB prices a plan by the table's size and has no switch that
 * prices scans out (PostgreSQL's enable_seqscan): a `_cmps` table of two rows, looked up for ten owners,
 * is read whole whatever its indexes, rightly. So there the plan is taken in a transaction rolled back
 * after, beside 300 seo links of other records: a table of a size where an index pays.
 */
const componentPlanOf = async (knex: Knex, sql: string, bindings: readonly unknown[]): Promise<string> => {
  if (!usingMariadb()) return planOf(knex, sql, bindings);
  const rolledBack = new Error('rolled back');
  let plan = '';
  await knex
    .transaction(async (trx) => {
      // Other records' seo links (owners past every events row: the foreign key is not checked for these
      // rows, which never commit), as a site of many records holds them.
      const { top } = (await trx('events').max({ top: 'id' }).first()) as { top: number };
      await trx.raw('SET SESSION foreign_key_checks = 0');
      try {
        await trx('events_cmps').insert(
          Array.from({ length: 300 }, (_, index) => ({
            entity_id: Number(top) + 1 + index,
            cmp_id: index + 1,
            component_type: 'shared.seo',
            field: 'seo',
            order: 1,
          })),
        );
      } finally {
        await trx.raw('SET SESSION foreign_key_checks = 1');
      }
      plan = await planOf(trx, sql, bindings);
      throw rolledBack;
    })
    .catch((error: unknown) => {
      if (error !== rolledBack) throw error;
    });
  return plan;
};

test('the components of a page are looked up per owner, field and order through the _pda_owner index, with no sort', async () => {
  for (const title of ['Component owner one', 'Component owner two']) {
    await publish(app.strapi, 'api::event.event', {
      title,
      startsAt: '2027-01-01T10:00:00.000Z',
      category: 'talk',
      seo: { metaTitle: title },
    });
  }
  const key = await createKey(app.strapi, {
    resources: { 'native:events': { actions: ['read'], read: ['title', 'seo'], write: [] } },
    commands: [],
    origins: [],
  });
  const knex = app.strapi.db.connection as unknown as Knex;
  const names = await indexNames(knex, 'events_cmps');
  expect(names).toContain('events_cmps_pda_owner');
  const queries: { sql: string; bindings: readonly unknown[] }[] = [];
  const listen = (query: { sql: string; bindings?: readonly unknown[] }) => {
    if (/from [`"]events_cmps[`"]/i.test(query.sql)) queries.push({ sql: query.sql, bindings: query.bindings ?? [] });
  };
  knex.on('query', listen);
  try {
    const page = await app.http().get('/api/v2/events?limit=10').set('Authorization', key.auth);
    expect(page.status).toBe(200);
    expect(page.body.data.some((record: { attributes: { seo?: unknown } }) => record.attributes.seo)).toBe(true);
  } finally {
    knex.off('query', listen);
  }
  expect(queries).toHaveLength(1);
  // Before the index, SQLite read every owner's links of the field (each record's seo) and sorted them.
  const details = await componentPlanOf(knex, queries[0]!.sql.replace(/\$\d+/g, '?'), queries[0]!.bindings);
  expect(details).toContain('events_cmps_pda_owner');
  expect(details).not.toMatch(SORTS);
});

test('ensuring the indexes again changes nothing', async () => {
  const service = app.strapi.plugin('public-api').service('indexes') as { ensure: (r: unknown[]) => Promise<void> };
  const resources = await (app.strapi.plugin('public-api').service('resources') as { all: () => Promise<unknown[]> }).all();
  await service.ensure(resources);
  const names = await indexNames(app.strapi.db.connection as unknown as Knex, 'events');
  // Order (published), order (drafts, for preview reads) and slug: each once. MariaDB: one order index.
  expect(names.filter((name) => name.startsWith('events_pda_')).sort()).toEqual(
    usingMariadb() ? ['events_pda_order', 'events_pda_slug'] : ['events_pda_draft_order', 'events_pda_order', 'events_pda_slug'],
  );
});

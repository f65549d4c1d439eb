/**
 * The read path's indexes exist after every start, and the page query is served by one.
 */
import type { Knex } from 'knex';
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { usingPostgres } from '../helpers/database';

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
  return (await knex.raw("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", [table])).map((row: { name: string }) => row.name);
};

test.each(['events', 'buildings', 'festivals', 'jobs', 'products'])('%s has its order and slug indexes', async (table) => {
  const names = await indexNames(app.strapi.db.connection as unknown as Knex, table);
  expect(names).toEqual(expect.arrayContaining([`${table}_pda_order`, `${table}_pda_slug`]));
});

test('the default page order is read from the index, not sorted (SQLite plan)', async () => {
  if (usingPostgres()) return; // PostgreSQL picks plans by table statistics; an empty test table says nothing
  const knex = app.strapi.db.connection as unknown as Knex;
  const plan = await knex.raw(
    "EXPLAIN QUERY PLAN SELECT id FROM events WHERE published_at IS NOT NULL AND locale = 'en' ORDER BY (sort IS NULL) ASC, sort ASC, document_id ASC LIMIT 26"
  );
  const details = plan.map((row: { detail: string }) => row.detail).join(' | ');
  expect(details).toContain('events_pda_order');
  expect(details).not.toContain('TEMP B-TREE');
});

test('ensuring the indexes again changes nothing', async () => {
  const service = app.strapi.plugin('public-api').service('indexes') as { ensure: (r: unknown[]) => Promise<void> };
  const resources = await (app.strapi.plugin('public-api').service('resources') as { all: () => Promise<unknown[]> }).all();
  await service.ensure(resources);
  const names = await indexNames(app.strapi.db.connection as unknown as Knex, 'events');
  expect(names.filter((name) => name.startsWith('events_pda_'))).toHaveLength(2);
});

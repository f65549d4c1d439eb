/**
 * knex's SQLite statements prepared once per connection and text (database/sqlite-statement-cache.ts,
 * issue 34), on a real better-sqlite3 connection in memory: the same text is not prepared twice, the cache
 * is bounded, the connection's own `prepare` stays uncached for everyone else, and a statement kept across
 * a schema change answers with the new schema.
 */
import knexFactory, { type Knex } from 'knex';
import { keepPreparedStatements } from '../../src/plugins/public-api/server/src/database/sqlite-statement-cache';

type Connection = { prepare: (sql: string) => { pluck: () => unknown; get: () => unknown } };

let knex: Knex;
let connection: Connection;
let prepared: string[];

beforeEach(async () => {
  knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
  await knex.schema.createTable('things', (table) => {
    table.increments('id');
    table.string('name');
  });
  // The pool's one connection, its prepare counted (an own property over the prototype's).
  const client = knex.client as unknown as { acquireConnection: () => Promise<Connection>; releaseConnection: (c: Connection) => void };
  connection = await client.acquireConnection();
  client.releaseConnection(connection);
  prepared = [];
  const original = connection.prepare.bind(connection);
  connection.prepare = (sql: string) => {
    prepared.push(sql);
    return original(sql);
  };
});

afterEach(async () => {
  await knex.destroy();
});

test('a statement knex runs again is not prepared again; answers stay right', async () => {
  keepPreparedStatements(knex);
  await knex('things').insert({ name: 'a' });
  await knex('things').insert({ name: 'b' });
  expect(await knex('things').where('name', 'a').select('id', 'name')).toEqual([{ id: 1, name: 'a' }]);
  expect(await knex('things').where('name', 'b').select('id', 'name')).toEqual([{ id: 2, name: 'b' }]);
  expect(prepared).toHaveLength(2);
  // Installing twice changes nothing.
  keepPreparedStatements(knex);
  expect(await knex('things').count({ n: '*' })).toEqual([{ n: 2 }]);
  expect(prepared).toHaveLength(3);
});

test('without it, knex prepares on every run (what the cache saves)', async () => {
  await knex('things').insert({ name: 'a' });
  await knex('things').insert({ name: 'b' });
  expect(prepared).toHaveLength(2);
});

test('the cache is bounded: past its capacity the least recently used text is prepared again', async () => {
  keepPreparedStatements(knex, 2);
  const byName = (name: string) => knex('things').where('name', name).select('id');
  const byId = (id: number) => knex('things').where('id', id).select('name');
  const all = () => knex('things').select('id');
  await byName('x');
  await byId(1);
  await byName('y');
  expect(prepared).toHaveLength(2);
  await all();
  // `byId`'s text was the least recently used of the two kept: dropped.
  await byId(2);
  expect(prepared).toHaveLength(4);
});

test("the connection's own prepare stays uncached: a statement changed elsewhere does not reach knex", async () => {
  keepPreparedStatements(knex);
  await knex('things').insert({ name: 'a' });
  const sql = knex('things').select('name').toSQL().sql;
  // Someone else prepares the same text and plucks it (a changed statement, their own).
  const plucked = connection.prepare(sql);
  plucked.pluck();
  expect(plucked.get()).toBe('a');
  expect(await knex('things').select('name')).toEqual([{ name: 'a' }]);
  expect(await knex('things').select('name')).toEqual([{ name: 'a' }]);
  // The test's prepare, then knex's once.
  expect(prepared.filter((text) => text === sql)).toHaveLength(2);
});

test('a kept statement answers with the schema after a change', async () => {
  keepPreparedStatements(knex);
  await knex('things').insert({ name: 'a' });
  expect(await knex('things').select('*')).toEqual([{ id: 1, name: 'a' }]);
  await knex.schema.alterTable('things', (table) => {
    table.string('colour').defaultTo('red');
  });
  expect(await knex('things').select('*')).toEqual([{ id: 1, name: 'a', colour: 'red' }]);
});

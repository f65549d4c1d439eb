/**
 * Prepared statements kept per SQLite connection for the statements knex runs (issue 34). knex's
 * better-sqlite3 client prepares every statement again on every run (`connection.prepare(sql)` in its
 * `_query`): SQLite parses and plans the text each time. Strapi's document service writes through knex's
 * query builder, so an atomic request of 100 adds prepared its few dozen distinct statements thousands of
 * times; in a CPU profile of `npm run bench:abuse`'s atomic-sqlite row, `prepare` was the largest self
 * time of the stretches that held the event loop (a quarter of them), ahead of the garbage collector.
 *
 * Installed on a knex client (Strapi's connection and the read-only one, database/sqlite-reader.ts): while
 * knex's `_query` runs, the connection's `prepare` answers from a cache of this connection's statements,
 * by SQL text, least recently used dropped past `STATEMENTS_PER_CONNECTION` (the text comes from client
 * input: filters, lists of ids). Only knex's own `_query` sees the cache (it swaps `prepare` for the
 * synchronous start of `_query`, where knex prepares, and back): other users of the connection (the
 * plugin's statement runner, the rate limiter) keep their own statements, which they may change (`pluck`,
 * `raw`) without touching knex's. knex runs a statement with `all` or `run` to its end, synchronously, so a
 * statement is never busy when it is reused; SQLite prepares it again by itself after a schema change.
 */
import type { Knex } from 'knex';
import { createLru, type Lru } from '../utils/lru';

/** Statements kept per connection. */
export const STATEMENTS_PER_CONNECTION = 500;

type Statement = object;
type SqliteConnection = { prepare: (sql: string) => Statement };
type KnexSqliteClient = { _query: (connection: SqliteConnection, query: unknown) => Promise<unknown> };

const installed = new WeakSet<object>();

/** Makes knex's statements on this SQLite knex prepared once per connection and text (once per client). */
export const keepPreparedStatements = (knex: Knex, capacity: number = STATEMENTS_PER_CONNECTION): void => {
  const client = knex.client as unknown as KnexSqliteClient;
  if (installed.has(client) || typeof client._query !== 'function') return;
  installed.add(client);
  const caches = new WeakMap<object, Lru<string, Statement>>();
  const run = client._query.bind(client);
  client._query = (connection, query) => {
    if (!connection || typeof connection.prepare !== 'function') return run(connection, query);
    let cache = caches.get(connection);
    if (!cache) caches.set(connection, (cache = createLru<string, Statement>(capacity)));
    const statements = cache;
    const prepare = connection.prepare;
    connection.prepare = (sql: string) => {
      const known = statements.get(sql);
      if (known) return known;
      const statement = prepare.call(connection, sql);
      statements.set(sql, statement);
      return statement;
    };
    try {
      // knex prepares before its first await: the swap covers exactly that call.
      return run(connection, query);
    } finally {
      connection.prepare = prepare;
    }
  };
};

/**
 * SQLite reads that never wait for a writer (issue 34): a read-only connection of their own, on the same
 * database file, beside the one connection Strapi's knex writes on.
 *
 * SQLite runs in WAL mode (database/journal.ts): a reader reads the last committed state of the file while
 * a writer's transaction is open, without waiting for it and without the writer waiting for it. Strapi's
 * knex holds ONE connection, though, and a write transaction holds it from BEGIN to COMMIT: an atomic
 * request of 100 operations held it for seconds, and every read of every key queued behind it (read p95
 * 6.6 ms -> 4.3 s). Reads outside a write's transaction now run on this second knex instance instead: one
 * better-sqlite3 connection opened `readonly`, in this process.
 *
 * What a read sees: each statement, the last state committed when it starts (the writer's transaction
 * in progress is invisible until its COMMIT, then visible to the next statement at once). A write is
 * committed before its response is sent, so a read sent after a write's answer sees that write. A read of
 * several statements (a page and its includes) may see a write that committed between two of them, as on
 * PostgreSQL's READ COMMITTED pool. A read inside a write's transaction (a write reading back what it
 * wrote) runs in that transaction, as before, and sees the write.
 *
 * Not opened for an in-memory database (no file another connection could open) nor on PostgreSQL, whose
 * pool already reads beside its writers. Its queries are told to the main knex's listeners too (query
 * logging, tests counting queries).
 */
import type { Core } from '@strapi/strapi';
import knexFactory, { type Knex } from 'knex';
import { currentTransaction, databaseClient } from './connection';
import { keepPreparedStatements } from './sqlite-statement-cache';

type SqliteSettings = { filename?: string; options?: Record<string, unknown> };

const readers = new WeakMap<object, Knex | null>();

/** The file of a SQLite connection config, or null for an in-memory database or none. */
export const databaseFile = (settings: unknown): string | null => {
  const filename = typeof settings === 'string' ? settings : (settings as SqliteSettings | undefined)?.filename;
  if (typeof filename !== 'string' || filename === '' || filename === ':memory:' || filename.startsWith('file::memory:')) return null;
  return filename;
};

const openReader = (strapi: Core.Strapi): Knex | null => {
  if (databaseClient(strapi) !== 'sqlite') return null;
  const config = strapi.db.config.connection as { connection?: unknown; useNullAsDefault?: boolean };
  const filename = databaseFile(config.connection);
  if (!filename) return null;
  const main = strapi.db.connection as unknown as Knex & { emit: (event: string, ...data: unknown[]) => boolean };
  const reader = knexFactory({
    client: 'better-sqlite3',
    connection: { filename, options: { readonly: true } },
    useNullAsDefault: true,
    // One connection: better-sqlite3 runs each statement to its end on the event loop's thread, so a
    // second one would never run at the same time. Kept open for the life of the process.
    pool: { min: 1, max: 1, idleTimeoutMillis: 2 ** 31 - 1 },
  });
  keepPreparedStatements(reader);
  for (const event of ['query', 'query-response', 'query-error']) {
    reader.on(event, (...data: unknown[]) => main.emit(event, ...data));
  }
  return reader;
};

/**
 * The read-only knex of this application's SQLite database, opened on first use; null on PostgreSQL or
 * for an in-memory database.
 */
export const sqliteReader = (strapi: Core.Strapi): Knex | null => {
  const main = strapi.db.connection as unknown as object;
  if (!readers.has(main)) readers.set(main, openReader(strapi));
  return readers.get(main)!;
};

/** The read-only knex of the database whose main knex is `main`, when it was opened (no opening here). */
export const openedSqliteReader = (main: object): Knex | null => readers.get(main) ?? null;

/** Closes the read-only connection (destroy, before Strapi closes its own). */
export const closeSqliteReader = async (strapi: Core.Strapi): Promise<void> => {
  const main = strapi.db?.connection as unknown as object | undefined;
  if (!main) return;
  const reader = readers.get(main);
  // Closed for good: a late read goes to the pool as before rather than opening it again.
  readers.set(main, null);
  if (reader) await reader.destroy();
};

/**
 * Where a read's raw SQL runs: the write's transaction in progress, if any (it must see the write; on
 * SQLite a read beside it on the pool would wait for it), else on SQLite the read-only connection, else
 * the pool (PostgreSQL).
 */
export const readConnectionOf = (strapi: Core.Strapi): Knex => {
  const transaction = currentTransaction();
  if (transaction) return transaction;
  // Inside a transaction Strapi's services opened: the statement runner joins it; raw knex stays as before.
  if (strapi.db.inTransaction()) return strapi.db.connection as unknown as Knex;
  return sqliteReader(strapi) ?? (strapi.db.connection as unknown as Knex);
};

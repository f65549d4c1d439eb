/**
 * Which connection raw SQL of the plugin runs on: the transaction of the write in progress, if any,
 * else the pool.
 *
 * Strapi's query engine and document service join the current transaction by themselves; raw knex does
 * not. Without this a read-back inside a write would run outside the write's transaction: it would not
 * see the write, and on SQLite (one connection) it would wait for the very transaction that waits for it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';

type Current = { trx: Knex.Transaction; onRollback: (callback: () => void) => void };
const current = new AsyncLocalStorage<Current>();

/**
 * The database this application runs on: the three the plugin's SQL is written for. 'mysql' is MySQL
 * and MariaDB alike (Strapi's client name for both; the plugin's SQL keeps to what both have: MariaDB
 * 10.6 and MySQL 8.0 and later, for SKIP LOCKED).
 */
export type DatabaseClient = 'sqlite' | 'postgres' | 'mysql';

export const databaseClient = (strapi: Core.Strapi): DatabaseClient => {
  const client = (strapi.db.config.connection as { client?: string }).client;
  return client === 'postgres' || client === 'mysql' ? client : 'sqlite';
};

export const connectionOf = (strapi: Core.Strapi): Knex =>
  (current.getStore()?.trx as Knex | undefined) ?? (strapi.db.connection as unknown as Knex);

/** The transaction of the write in progress, or null outside one. */
export const currentTransaction = (): Knex | null => (current.getStore()?.trx as Knex | undefined) ?? null;

/**
 * Runs `work` in one database transaction that Strapi's services and the plugin's raw SQL share. It
 * commits when `work` resolves and rolls back when it throws; nested calls join the outer transaction.
 */
export const inTransaction = <T>(strapi: Core.Strapi, work: () => Promise<T>): Promise<T> => {
  const outer = current.getStore();
  if (outer) return work();
  return strapi.db.transaction(({ trx, onRollback }) =>
    current.run({ trx: trx as unknown as Knex.Transaction, onRollback: onRollback as Current['onRollback'] }, work),
  ) as Promise<T>;
};

/**
 * Runs independent reads: at once on the pool, one after the other inside a transaction. A transaction is
 * one connection, and the pg driver only queues queries sent to a connection that is busy (a use pg 9
 * will refuse); SQLite has one connection either way.
 */
export const readAll = async <T>(tasks: readonly (() => Promise<T>)[]): Promise<T[]> => {
  if (!current.getStore()) return Promise.all(tasks.map((task) => task()));
  const results: T[] = [];
  for (const task of tasks) results.push(await task());
  return results;
};

/**
 * Holds a lock named `name` until the current transaction ends, so that writes that check before they
 * write (a free slug, an address not yet subscribed) cannot both pass the check on two connections or
 * instances. PostgreSQL: a transaction-level advisory lock. SQLite runs one write transaction at a time
 * already. MySQL and MariaDB have no advisory lock that ends with the transaction (GET_LOCK is held by the
 * session until released, and a pooled connection outlives its transaction: a release missed after a
 * commit or a failed rollback would keep the lock for whoever uses the connection next), so there the lock
 * is a row of LOCKS_TABLE written in the transaction: InnoDB holds a written row's lock until commit or
 * rollback, whatever happens to the process. The row is the name's CRC32 (like hashtext on PostgreSQL: two
 * names that share it only wait for each other), so the table holds at most one row per name ever locked.
 * Call it inside `inTransaction`, or pass the transaction Strapi opened (`strapi.db.transaction`).
 */
export const lockUntilCommit = async (strapi: Core.Strapi, name: string, connection: Knex = connectionOf(strapi)): Promise<void> => {
  const client = databaseClient(strapi);
  if (client === 'postgres') {
    await connection.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [name]);
    return;
  }
  if (client === 'mysql') {
    // ON DUPLICATE KEY UPDATE takes the row's exclusive lock straight away, present or not (a plain INSERT
    // IGNORE would take a shared one first, and two of those waiting to upgrade deadlock).
    await connection.raw(`INSERT INTO ${LOCKS_TABLE} (id) VALUES (CRC32(?)) ON DUPLICATE KEY UPDATE id = id`, [name]);
  }
};

/** MySQL and MariaDB: the rows lockUntilCommit locks (created at start by ensureLocksTable). */
export const LOCKS_TABLE = 'public_api_locks';

/** Creates LOCKS_TABLE when missing (MySQL and MariaDB; every start, idempotent). */
export const ensureLocksTable = async (strapi: Core.Strapi): Promise<void> => {
  if (databaseClient(strapi) !== 'mysql') return;
  await (strapi.db.connection as unknown as Knex).raw(
    `CREATE TABLE IF NOT EXISTS ${LOCKS_TABLE} (id bigint unsigned PRIMARY KEY) ENGINE=InnoDB`,
  );
};

/**
 * Runs `undo` if the current transaction rolls back: for what a transaction cannot take back itself, such
 * as bytes written to disk. Outside a transaction there is nothing to roll back, and nothing is kept.
 */
export const onRollback = (undo: () => Promise<unknown>): void => {
  current.getStore()?.onRollback(() => void undo().catch(() => undefined));
};

/**
 * The application's one statement runner (database/statements.ts): shapes and prepared statements are
 * shared by every service that reads through it, on the pool Strapi's knex holds (PostgreSQL) or on
 * SQLite's read-only connection (database/sqlite-reader.ts), and in a write's transaction inside one.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { currentTransaction, databaseClient } from './connection';
import { sqliteReader } from './sqlite-reader';
import { createStatementRunner, type StatementRunner } from './statements';

const runners = new WeakMap<Core.Strapi, StatementRunner>();

/**
 * The transaction a read must join: the plugin's own (a read's builder is moved onto it, whether or not
 * it was made on it), or one Strapi's
 * services opened (`strapi.db.transaction`; on SQLite's one connection a read outside it would wait for
 * it forever). Strapi hands the current transaction to a nested `transaction` call without ending it.
 */
const transactionOf = (strapi: Core.Strapi) => {
  const own = currentTransaction();
  if (own) return { trx: own as Knex.Transaction, own: true };
  if (!strapi.db.inTransaction()) return null;
  return strapi.db.transaction(async ({ trx }) => trx).then((trx) => ({ trx: trx as unknown as Knex.Transaction, own: false }));
};

type ReaderClient = { acquireConnection: () => Promise<unknown>; releaseConnection: (connection: unknown) => unknown };

/** Runs a builder made on Strapi's knex on the read-only connection instead (knex's `.connection`). */
const onReader = async (strapi: Core.Strapi, builder: Knex.QueryBuilder): Promise<unknown> => {
  const client = sqliteReader(strapi)!.client as unknown as ReaderClient;
  const connection = await client.acquireConnection();
  try {
    return await builder.connection(connection);
  } finally {
    await client.releaseConnection(connection);
  }
};

export const statementRunner = (strapi: Core.Strapi): StatementRunner => {
  let runner = runners.get(strapi);
  if (!runner) {
    runner = createStatementRunner({
      // On SQLite, reads outside a transaction run on the read-only connection (database/sqlite-reader.ts).
      knex: () => sqliteReader(strapi) ?? (strapi.db.connection as unknown as Knex),
      transaction: () => transactionOf(strapi),
      client: databaseClient(strapi),
      readOutside: sqliteReader(strapi) ? (builder) => onReader(strapi, builder) : undefined,
    });
    runners.set(strapi, runner);
  }
  return runner;
};

/**
 * The application's one statement runner (database/statements.ts): shapes and prepared statements are
 * shared by every service that reads through it, on the pool Strapi's knex holds.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { currentTransaction, databaseClient } from './connection';
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

export const statementRunner = (strapi: Core.Strapi): StatementRunner => {
  let runner = runners.get(strapi);
  if (!runner) {
    runner = createStatementRunner({
      knex: () => strapi.db.connection as unknown as Knex,
      transaction: () => transactionOf(strapi),
      client: databaseClient(strapi),
    });
    runners.set(strapi, runner);
  }
  return runner;
};

/**
 * The application's one statement runner (database/statements.ts): shapes and prepared statements are
 * shared by every service that reads through it, on the pool Strapi's knex holds.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { currentTransaction, databaseClient } from './connection';
import { createStatementRunner, type StatementRunner } from './statements';

const runners = new WeakMap<Core.Strapi, StatementRunner>();

export const statementRunner = (strapi: Core.Strapi): StatementRunner => {
  let runner = runners.get(strapi);
  if (!runner) {
    runner = createStatementRunner({
      knex: () => strapi.db.connection as unknown as Knex,
      transaction: currentTransaction,
      client: databaseClient(strapi),
    });
    runners.set(strapi, runner);
  }
  return runner;
};

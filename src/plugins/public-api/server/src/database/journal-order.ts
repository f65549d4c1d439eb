/**
 * MySQL and MariaDB: the change journal's order lock (services/journal/table.ts says why entries must
 * commit in `seq` order there). Every content write takes it in its transaction before it touches a row
 * (services/journal/middleware.ts), and so does a write that locks a document to check it first
 * (document-lock.ts): one lock taken first by every writer makes no cycle with the rows they lock after it.
 * Nothing on SQLite and PostgreSQL.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { connectionOf, databaseClient, lockUntilCommit } from './connection';

export const JOURNAL_ORDER_LOCK = 'public-api:journal-order';

/** Takes the journal's order lock until the transaction of `connection` (by default the current one) ends. */
export const holdJournalOrder = async (strapi: Core.Strapi, connection: Knex = connectionOf(strapi)): Promise<void> => {
  if (databaseClient(strapi) !== 'mysql') return;
  await lockUntilCommit(strapi, JOURNAL_ORDER_LOCK, connection);
};

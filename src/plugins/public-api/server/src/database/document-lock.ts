/**
 * Holds a record's rows against other writers until the current write's transaction ends: `SELECT ...
 * FOR UPDATE` on PostgreSQL and MariaDB (after the journal's order lock there). What a write checks before it writes (If-Match, contract section 14) then
 * stays true until it has written. SQLite needs none: its writes are serialized on the one connection,
 * whole transactions at a time.
 */
import type { Core } from '@strapi/strapi';
import { createReadModels } from '../read/model';
import { connectionOf, databaseClient } from './connection';
import { holdJournalOrder } from './journal-order';

export const createDocumentLock = (strapi: Core.Strapi) => {
  const models = createReadModels(strapi);
  /** Locks every row (locale, draft and published) of the document; call inside `inTransaction`. */
  return async (uid: string, documentId: string): Promise<void> => {
    const client = databaseClient(strapi);
    if (client === 'sqlite') return;
    // MySQL and MariaDB: the journal's order lock first, as every content write takes it (journal-order.ts).
    if (client === 'mysql') await holdJournalOrder(strapi);
    const model = models(uid);
    await connectionOf(strapi)(model.table).select(model.columns.id!).where(model.columns.documentId!, documentId).forUpdate();
  };
};

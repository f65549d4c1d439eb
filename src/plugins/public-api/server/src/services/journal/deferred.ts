/**
 * Deferred journal entries for the plain creates of a batch of writes (atomic operations, issue 17).
 *
 * Inside `withDeferredCreates`, the journal middleware does not journal a *plain* create (one whose data
 * sets no relation, component or dynamic zone) when it happens: it notes the new document, and the
 * entries of every noted document are written together when the batch is flushed: one query for their
 * published rows per content type, one INSERT for all their entries, one INSERT ... SELECT per relation
 * field leading to them (instead of 1 + 1 + one per relation field for each create).
 *
 * The entries are the ones the creates would have written one by one, in the same order: the batch is
 * flushed before any other write of the batch reaches the journal (an update, a removal, a create that
 * sets links), and at the end of the batch, inside the write's transaction. Until then nothing could
 * have changed what the entries say: a noted document's published rows change only through a write that
 * names it, and a record can only link to a new document through a write that sets links. Only
 * `occurred_at` differs: the flush's time, milliseconds later, in the same transaction.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';

/** A created document, by content type. */
export type CreatedDocument = { uid: string; documentId: string };

/** Writes the entries of the documents created since the last flush, in creation order. */
export type CreatesJournal = (connection: Knex, created: readonly CreatedDocument[]) => Promise<void>;

type Batch = { created: CreatedDocument[]; journal: CreatesJournal | null };

const batches = new AsyncLocalStorage<Batch>();

/** The batch the current write belongs to, or null outside one (every write outside atomic operations). */
export const currentBatch = (): { defer: (created: CreatedDocument, journal: CreatesJournal) => void } | null => {
  const batch = batches.getStore();
  if (!batch) return null;
  return {
    defer(created, journal) {
      batch.created.push(created);
      batch.journal = journal;
    },
  };
};

/** Writes the batch's noted entries now (in the current transaction); nothing outside a batch. */
export const flushDeferredCreates = async (strapi: Core.Strapi): Promise<void> => {
  const batch = batches.getStore();
  if (!batch || batch.created.length === 0 || !batch.journal) return;
  const created = batch.created;
  batch.created = [];
  const journal = batch.journal;
  await strapi.db.transaction(({ trx }) => journal(trx as unknown as Knex, created));
};

/**
 * Runs `work` (inside a transaction) with the journal entries of its plain creates deferred, and writes
 * them before it returns. When `work` throws, nothing is written: the transaction rolls back anyway.
 */
export const withDeferredCreates = <T>(strapi: Core.Strapi, work: () => Promise<T>): Promise<T> =>
  batches.run({ created: [], journal: null }, async () => {
    const result = await work();
    await flushDeferredCreates(strapi);
    return result;
  });

/**
 * The records that show a changed record as a reference: the published rows of every application
 * content type whose relation field leads to it. A record's references carry the target's id and slug
 * and appear only while the target is published, so when a target is published, changed, unpublished or
 * deleted, the records linking to it read differently too: each gets an `updated` journal entry, so
 * webhooks and the sync feed send them again.
 *
 * One `INSERT ... SELECT` per relation field that leads to the changed content type, in the write's
 * transaction, for one changed document or several (the deferred creates of an atomic request): the referrers are never loaded into memory, however many there are, and each statement
 * follows the join table's index on the target column. Relations held inside components are not
 * followed (their owner is a component row).
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { databaseClient } from '../../database/connection';
import { readModelOf } from '../../read/model';
import { JOURNAL_TABLE, transactionIdSql } from './table';

type Link = {
  ownerUid: string;
  ownerTable: string;
  localized: boolean;
  draftAndPublish: boolean;
  join: { table: string; ownerColumn: string; targetColumn: string };
};

type Schema = { options?: { draftAndPublish?: boolean }; pluginOptions?: { i18n?: { localized?: boolean } } };

/** Journals the published referrers of the documents (one statement per relation field, whatever their number). */
export type Referrers = { journal: (connection: Knex, uid: string, documentIds: readonly string[]) => Promise<void> };

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

export const createReferrers = (strapi: Core.Strapi): Referrers => {
  // Relation fields of application content types, by the content type they lead to.
  const byTarget = new Map<string, Link[]>();
  for (const [uid, schema] of Object.entries(strapi.contentTypes as unknown as Record<string, Schema>)) {
    if (!uid.startsWith('api::')) continue;
    const model = readModelOf(strapi, uid);
    for (const relation of Object.values(model.relations)) {
      const links = byTarget.get(relation.targetUid) ?? [];
      links.push({
        ownerUid: uid,
        ownerTable: model.table,
        localized: schema.pluginOptions?.i18n?.localized === true,
        draftAndPublish: schema.options?.draftAndPublish === true,
        join: { table: relation.table, ownerColumn: relation.ownerColumn, targetColumn: relation.targetColumn },
      });
      byTarget.set(relation.targetUid, links);
    }
  }
  const targetTable = (uid: string) => readModelOf(strapi, uid).table;

  return {
    async journal(connection, uid, documentIds) {
      const links = byTarget.get(uid);
      if (!links || documentIds.length === 0) return;
      const placeholders = documentIds.map(() => '?').join(', ');
      const txid = transactionIdSql(databaseClient(strapi));
      const now = Date.now();
      for (const link of links) {
        const locale = link.localized ? 'o.locale' : 'NULL';
        const published = link.draftAndPublish ? 'AND o.published_at IS NOT NULL' : '';
        await connection.raw(
          `INSERT INTO ${JOURNAL_TABLE} (txid, content_type, document_id, locale, kind, occurred_at)
           SELECT DISTINCT ${txid}, CAST(? AS varchar(255)), o.document_id, ${locale}, 'updated', CAST(? AS bigint)
           FROM ${quote(link.ownerTable)} o
           JOIN ${quote(link.join.table)} j ON j.${quote(link.join.ownerColumn)} = o.id
           JOIN ${quote(targetTable(uid))} t ON t.id = j.${quote(link.join.targetColumn)}
           WHERE t.document_id IN (${placeholders}) AND o.document_id <> t.document_id ${published}`,
          [link.ownerUid, now, ...documentIds],
        );
      }
    },
  };
};

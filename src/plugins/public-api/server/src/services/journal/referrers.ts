/**
 * The records that show a changed record or file: the published rows of every application content type
 * that reference it, directly or from inside a component (at any depth, dynamic zones included:
 * reference-paths.ts).
 *
 * - A record's references carry the target's id and slug and appear only while the target is published,
 *   so when a target is published, changed, unpublished or deleted (`journal`), the records linking to it
 *   read differently too.
 * - A record's media fields show the file's URL (its content version), name, alt text and caption, so
 *   when an editor replaces the file behind them in the media library, or edits what it shows (`journalFile`),
 *   the records holding it read differently too.
 *
 * Each such record gets an `updated` journal entry, so webhooks and the sync feed send it again. One
 * `INSERT ... SELECT` per path that leads to the changed content type (or to files), in the write's
 * transaction when there is one, for one changed document or several (the deferred creates of an atomic
 * request): the referrers are never loaded into memory, however many there are, and each statement follows
 * the join tables' indexes from the target to the owner.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { databaseClient } from '../../database/connection';
import { readModelOf } from '../../read/model';
import { referencePaths, type HolderPath, type ReferencePaths } from './reference-paths';
import { JOURNAL_TABLE, transactionIdSql } from './table';

export type Referrers = {
  /** Entries for the records referencing the documents `documentIds` of `uid` (one statement per path, whatever their number). */
  journal: (connection: Knex, uid: string, documentIds: readonly string[]) => Promise<void>;
  /** Entries for the records whose media fields hold upload file `fileId`. */
  journalFile: (connection: Knex, fileId: number) => Promise<void>;
};

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/**
 * The FROM clause of a path: the owner's rows `o`, then one join per component level (`c1`, `c2`, ...);
 * answers the SQL, its bindings, and the expression of the holding row's id.
 */
const fromPath = (path: HolderPath): { sql: string; bindings: string[]; holder: string } => {
  let sql = `${quote(path.ownerTable)} o`;
  const bindings: string[] = [];
  let holder = 'o.id';
  path.hops.forEach((hop, index) => {
    const alias = `c${index + 1}`;
    sql += ` JOIN ${quote(hop.table)} ${alias} ON ${alias}.${quote(hop.ownerColumn)} = ${holder} AND ${alias}.${quote(hop.typeColumn)} = ?`;
    bindings.push(hop.componentUid);
    holder = `${alias}.${quote(hop.componentColumn)}`;
  });
  return { sql, bindings, holder };
};

export const createReferrers = (strapi: Core.Strapi): Referrers => {
  let paths: ReferencePaths | null = null;
  const pathsOf = () => (paths ??= referencePaths(strapi));

  /** Appends an `updated` entry for each published owner row the statement's FROM and WHERE reach. */
  const insert = async (connection: Knex, path: HolderPath, join: string, where: string, bindings: readonly unknown[]) => {
    const txid = transactionIdSql(databaseClient(strapi));
    const from = fromPath(path);
    const locale = path.localized ? 'o.locale' : 'NULL';
    const published = path.draftAndPublish ? 'AND o.published_at IS NOT NULL' : '';
    await connection.raw(
      `INSERT INTO ${JOURNAL_TABLE} (txid, content_type, document_id, locale, kind, occurred_at)
       SELECT DISTINCT ${txid}, CAST(? AS varchar(255)), o.document_id, ${locale}, 'updated', CAST(? AS bigint)
       FROM ${from.sql} ${join.replace(/\$holder/g, from.holder)}
       WHERE ${where} ${published}`,
      [path.ownerUid, Date.now(), ...from.bindings, ...bindings] as Knex.RawBinding[],
    );
  };

  return {
    async journal(connection, uid, documentIds) {
      const links = pathsOf().relations.get(uid);
      if (!links || documentIds.length === 0) return;
      const placeholders = documentIds.map(() => '?').join(', ');
      const target = quote(readModelOf(strapi, uid).table);
      for (const link of links) {
        await insert(
          connection,
          link,
          `JOIN ${quote(link.join.table)} j ON j.${quote(link.join.ownerColumn)} = $holder
           JOIN ${target} t ON t.id = j.${quote(link.join.targetColumn)}`,
          `t.document_id IN (${placeholders}) AND o.document_id <> t.document_id`,
          [...documentIds],
        );
      }
    },

    async journalFile(connection, fileId) {
      for (const path of pathsOf().media) {
        const { media } = readModelOf(strapi, path.ownerUid);
        await insert(
          connection,
          path,
          `JOIN ${quote(media.table)} m ON m.${quote(media.ownerColumn)} = $holder AND m.${quote(media.typeColumn)} = ?`,
          `m.${quote(media.fileColumn)} = ?`,
          [path.holderUid, fileId],
        );
      }
    },
  };
};

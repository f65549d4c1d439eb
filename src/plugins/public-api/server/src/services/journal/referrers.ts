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
import { databaseClient, lockUntilCommit } from '../../database/connection';
import { quoteIdentifier } from '../../database/identifiers';
import { rawRows } from '../../database/raw-result';
import { readModelOf } from '../../read/model';
import { COMPONENT_FIELD_COLUMN, referencePaths, type HolderPath, type ReferencePaths, type RelationPath } from './reference-paths';
import { bigintCastSql, JOURNAL_ORDER_LOCK, JOURNAL_TABLE, textCastSql, transactionIdSql } from './table';
import { viaOf } from '../../webhooks/visibility';
import { websiteScopeAttributeOf } from '../../registry/fields';
import { componentUidsOf, isMediaAttribute } from '../../fields/strapi-attributes';

/** A published record that shows another through a field, and that field (`via` of its entries). */
export type Referrer = { uid: string; documentId: string; locale: string | null; via: string };

/**
 * The records a document's own relation fields reach from the other side (an event's `venue` is the
 * building's `events`), by path, or `null` for a path with more than INVERSE_CAP of them.
 */
export type InverseReferrers = Map<RelationPath, Referrer[] | null>;

/** The most records of one inverse path compared before and after a write; past it, all are journaled. */
export const INVERSE_CAP = 1000;

export type Referrers = {
  /** Entries for the records referencing the documents `documentIds` of `uid` (one statement per path, whatever their number). */
  journal: (connection: Knex, uid: string, documentIds: readonly string[], websites?: readonly number[]) => Promise<void>;
  /**
   * The published records that show document `documentId` of `uid` through a relation whose links are the
   * document's own (the other side of its relation fields): those whose references change when the
   * document's links do. One query per such path.
   */
  inverse: (connection: Knex, uid: string, documentId: string) => Promise<InverseReferrers>;
  /** Entries for the records of the paths in `paths` referencing `documentId` of `uid` (see `journal`). */
  journalPaths: (connection: Knex, uid: string, documentId: string, paths: readonly RelationPath[]) => Promise<void>;
  /** Entries for the records whose media fields hold upload file `fileId`. */
  journalFile: (connection: Knex, fileId: number) => Promise<void>;
};

type Quote = (identifier: string) => string;

/**
 * The FROM clause of a path: the owner's rows `o`, then one join per component level (`c1`, `c2`, ...);
 * answers the SQL, its bindings, and the expression of the holding row's id.
 */
const fromPath = (path: HolderPath, quote: Quote): { sql: string; bindings: string[]; holder: string } => {
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
  const client = () => databaseClient(strapi);
  const quote: Quote = (identifier) => quoteIdentifier(client(), identifier);
  let paths: ReferencePaths | null = null;
  const pathsOf = () => (paths ??= referencePaths(strapi));

  /** The owner's component and dynamic zone fields that can hold component `componentUid` (a path's first level). */
  const topFieldsOf = (ownerUid: string, componentUid: string): string[] => {
    const schema = strapi.contentTypes[ownerUid as keyof typeof strapi.contentTypes] as unknown as {
      attributes: Record<string, { type?: string; component?: string; components?: string[] }>;
    };
    return Object.entries(schema.attributes)
      .filter(([, a]) => componentUidsOf(a).includes(componentUid))
      .map(([name]) => name);
  };

  /**
   * The `via` of a path's entries (webhooks/visibility.ts `viaOf`): the holder's field itself for a path
   * without component levels; else the owner's component field the first level belongs to (its `_cmps`
   * row's field), the holding component and the field in it, as one of the constants the schema allows
   * (a CASE: no string concatenation, which the databases spell differently). `holder.column` is the SQL
   * column naming the holder's field when the statement reads it (media), else the field is `fields[0]`.
   */
  const viaSql = (path: HolderPath, holder: { column: string | null; fields: readonly string[] }) => {
    if (path.hops.length === 0)
      return holder.column ? { sql: holder.column, bindings: [] } : { sql: textCastSql(client(), '?'), bindings: [holder.fields[0]!] };
    const top = `c1.${quote(COMPONENT_FIELD_COLUMN)}`;
    const cases: string[] = [];
    const bindings: string[] = [];
    for (const field of topFieldsOf(path.ownerUid, path.hops[0]!.componentUid))
      for (const held of holder.fields) {
        cases.push(`WHEN ${top} = ? ${holder.column ? `AND ${holder.column} = ?` : ''} THEN ${textCastSql(client(), '?')}`);
        bindings.push(field, ...(holder.column ? [held] : []), viaOf(field, path.holderUid, held));
      }
    // A row of a field the schema no longer names (never, short of a hand-edited table): its component field.
    return { sql: cases.length ? `CASE ${cases.join(' ')} ELSE ${top} END` : top, bindings };
  };

  /** Appends an `updated` entry for each published owner row the statement's FROM and WHERE reach, `via` as `viaSql` says. */
  const insert = async (
    connection: Knex,
    path: HolderPath,
    holder: { column: string | null; fields: readonly string[] },
    join: string,
    where: string,
    bindings: readonly unknown[],
  ) => {
    const txid = transactionIdSql(client());
    // MySQL and MariaDB: entries commit in seq order (table.ts, JOURNAL_ORDER_LOCK).
    if (client() === 'mysql') await lockUntilCommit(strapi, JOURNAL_ORDER_LOCK, connection);
    const from = fromPath(path, quote);
    const locale = path.localized ? 'o.locale' : 'NULL';
    const published = path.draftAndPublish ? 'AND o.published_at IS NOT NULL' : '';
    const via = viaSql(path, holder);
    await connection.raw(
      `INSERT INTO ${JOURNAL_TABLE} (txid, content_type, document_id, locale, kind, occurred_at, via)
       SELECT DISTINCT ${txid}, ${textCastSql(client(), '?')}, o.document_id, ${locale}, 'updated', ${bigintCastSql(client(), '?')}, ${via.sql}
       FROM ${from.sql} ${join.replace(/\$holder/g, from.holder)}
       WHERE ${where} ${published}`,
      [path.ownerUid, Date.now(), ...via.bindings, ...from.bindings, ...bindings] as Knex.RawBinding[],
    );
  };

  /** The join table linking a content type's records to websites, for a website-scoped type. */
  const scopeJoinOf = (uid: string) => {
    const schema = strapi.contentTypes[uid as keyof typeof strapi.contentTypes] as unknown as
      { attributes: Parameters<typeof websiteScopeAttributeOf>[0] } | undefined;
    const attribute = schema ? websiteScopeAttributeOf(schema.attributes) : undefined;
    return attribute ? readModelOf(strapi, uid).relations[attribute] : undefined;
  };

  /**
   * When both the owner's and the target's types belong to websites, a record shows a reference only to a
   * record of its own website (issue 33): only owners of the target's website (`websites` absent), or of one
   * of `websites` (a target that moved: those of the websites it left and joined) are journaled.
   */
  const websiteFilter = (path: RelationPath, uid: string, websites?: readonly number[]) => {
    const owner = scopeJoinOf(path.ownerUid);
    const target = scopeJoinOf(uid);
    if (!owner || !target) return { sql: '', bindings: [] as unknown[] };
    const os = `${quote(owner.table)} os`;
    if (websites)
      return {
        sql: ` AND EXISTS (SELECT 1 FROM ${os} WHERE os.${quote(owner.ownerColumn)} = o.id AND os.${quote(owner.targetColumn)} IN (${websites.map(() => '?').join(', ') || 'NULL'}))`,
        bindings: [...websites],
      };
    return {
      sql: ` AND EXISTS (SELECT 1 FROM ${os} JOIN ${quote(target.table)} ts ON ts.${quote(target.targetColumn)} = os.${quote(owner.targetColumn)}
                        WHERE os.${quote(owner.ownerColumn)} = o.id AND ts.${quote(target.ownerColumn)} = t.id)`,
      bindings: [],
    };
  };

  const insertPath = async (
    connection: Knex,
    uid: string,
    link: RelationPath,
    documentIds: readonly string[],
    websites?: readonly number[],
  ) => {
    const target = quote(readModelOf(strapi, uid).table);
    const filter = websiteFilter(link, uid, websites);
    await insert(
      connection,
      link,
      { column: null, fields: [link.field] },
      `JOIN ${quote(link.join.table)} j ON j.${quote(link.join.ownerColumn)} = $holder
       JOIN ${target} t ON t.id = j.${quote(link.join.targetColumn)}`,
      `t.document_id IN (${documentIds.map(() => '?').join(', ')}) AND o.document_id <> t.document_id${filter.sql}`,
      [...documentIds, ...filter.bindings],
    );
  };

  /**
   * The paths that lead to `uid` through links `uid`'s records own: a relation path without component levels
   * whose join table is one of `uid`'s relation fields, read from the other side (its target column is the
   * field's owner column). A self-relation read from its owner's side is not one: its links are the owner's.
   */
  const inversePaths = (uid: string): RelationPath[] => {
    const own = Object.values(readModelOf(strapi, uid).relations);
    return (pathsOf().relations.get(uid) ?? []).filter(
      (path) =>
        path.hops.length === 0 &&
        own.some((relation) => relation.table === path.join.table && relation.ownerColumn === path.join.targetColumn),
    );
  };

  return {
    async journal(connection, uid, documentIds, websites) {
      const links = pathsOf().relations.get(uid);
      if (!links || documentIds.length === 0) return;
      for (const link of links) await insertPath(connection, uid, link, documentIds, websites);
    },

    async journalPaths(connection, uid, documentId, paths) {
      for (const link of paths) await insertPath(connection, uid, link, [documentId]);
    },

    async inverse(connection, uid, documentId) {
      const found: InverseReferrers = new Map();
      const target = readModelOf(strapi, uid);
      const targetPublished = (strapi.contentTypes[uid as keyof typeof strapi.contentTypes] as { options?: { draftAndPublish?: boolean } })
        ?.options?.draftAndPublish
        ? 'AND t.published_at IS NOT NULL'
        : '';
      for (const path of inversePaths(uid)) {
        const locale = path.localized ? 'o.locale' : 'NULL';
        const published = path.draftAndPublish ? 'AND o.published_at IS NOT NULL' : '';
        const rows = rawRows<{ document_id: string; locale: string | null }>(
          await connection.raw(
            `SELECT DISTINCT o.document_id, ${locale} AS locale
           FROM ${quote(path.ownerTable)} o
           JOIN ${quote(path.join.table)} j ON j.${quote(path.join.ownerColumn)} = o.id
           JOIN ${quote(target.table)} t ON t.id = j.${quote(path.join.targetColumn)}
           WHERE t.document_id = ? ${targetPublished} ${published}
           LIMIT ${INVERSE_CAP + 1}`,
            [documentId],
          ),
        );
        found.set(
          path,
          rows.length > INVERSE_CAP
            ? null
            : rows.map((row) => ({ uid: path.ownerUid, documentId: row.document_id, locale: row.locale ?? null, via: path.field })),
        );
      }
      return found;
    },

    async journalFile(connection, fileId) {
      for (const path of pathsOf().media) {
        const { media } = readModelOf(strapi, path.ownerUid);
        const holderSchema = (strapi.components[path.holderUid as keyof typeof strapi.components] ??
          strapi.contentTypes[path.holderUid as keyof typeof strapi.contentTypes]) as unknown as {
          attributes: Record<string, { type?: string }>;
        };
        const mediaFields = Object.entries(holderSchema.attributes)
          .filter(([, attribute]) => isMediaAttribute(attribute))
          .map(([name]) => name);
        await insert(
          connection,
          path,
          { column: `m.${quote(media.fieldColumn)}`, fields: mediaFields },
          `JOIN ${quote(media.table)} m ON m.${quote(media.ownerColumn)} = $holder AND m.${quote(media.typeColumn)} = ?`,
          `m.${quote(media.fileColumn)} = ?`,
          [path.holderUid, fileId],
        );
      }
    },
  };
};

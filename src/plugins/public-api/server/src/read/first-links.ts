/**
 * A relation's visible links cut per owner in SQL (contract section 13): each owner's first targets in
 * the relation's order, at most `cap` of them, with one query for any number of owners. The database
 * reads only what the owners show: for each owner, its links in the relation's order from the index
 * `<join table>_pda_<owner column>` (owner, order, link id; services/indexes.ts), each checked for visibility,
 * until `cap` are found. A building linked to 20,000 events costs 101 index entries and 101 rows, not
 * 20,000 rows read, sent and thrown away.
 *
 * Each database needs its own form: PostgreSQL a `CROSS JOIN LATERAL` subquery with `LIMIT` per owner;
 * SQLite, which has no LATERAL, the owners `CROSS JOIN`ed (so the owner is the outer loop) to the links
 * whose id is `IN` a correlated subquery with `LIMIT`. Both read the owners' rows by id. MariaDB has
 * neither LATERAL nor a LIMIT in an IN subquery: there each owner's links are numbered in the relation's
 * order by a window (ROW_NUMBER per owner) and the first `cap` kept, which reads every visible link of
 * the page's owners (from the same index, in order) before it keeps `cap` of each.
 *
 * The order is the relation's order column, then the link's id, exactly as the plain ORDER BY of the read
 * before this (each database places nulls as its ORDER BY does).
 *
 * A reference names a document once: Strapi could hold two visible links from one owner to one document
 * (two published rows of it in one language), and the first in the order is the one shown. Telling the
 * first copies apart in SQL takes a window partitioned by document, whose sort by document id reads every
 * link. So the cut is made in two steps, and the second never runs on a database Strapi keeps consistent:
 *
 * 1. `cutLinks`: each owner's first `cap` links; duplicates are dropped after (`firstPerDocument`).
 * 2. Only for an owner whose `cap` links named fewer than `cap` documents (some link repeated one), the
 *    cut may have stopped short: `cutDocuments` ranks first copies only (two windows), exactly.
 */
import type { Knex } from 'knex';
import type { DatabaseClient } from '../database/connection';

/** Where the columns of a relation's links are, in the query of the visible links. */
export type LinkColumns = {
  /** The link's id (the join table's `id`). */
  link: string;
  /** The join table's column of the owner row's id. */
  owner: string;
  /** The target's document id: a document appears once per owner. */
  documentId: string;
  /** The relation's order: the order column (when the relation keeps one), then the link's id. */
  order: string[];
  /** What each row returns, by alias (the owner is returned as `owner`, the document id as `documentId`). */
  select: Record<string, string>;
};

const OWNER = 'owner';
const DOCUMENT = 'documentId';
const COPY = '__copy';
const POSITION = '__position';
const orderAlias = (index: number) => `__order_${index}`;
const identifiers = (count: number) => Array.from({ length: count }, () => '??').join(', ');

const selected = (columns: LinkColumns) => ({ ...columns.select, [DOCUMENT]: columns.documentId, [OWNER]: columns.owner });

/** Every visible link of the owners in `visible`, by owner in the relation's order: the read of whole lists. */
export const allLinks = (visible: Knex.QueryBuilder, columns: LinkColumns): Knex.QueryBuilder =>
  visible.select(selected(columns)).orderBy([columns.owner, ...columns.order]);

/** The owners, as rows of their own table, and the join table and target table of the relation. */
export type LinkTables = {
  owners: { table: string; ids: number[] };
  join: { table: string; targetColumn: string };
  /**
   * `join`, when given, joins the target rows to the links `j` itself (and keeps only the visible ones):
   * where a link does not name the shown row directly (a locale fallback list picks the document's row).
   */
  target: { table: string; join?: (builder: Knex.QueryBuilder) => void };
};

/**
 * Each owner's first `cap` visible links in the relation's order (repeated documents included), by owner.
 * `visible()`: a new query of the visible links (the join table as `j`, joined to the target table, the
 * target's visibility applied); it is correlated to the owner row `o`.
 */
export const cutLinks = (
  knex: Knex,
  client: DatabaseClient,
  tables: LinkTables,
  visible: () => Knex.QueryBuilder,
  columns: LinkColumns,
  cap: number,
): Knex.QueryBuilder => {
  const perOwner = () => visible().whereRaw('?? = ??', [columns.owner, 'o.id']).orderBy(columns.order).limit(cap);
  if (client === 'postgres') {
    const orderAliases = columns.order.map((_, index) => orderAlias(index));
    const lateral = perOwner()
      .select(selected(columns))
      .select(Object.fromEntries(columns.order.map((column, index) => [orderAliases[index]!, column])));
    return knex
      .select([OWNER, DOCUMENT, ...Object.keys(columns.select)].map((alias) => `links.${alias}`))
      .from(`${tables.owners.table} as o`)
      .joinRaw('CROSS JOIN LATERAL (?) AS ??', [lateral, 'links'])
      .whereIn('o.id', tables.owners.ids)
      .orderBy(['links.owner', ...orderAliases.map((alias) => `links.${alias}`)]);
  }
  if (client === 'mysql') {
    const ranked = visible()
      .select(selected(columns))
      .select(
        knex.raw(`ROW_NUMBER() OVER (PARTITION BY ?? ORDER BY ${identifiers(columns.order.length)}) AS ??`, [
          columns.owner,
          ...columns.order,
          POSITION,
        ]),
      )
      .whereIn(columns.owner, tables.owners.ids);
    return knex
      .select([OWNER, DOCUMENT, ...Object.keys(columns.select)])
      .from(ranked.as('links'))
      .where(POSITION, '<=', cap)
      .orderBy([OWNER, POSITION]);
  }
  // SQLite: CROSS JOIN keeps the owners the outer loop; each owner's links are then found by id from the
  // correlated subquery's list (the planner's "CORRELATED LIST SUBQUERY").
  const outer = knex
    .select(selected(columns))
    .from(`${tables.owners.table} as o`)
    .crossJoin(knex.raw('??', [`${tables.join.table} as j`]));
  if (tables.target.join) tables.target.join(outer);
  else outer.join(tables.target.table, `${tables.target.table}.id`, `j.${tables.join.targetColumn}`);
  return outer
    .whereIn('o.id', tables.owners.ids)
    .whereIn(columns.link, perOwner().select(columns.link))
    .orderBy([columns.owner, ...columns.order]);
};

/** Each owner's first `cap` distinct documents, each at its first link in the relation's order, by owner. */
export const cutDocuments = (knex: Knex, visible: Knex.QueryBuilder, columns: LinkColumns, cap: number): Knex.QueryBuilder => {
  const orderAliases = columns.order.map((_, index) => orderAlias(index));
  visible
    .select(selected(columns))
    .select(Object.fromEntries(columns.order.map((column, index) => [orderAliases[index]!, column])))
    .select(
      knex.raw(`ROW_NUMBER() OVER (PARTITION BY ??, ?? ORDER BY ${identifiers(columns.order.length)}) AS ??`, [
        columns.owner,
        columns.documentId,
        ...columns.order,
        COPY,
      ]),
    );
  const firsts = knex
    .select([OWNER, DOCUMENT, ...Object.keys(columns.select)])
    .select(
      knex.raw(`ROW_NUMBER() OVER (PARTITION BY ?? ORDER BY ${identifiers(orderAliases.length)}) AS ??`, [
        OWNER,
        ...orderAliases,
        POSITION,
      ]),
    )
    .from(visible.as('links'))
    .where(COPY, 1);
  return knex
    .select([OWNER, DOCUMENT, ...Object.keys(columns.select)])
    .from(firsts.as('firsts'))
    .where(POSITION, '<=', cap)
    .orderBy([OWNER, POSITION]);
};

type LinkRow = Record<string, unknown>;

/** Rows of one of the queries above -> each owner's rows, a document kept at its first row. */
export const firstPerDocument = <R extends LinkRow>(rows: readonly R[]): Map<number, R[]> => {
  const byOwner = new Map<number, R[]>();
  const seen = new Set<string>();
  for (const row of rows) {
    const owner = Number(row.owner);
    const pair = `${owner}:${String(row.documentId)}`;
    if (seen.has(pair)) continue;
    seen.add(pair);
    const list = byOwner.get(owner) ?? [];
    list.push(row);
    byOwner.set(owner, list);
  }
  return byOwner;
};

/**
 * Owners whose cut by links (`cutLinks`, `cap` links each) may have stopped short: all `cap` links were
 * read, yet fewer distinct documents remain. Their lists are read again with `cutDocuments`.
 */
export const shortOwners = <R extends LinkRow>(rows: readonly R[], lists: ReadonlyMap<number, readonly R[]>, cap: number): number[] => {
  const links = new Map<number, number>();
  for (const row of rows) links.set(Number(row.owner), (links.get(Number(row.owner)) ?? 0) + 1);
  return [...links].filter(([owner, count]) => count >= cap && (lists.get(owner)?.length ?? 0) < cap).map(([owner]) => owner);
};

/**
 * A relation's visible links cut per owner in SQL (contract section 13): each owner's first targets in
 * the relation's order, at most `cap` of them, with one query for any number of owners. The database
 * sends back only what the owners show, so a building linked to 20,000 events costs a response of 101
 * rows, not 20,000 rows thrown away in JavaScript.
 *
 * The order is the relation's order column, then the link's id, exactly as the plain ORDER BY of the read
 * before this (each database places nulls as its ORDER BY does, in a window as in the query).
 *
 * A reference names a document once: Strapi could hold two visible links from one owner to one document
 * (two published rows of it in one language), and the first in the order is the one shown. Telling the
 * first copies apart in SQL takes a second window, partitioned by document, whose sort by document id
 * tripled the query's time on SQLite (docs/benchmarks.md, "Long reference lists"). So the cut is made
 * in two steps, and the second never runs on a database Strapi keeps consistent:
 *
 * 1. `cutLinks`: one window, the rank of each link among its owner's links; the first `cap` links of each
 *    owner. Duplicates are dropped after (`firstPerDocument`).
 * 2. Only for an owner whose `cap` links named fewer than `cap` documents (some link repeated one), the
 *    cut may have stopped short: `cutDocuments` ranks first copies only (two windows), exactly.
 */
import type { Knex } from 'knex';

/** Where the columns of a relation's links are, in the query of the visible links. */
export type LinkColumns = {
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

/** Each owner's first `cap` visible links in the relation's order (repeated documents included), by owner. */
export const cutLinks = (knex: Knex, visible: Knex.QueryBuilder, columns: LinkColumns, cap: number): Knex.QueryBuilder => {
  const ranked = visible
    .select(selected(columns))
    .select(
      knex.raw(`ROW_NUMBER() OVER (PARTITION BY ?? ORDER BY ${identifiers(columns.order.length)}) AS ??`, [
        columns.owner,
        ...columns.order,
        POSITION,
      ]),
    );
  return knex
    .select([OWNER, DOCUMENT, ...Object.keys(columns.select)])
    .from(ranked.as('links'))
    .where(POSITION, '<=', cap)
    .orderBy([OWNER, POSITION]);
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

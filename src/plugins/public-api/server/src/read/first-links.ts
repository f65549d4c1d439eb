/**
 * A relation's visible links cut per owner in SQL (contract section 13): each owner's first targets in
 * the relation's order, each target document once, at most `cap` of them, with one query for any number
 * of owners. The database reads an owner's links once and sends back only what the owner shows, so a
 * building linked to 100,000 events costs a response of 101 rows, not 100,000 rows thrown away in
 * JavaScript.
 *
 * Two window functions (SQLite 3.25+, PostgreSQL), each a level of the query, since a window cannot be
 * filtered where it is computed:
 *
 * 1. `copy`: the rank of a link among the owner's links to the same target document, in the relation's
 *    order. Strapi may hold two links to one document (a link per version, a link written twice); the
 *    first in the order is the one a reference shows.
 * 2. `position`: the rank of a first copy among the owner's first copies, in the same order.
 *
 * The order is the relation's order column, then the link's id, exactly as the plain ORDER BY of the
 * read before this (each database places nulls as its ORDER BY does, in the window as in the query).
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
  /** What each row returns, by alias (the owner is returned as `owner`). */
  select: Record<string, string>;
};

const OWNER = 'owner';
const COPY = '__copy';
const POSITION = '__position';
const orderAlias = (index: number) => `__order_${index}`;

/**
 * `visible`: the visible links of the owners asked for (join table joined to the target rows, the
 * target's visibility applied). Returns the query of each owner's first `cap` distinct targets (every
 * one when `cap` is null), ordered by owner, then position.
 */
export const firstLinks = (knex: Knex, visible: Knex.QueryBuilder, columns: LinkColumns, cap: number | null): Knex.QueryBuilder => {
  const orderAliases = columns.order.map((_, index) => orderAlias(index));
  const placeholders = (count: number) => Array.from({ length: count }, () => '??').join(', ');
  visible
    .select({ ...columns.select, [OWNER]: columns.owner })
    .select(Object.fromEntries(columns.order.map((column, index) => [orderAliases[index]!, column])))
    .select(
      knex.raw(`ROW_NUMBER() OVER (PARTITION BY ??, ?? ORDER BY ${placeholders(columns.order.length)}) AS ??`, [
        columns.owner,
        columns.documentId,
        ...columns.order,
        COPY,
      ]),
    );
  const firsts = knex
    .select([OWNER, ...Object.keys(columns.select)])
    .select(
      knex.raw(`ROW_NUMBER() OVER (PARTITION BY ?? ORDER BY ${placeholders(orderAliases.length)}) AS ??`, [
        OWNER,
        ...orderAliases,
        POSITION,
      ]),
    )
    .from(visible.as('links'))
    .where(COPY, 1);
  const shown = knex
    .select([OWNER, ...Object.keys(columns.select)])
    .from(firsts.as('firsts'))
    .orderBy([OWNER, POSITION]);
  if (cap !== null) shown.where(POSITION, '<=', cap);
  return shown;
};

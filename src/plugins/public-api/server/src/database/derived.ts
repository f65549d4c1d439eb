/**
 * MySQL and MariaDB refuse a LIMIT inside an IN subquery (ER_NOT_SUPPORTED_YET), and a subquery of the
 * very table an UPDATE or DELETE changes (ER_UPDATE_TABLE_USED). Both accept the same subquery wrapped in
 * a derived table, which the server materializes first. SQLite and PostgreSQL take the subquery as it is
 * (and plan it better so).
 */
import type { Knex } from 'knex';
import type { DatabaseClient } from './connection';

/** `subquery` as the operand of `whereIn(column, ...)` of a statement on its own table, on every database. */
export const inSubquery = (knex: Knex, client: DatabaseClient, subquery: Knex.QueryBuilder, column: string): Knex.QueryBuilder =>
  client === 'mysql' ? knex.select(column).from(subquery.as('picked')) : subquery;

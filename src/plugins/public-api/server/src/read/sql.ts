/**
 * Renders the read path's data (keyset conditions, filters, order) as knex clauses. One rendering for
 * SQLite, PostgreSQL and MariaDB: null ordering and case-insensitive matching are written out explicitly
 * rather than left to dialect defaults, and exact text matching too on MariaDB (`exactText`).
 */
import type { Knex } from 'knex';
import type { DatabaseClient } from '../database/connection';
import type { Condition, OrderTerm } from '../query/keyset';
import type { FilterCondition, FilterValue, ScalarValue } from '../query/types';
import { bindValue, type SortValueKind } from '../fields/sort-kinds';
import { isRelationFilter } from '../fields/filter-kinds';

/** A sortable or filterable key as SQL sees it. */
export type SqlKey = { column: string; kind: SortValueKind; nullable: boolean };
export type SqlKeys = (key: string) => SqlKey;

const SQL_OPERATORS = { eq: '=', lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

export const applyCondition = (builder: Knex.QueryBuilder, condition: Condition, keys: SqlKeys): void => {
  switch (condition.type) {
    case 'constant':
      if (!condition.value) builder.whereRaw('1 = 0');
      return;
    case 'cmp': {
      const key = keys(condition.key);
      builder.where(key.column, SQL_OPERATORS[condition.op], bindValue(key.kind, condition.value) as Knex.Value);
      return;
    }
    case 'isNull':
      builder.whereNull(keys(condition.key).column);
      return;
    case 'notNull':
      builder.whereNotNull(keys(condition.key).column);
      return;
    case 'and':
      builder.where((inner) => {
        for (const part of condition.conditions) applyCondition(inner, part, keys);
      });
      return;
    case 'or':
      builder.where((inner) => {
        for (const part of condition.conditions) inner.orWhere((branch) => applyCondition(branch, part, keys));
      });
  }
};

/**
 * Restricts a query to the rows whose key is null (or is not), written as the very expression the order
 * indexes lead with, `(col IS NULL)`, so that the planner treats it as an equality on that index column
 * and serves the rest of the order from the index. Each database needs its own spelling: SQLite matches
 * `(col IS NULL) = 0` to the indexed expression, while PostgreSQL rewrites that into `col IS NOT NULL`
 * (which no longer matches) and keeps `(col IS NULL) IS FALSE`.
 */
export const applyNullness = (builder: Knex.QueryBuilder, column: string, isNull: boolean, client: DatabaseClient): void => {
  if (client === 'postgres') builder.whereRaw(`(?? IS NULL) IS ${isNull ? 'TRUE' : 'FALSE'}`, [column]);
  else builder.whereRaw(`(?? IS NULL) = ${isNull ? 1 : 0}`, [column]);
};

/** `(col IS NULL)` first puts nulls last ascending and first descending, on every database. */
export const applyOrder = (builder: Knex.QueryBuilder, order: readonly OrderTerm[], keys: SqlKeys): void => {
  for (const term of order) {
    const key = keys(term.key);
    if (key.nullable) builder.orderByRaw(`(?? IS NULL) ${term.nullsFirst ? 'DESC' : 'ASC'}`, [key.column]);
    builder.orderBy(key.column, term.direction);
  }
};

/**
 * LIKE patterns escape with `!`, not a backslash: MySQL and MariaDB read a backslash inside a string
 * literal as an escape of its own (`ESCAPE '\\'` would not even parse there), and `!` means nothing
 * special in any of the three databases' literals.
 */
export const LIKE_ESCAPE = `ESCAPE '!'`;
export const escapeLike = (text: string) => text.replace(/[!%_]/g, (char) => `!${char}`);

const bind = (key: SqlKey, value: FilterValue): Knex.Value => bindValue(key.kind, value as ScalarValue) as Knex.Value;

/** How a relation filter finds its owners: the ids of rows whose relation points at matching targets. */
export type RelationFilter = (field: string, targetRefs: string[] | null) => Knex.QueryBuilder;

/**
 * MySQL and MariaDB compare text by the column's collation, whose defaults (utf8mb4_general_ci and the
 * like) ignore case: `filter[title][$eq]=paris` would also match "Paris", which neither SQLite nor
 * PostgreSQL does. A text `$eq`, `$ne` or `$in` is therefore also compared as bytes there. The plain
 * comparison stays beside it for the indexes; order (`sort` and keyset paging) keeps the collation's,
 * which pages consistently and is documented as the difference (docs/api.md).
 */
const exactText = (builder: Knex.QueryBuilder, column: string, values: readonly Knex.Value[]): void => {
  builder.whereRaw(`CAST(?? AS BINARY) IN (${values.map(() => 'CAST(? AS BINARY)').join(', ')})`, [column, ...values]);
};

export const applyFilter = (
  builder: Knex.QueryBuilder,
  condition: FilterCondition,
  keys: SqlKeys,
  ownerIdColumn: string,
  relationOwners: RelationFilter,
  client: DatabaseClient = 'sqlite',
): void => {
  if (isRelationFilter(condition)) {
    const owners = (refs: string[] | null) => relationOwners(condition.field, refs);
    switch (condition.op) {
      case 'eq':
        builder.whereIn(ownerIdColumn, owners([String(condition.value)]));
        return;
      case 'in':
        builder.whereIn(ownerIdColumn, owners(condition.value.map(String)));
        return;
      case 'ne':
        builder.whereNotIn(ownerIdColumn, owners([String(condition.value)]));
        return;
      case 'null':
        if (condition.value) builder.whereNotIn(ownerIdColumn, owners(null));
        else builder.whereIn(ownerIdColumn, owners(null));
        return;
      default:
        throw new Error(`Operator ${condition.op} does not apply to relations.`);
    }
  }
  const key = keys(condition.field);
  const bytes = client === 'mysql' && key.kind === 'text';
  switch (condition.op) {
    case 'null':
      if (condition.value) builder.whereNull(key.column);
      else builder.whereNotNull(key.column);
      return;
    case 'in':
      builder.whereIn(
        key.column,
        condition.value.map((value) => bind(key, value)),
      );
      if (bytes && condition.value.length > 0)
        exactText(
          builder,
          key.column,
          condition.value.map((value) => bind(key, value)),
        );
      return;
    case 'ne':
      // "Not equal" includes rows where the field is empty, as a person reading the filter expects.
      if (bytes)
        builder.where((inner) =>
          inner.whereRaw('CAST(?? AS BINARY) <> CAST(? AS BINARY)', [key.column, bind(key, condition.value)]).orWhereNull(key.column),
        );
      else builder.where((inner) => inner.whereNot(key.column, bind(key, condition.value)).orWhereNull(key.column));
      return;
    case 'contains':
      builder.whereRaw(`LOWER(??) LIKE ? ${LIKE_ESCAPE}`, [key.column, `%${escapeLike(String(condition.value).toLowerCase())}%`]);
      return;
    case 'startsWith':
      builder.whereRaw(`LOWER(??) LIKE ? ${LIKE_ESCAPE}`, [key.column, `${escapeLike(String(condition.value).toLowerCase())}%`]);
      return;
    default:
      builder.where(key.column, SQL_OPERATORS[condition.op], bind(key, condition.value));
      if (bytes && condition.op === 'eq') exactText(builder, key.column, [bind(key, condition.value)]);
  }
};

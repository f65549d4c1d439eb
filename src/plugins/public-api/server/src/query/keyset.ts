/**
 * Keyset pagination as data: the ORDER BY and the "rows after this one" condition, from one sort, so the
 * SQL side renders both and cannot make them disagree. Nulls come last ascending and first descending
 * on every database (contract section 5); the SQL side orders by `(col IS NULL)` explicitly.
 *
 * Shape of the condition, for a total order t1..tn (the last term unique and never null) and the
 * previous page's last row v1..vn:
 *
 *   atOrAfter(t1, v1) AND (after(t1, v1) OR (t1 = v1 AND (after(t2, v2) OR (t2 = v2 AND ...))))
 *
 * The nested form is the lexicographic comparison written with one node per term (the flat
 * OR-of-ANDs grows quadratically). The leading `atOrAfter` is implied by the rest; it is there so that
 * a planner can serve the first key with one index range instead of scanning and filtering:
 * `t1 >= v1` ascending, `t1 <= v1` descending (plus `OR t1 IS NULL` ascending when t1 may be null;
 * nulls sort last there). Where it would restrict nothing (descending from a null) it is left out.
 * Null tests are left out for terms declared not nullable, such as the id tiebreaker.
 */
import type { ScalarValue, SortDirection, SortTerm } from './types';

/** A sort term of a total order. `nullable: false` promises the column never holds null. */
export type KeysetTerm = SortTerm & { nullable?: boolean };

/** One ORDER BY item: the SQL side renders `(key IS NULL) <ASC|DESC>, key <direction>`. */
export type OrderTerm = { key: string; direction: SortDirection; nullsFirst: boolean };

/** A comparable value: never null in a comparison, nulls are `isNull`/`notNull`. */
export type KeyValue = Exclude<ScalarValue, null>;

export type ComparisonOperator = 'eq' | 'lt' | 'lte' | 'gt' | 'gte';

export type Condition =
  | { type: 'and'; conditions: Condition[] }
  | { type: 'or'; conditions: Condition[] }
  | { type: 'cmp'; key: string; op: ComparisonOperator; value: KeyValue }
  | { type: 'isNull'; key: string }
  | { type: 'notNull'; key: string }
  /** Only ever the whole condition: every row (true) or none (false). */
  | { type: 'constant'; value: boolean };

export const TIEBREAKER: KeysetTerm = { key: 'id', direction: 'asc', nullable: false };

/** Makes a sort total by appending the unique, never-null `id`. */
export const totalSort = (sort: readonly KeysetTerm[], tiebreaker: KeysetTerm = TIEBREAKER): KeysetTerm[] => [...sort, tiebreaker];

/** Nulls last ascending, first descending: a null is the largest value of its key. */
export const orderBy = (sort: readonly SortTerm[]): OrderTerm[] =>
  sort.map(({ key, direction }) => ({ key, direction, nullsFirst: direction === 'desc' }));

// ---------------------------------------------------------------------------------------------------------
// Building conditions
// ---------------------------------------------------------------------------------------------------------

const TRUE: Condition = { type: 'constant', value: true };
const FALSE: Condition = { type: 'constant', value: false };

const isConstant = (condition: Condition, value: boolean) => condition.type === 'constant' && condition.value === value;

/** Parts without repeats (`t IS NULL AND t IS NULL` after a null position), in first-seen order. */
const distinct = (parts: Condition[]): Condition[] => {
  const seen = new Set<string>();
  return parts.filter((part) => {
    const key = JSON.stringify(part);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

/** AND that folds constants, flattens nested ANDs and drops repeats. */
const and = (...parts: Condition[]): Condition => {
  if (parts.some((part) => isConstant(part, false))) return FALSE;
  const kept = distinct(
    parts.filter((part) => !isConstant(part, true)).flatMap((part) => (part.type === 'and' ? part.conditions : [part])),
  );
  return kept.length === 0 ? TRUE : kept.length === 1 ? kept[0]! : { type: 'and', conditions: kept };
};

/** OR that folds constants, flattens nested ORs and drops repeats. */
const or = (...parts: Condition[]): Condition => {
  if (parts.some((part) => isConstant(part, true))) return TRUE;
  const kept = distinct(
    parts.filter((part) => !isConstant(part, false)).flatMap((part) => (part.type === 'or' ? part.conditions : [part])),
  );
  return kept.length === 0 ? FALSE : kept.length === 1 ? kept[0]! : { type: 'or', conditions: kept };
};

const mayBeNull = (term: KeysetTerm, value: ScalarValue) => term.nullable !== false || value === null;

/** Rows whose key equals the value (null equals null here, as in the order). */
const sameAs = (term: KeysetTerm, value: ScalarValue): Condition =>
  value === null ? { type: 'isNull', key: term.key } : { type: 'cmp', key: term.key, op: 'eq', value };

/** Rows whose key comes strictly after the value in this term's order. */
const strictlyAfter = (term: KeysetTerm, value: ScalarValue): Condition => {
  if (term.direction === 'asc') {
    if (value === null) return FALSE; // nulls are last
    const greater: Condition = { type: 'cmp', key: term.key, op: 'gt', value };
    return mayBeNull(term, value) ? or(greater, { type: 'isNull', key: term.key }) : greater;
  }
  if (value === null) return { type: 'notNull', key: term.key }; // nulls are first, everything follows
  return { type: 'cmp', key: term.key, op: 'lt', value };
};

/** Rows whose key is the value or after it: the index-friendly range on the leading key. */
const atOrAfter = (term: KeysetTerm, value: ScalarValue): Condition => {
  if (term.direction === 'asc') {
    if (value === null) return { type: 'isNull', key: term.key };
    const range: Condition = { type: 'cmp', key: term.key, op: 'gte', value };
    return mayBeNull(term, value) ? or(range, { type: 'isNull', key: term.key }) : range;
  }
  if (value === null) return TRUE;
  return { type: 'cmp', key: term.key, op: 'lte', value };
};

/**
 * The rows that come after `last` in the order of `sort` (a total order: see totalSort), one value per
 * term. Throws on a length mismatch, which is a programming error (cursor.ts checks what clients send).
 */
export const keysetAfter = (sort: readonly KeysetTerm[], last: readonly ScalarValue[]): Condition => {
  if (sort.length === 0 || sort.length !== last.length) {
    throw new RangeError(`A keyset position needs one value per sort term (${sort.length}), got ${last.length}.`);
  }
  // Built from the last term outwards: after(i) = after(ti) OR (ti = vi AND after(i + 1)).
  let rest: Condition = FALSE;
  for (let index = sort.length - 1; index >= 0; index -= 1) {
    const term = sort[index]!;
    const value = last[index]!;
    rest = index === sort.length - 1 ? strictlyAfter(term, value) : or(strictlyAfter(term, value), and(sameAs(term, value), rest));
  }
  if (sort.length === 1) return rest;
  return and(atOrAfter(sort[0]!, last[0]!), rest);
};

/** The rows after a cursor's position, for a query's sort (the tiebreaker is appended here). */
export const keysetAfterPosition = (
  sort: readonly SortTerm[],
  position: { values: readonly ScalarValue[]; id: string | number },
): Condition => keysetAfter(totalSort(sort), [...position.values, position.id]);

// ---------------------------------------------------------------------------------------------------------
// In memory: the reference semantics the SQL rendering must agree with
// ---------------------------------------------------------------------------------------------------------

export type Row = Readonly<Record<string, ScalarValue | undefined>>;

const TYPE_RANK = { boolean: 0, number: 1, string: 2 } as const;

/**
 * Compares two non-null values of one key: numbers numerically, strings by UTF-16 code units (a database
 * uses its collation, consistently in ORDER BY and WHERE, which is all keyset paging needs), false < true.
 */
export const compareValues = (a: KeyValue, b: KeyValue): number => {
  const typeA = typeof a as keyof typeof TYPE_RANK;
  const typeB = typeof b as keyof typeof TYPE_RANK;
  if (typeA !== typeB) return TYPE_RANK[typeA] - TYPE_RANK[typeB];
  return a < b ? -1 : a > b ? 1 : 0;
};

const valueOf = (row: Row, key: string): ScalarValue => row[key] ?? null;

/** The order of `orderBy(sort)`: nulls after every value ascending, before every value descending. */
export const compareRows =
  (sort: readonly SortTerm[]) =>
  (a: Row, b: Row): number => {
    for (const { key, direction } of sort) {
      const left = valueOf(a, key);
      const right = valueOf(b, key);
      if (left === right) continue;
      // Ascending, null is largest; descending reverses everything, so null comes first.
      const ascending = left === null ? 1 : right === null ? -1 : compareValues(left, right);
      if (ascending !== 0) return direction === 'asc' ? ascending : -ascending;
    }
    return 0;
  };

/** Whether a row satisfies a condition, with SQL's meaning for comparisons (a null never compares). */
export const evaluate = (condition: Condition, row: Row): boolean => {
  switch (condition.type) {
    case 'and':
      return condition.conditions.every((part) => evaluate(part, row));
    case 'or':
      return condition.conditions.some((part) => evaluate(part, row));
    case 'isNull':
      return valueOf(row, condition.key) === null;
    case 'notNull':
      return valueOf(row, condition.key) !== null;
    case 'constant':
      return condition.value;
    case 'cmp': {
      const value = valueOf(row, condition.key);
      if (value === null) return false;
      const order = compareValues(value, condition.value);
      switch (condition.op) {
        case 'eq':
          return order === 0;
        case 'lt':
          return order < 0;
        case 'lte':
          return order <= 0;
        case 'gt':
          return order > 0;
        case 'gte':
          return order >= 0;
      }
    }
  }
};

/** The sort values of a row, in sort order: what a cursor carries. */
export const positionOf = (sort: readonly SortTerm[], row: Row): ScalarValue[] => sort.map((term) => valueOf(row, term.key));

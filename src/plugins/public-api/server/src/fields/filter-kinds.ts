/**
 * Filter kinds: for each way a filter value is typed, the operators that apply, how a value from the
 * query string is read, and its schema in the OpenAPI document. Field types and system keys name their
 * kind through a FilterTarget (./table.ts, ./system-keys.ts). Pure.
 */
import type { Schema } from '../openapi/types';
import type { FilterOperator, FilterTarget, FilterType, FilterValue } from '../query/types';
import { DATE_RANGE, parseDate, parseDateTime } from '../values/calendar';
import { describeColumn, fitsColumn, numberColumnOf } from '../values/numbers';

/** A query-string value read as a filter value, or what was expected instead (for the 400's detail). */
export type TypedFilterValue = { ok: true; value: FilterValue } | { ok: false; expected: string };

export type FilterKind = {
  operators: ReadonlySet<FilterOperator>;
  parse: (text: string, target: FilterTarget) => TypedFilterValue;
  /** The schema of one value in the `filter` parameter. */
  schema: (target: FilterTarget) => Schema;
};

/** Equality, `in` and `null` apply to every kind. */
const EVERY_KIND: readonly FilterOperator[] = ['eq', 'ne', 'in', 'null'];
/** Range operators only where the order means the same on every database (numbers and time). */
const ORDERED = new Set<FilterOperator>([...EVERY_KIND, 'lt', 'lte', 'gt', 'gte']);
/** Substring operators only on free text. */
const TEXT = new Set<FilterOperator>([...EVERY_KIND, 'contains', 'startsWith']);
const EQUALITY = new Set<FilterOperator>(EVERY_KIND);

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * An instant as Unix milliseconds: a date-time with `Z` or an offset, or a bare `YYYY-MM-DD`, read as
 * midnight UTC. Years 0001 to 9999 only (values/calendar.ts): what both databases store and compare.
 */
export const parseInstant = (text: string): number | null =>
  parseDate(text) !== null ? Date.parse(`${text}T00:00:00Z`) : parseDateTime(text);

const text: FilterKind = {
  operators: TEXT,
  parse: (value) => ({ ok: true, value }),
  schema: () => ({ type: 'string' }),
};

const relation: FilterKind = {
  operators: EQUALITY,
  parse: (value) => (value.length > 0 ? { ok: true, value } : { ok: false, expected: 'a record id or slug' }),
  schema: () => ({ type: 'string', minLength: 1, description: 'The id or slug of a related record.' }),
};

/** Whether a filter compares references to related records (`relation` and `relations` fields). */
export const isRelationFilter = (target: { type: FilterType }): boolean => FILTER_KINDS[target.type] === relation;

export const FILTER_KINDS: Record<FilterType, FilterKind> = {
  string: text,
  text,
  number: {
    operators: ORDERED,
    parse: (text, target) => {
      // Within what the column holds: PostgreSQL refuses to compare an INTEGER with 1.5 or 2^31.
      const column = target.column ?? numberColumnOf('float');
      const value = Number(text);
      return NUMBER.test(text) && fitsColumn(column, value)
        ? { ok: true, value: value === 0 ? 0 : value }
        : { ok: false, expected: describeColumn(column) };
    },
    schema: () => ({ type: 'number' }),
  },
  boolean: {
    operators: EQUALITY,
    parse: (text) =>
      text === 'true' || text === 'false' ? { ok: true, value: text === 'true' } : { ok: false, expected: "'true' or 'false'" },
    schema: () => ({ type: 'boolean' }),
  },
  date: {
    operators: ORDERED,
    parse: (text) => {
      const value = parseDate(text);
      return value !== null ? { ok: true, value } : { ok: false, expected: `a date YYYY-MM-DD ${DATE_RANGE}` };
    },
    schema: () => ({ type: 'string', format: 'date' }),
  },
  datetime: {
    operators: ORDERED,
    parse: (text) => {
      const value = parseInstant(text);
      return value !== null
        ? { ok: true, value }
        : { ok: false, expected: `an ISO 8601 date-time with Z or an offset, or a date YYYY-MM-DD, ${DATE_RANGE}` };
    },
    // One format, not `anyOf` two: generators (openapi-typescript) type an `anyOf` of formats as
    // `unknown`. A bare date is accepted too, and said so.
    schema: () => ({
      type: 'string',
      format: 'date-time',
      description: 'An RFC 3339 date-time with Z or an offset; a date (YYYY-MM-DD) is also accepted and means midnight UTC.',
    }),
  },
  select: {
    operators: EQUALITY,
    parse: (text, target) => {
      const options = target.options ?? [];
      return options.includes(text)
        ? { ok: true, value: text }
        : { ok: false, expected: `one of ${options.map((option) => `'${option}'`).join(', ') || 'no option'}` };
    },
    schema: (target) => ({ type: 'string', enum: [...(target.options ?? [])] }),
  },
  relation,
  relations: relation,
};

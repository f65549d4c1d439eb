/**
 * `filter[field]=value` and `filter[field][op]=value` -> typed conditions (contract section 6). Pure.
 */
import type { Field } from '../registry/types';
import { DATE_RANGE, parseDate, parseDateTime } from '../values/calendar';
import { describeColumn, fitsColumn, numberColumnOf } from '../values/numbers';
import { echo, parameterError } from './problems';
import {
  FILTER_OPERATORS,
  type FilterCondition,
  type FilterOperator,
  type FilterTarget,
  type FilterType,
  type FilterValue,
} from './types';

export const MAX_FILTERS = 10;
export const MAX_FILTER_VALUE_LENGTH = 1000;
export const MAX_IN_VALUES = 100;

/** System values every resource can be filtered by, with how their values are typed. */
export const SYSTEM_FILTER_TARGETS: ReadonlyMap<string, FilterTarget> = new Map<string, FilterTarget>([
  ['slug', { type: 'string' }],
  ['createdAt', { type: 'datetime' }],
  ['updatedAt', { type: 'datetime' }],
  ['publishedAt', { type: 'datetime' }],
]);

/** How a readable field is filtered, or null when its type cannot be (markdown, richtext, media, tags). */
export const filterTargetOf = (field: Pick<Field, 'type' | 'options' | 'attribute'>): FilterTarget | null => {
  switch (field.type) {
    case 'select':
      return { type: 'select', options: (field.options ?? []).map((option) => option.value) };
    case 'number':
      return { type: 'number', column: numberColumnOf(field.attribute.type) };
    case 'string':
    case 'text':
    case 'boolean':
    case 'date':
    case 'datetime':
    case 'relation':
    case 'relations':
      return { type: field.type };
    default:
      return null;
  }
};

const ORDERED_TYPES: ReadonlySet<FilterType> = new Set(['number', 'date', 'datetime']);
const TEXT_TYPES: ReadonlySet<FilterType> = new Set(['string', 'text']);

/**
 * Range operators only where the order means the same on every database (numbers and time);
 * substring operators only on free text. Equality, `in` and `null` apply to every type.
 */
export const operatorApplies = (op: FilterOperator, type: FilterType): boolean => {
  switch (op) {
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      return ORDERED_TYPES.has(type);
    case 'contains':
    case 'startsWith':
      return TEXT_TYPES.has(type);
    default:
      return true;
  }
};

/** Whether a parameter name belongs to the filter syntax (and so is judged here, not as unknown). */
export const isFilterParameter = (name: string): boolean => name === 'filter' || name.startsWith('filter[');

const FILTER_NAME = /^filter\[([^[\]]+)\](?:\[([^[\]]+)\])?$/;

const isOperator = (text: string): text is FilterOperator => (FILTER_OPERATORS as readonly string[]).includes(text);

// ---------------------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------------------

type Typed = { ok: true; value: FilterValue } | { ok: false; expected: string };

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * An instant as Unix milliseconds: a date-time with `Z` or an offset, or a bare `YYYY-MM-DD`, read as
 * midnight UTC. Years 0001 to 9999 only (values/calendar.ts): what both databases store and compare.
 */
export const parseInstant = (text: string): number | null =>
  parseDate(text) !== null ? Date.parse(`${text}T00:00:00Z`) : parseDateTime(text);

const typedValue = (target: FilterTarget, text: string): Typed => {
  switch (target.type) {
    case 'number': {
      // Within what the column holds: PostgreSQL refuses to compare an INTEGER with 1.5 or 2^31.
      const column = target.column ?? numberColumnOf('float');
      const value = Number(text);
      return NUMBER.test(text) && fitsColumn(column, value)
        ? { ok: true, value: value === 0 ? 0 : value }
        : { ok: false, expected: describeColumn(column) };
    }
    case 'boolean':
      return text === 'true' || text === 'false'
        ? { ok: true, value: text === 'true' }
        : { ok: false, expected: "'true' or 'false'" };
    case 'date': {
      const value = parseDate(text);
      return value !== null ? { ok: true, value } : { ok: false, expected: `a date YYYY-MM-DD ${DATE_RANGE}` };
    }
    case 'datetime': {
      const value = parseInstant(text);
      return value !== null
        ? { ok: true, value }
        : { ok: false, expected: `an ISO 8601 date-time with Z or an offset, or a date YYYY-MM-DD, ${DATE_RANGE}` };
    }
    case 'select': {
      const options = target.options ?? [];
      return options.includes(text)
        ? { ok: true, value: text }
        : { ok: false, expected: `one of ${options.map((option) => `'${option}'`).join(', ') || 'no option'}` };
    }
    case 'relation':
    case 'relations':
      return text.length > 0 ? { ok: true, value: text } : { ok: false, expected: 'a record id or slug' };
    case 'string':
    case 'text':
      return { ok: true, value: text };
  }
};

// ---------------------------------------------------------------------------------------------------------
// One parameter
// ---------------------------------------------------------------------------------------------------------

/**
 * One filter parameter -> one condition, or a 400 naming the parameter. Field names are echoed only as
 * sent, and an unknown field and an unreadable one get the same answer.
 */
export const parseFilter = (
  parameter: string,
  text: string,
  filterable: ReadonlyMap<string, FilterTarget>
): FilterCondition => {
  const fail = (detail: string, reason: Parameters<typeof parameterError>[2]) =>
    parameterError(parameter, detail, reason);

  const match = FILTER_NAME.exec(parameter);
  if (!match) {
    throw fail(
      `${echo(parameter)} is not a filter; write filter[field]=value or filter[field][operator]=value.`,
      'filter_invalid'
    );
  }
  const field = match[1]!;
  const target = filterable.get(field);
  if (!target) throw fail(`${echo(field)} is not a filterable field.`, 'filter_field_invalid');

  const op = match[2] ?? 'eq';
  if (!isOperator(op)) {
    throw fail(`${echo(op)} is not a filter operator; use one of ${FILTER_OPERATORS.join(', ')}.`, 'filter_operator_invalid');
  }
  if (!operatorApplies(op, target.type)) {
    throw fail(`The operator '${op}' does not apply to ${echo(field)}, a ${target.type} field.`, 'filter_operator_invalid');
  }
  if (text.length > MAX_FILTER_VALUE_LENGTH) {
    throw fail(`A filter value is at most ${MAX_FILTER_VALUE_LENGTH} characters.`, 'filter_value_too_long');
  }

  const base = { parameter, field, type: target.type };
  const invalid = (expected: string) => fail(`The value of ${echo(parameter)} must be ${expected}.`, 'filter_value_invalid');
  const typed = (part: string): FilterValue => {
    const result = typedValue(target, part);
    if (!result.ok) throw invalid(result.expected);
    return result.value;
  };

  switch (op) {
    case 'null':
      if (text !== 'true' && text !== 'false') throw invalid("'true' or 'false'");
      return { ...base, op, value: text === 'true' };
    case 'in': {
      // Commas cannot be escaped, so an empty item is always a mistake (a stray or trailing comma).
      const parts = text.split(',');
      if (parts.some((part) => part === '')) throw invalid('a comma-separated list of non-empty values');
      if (parts.length > MAX_IN_VALUES) throw invalid(`a list of at most ${MAX_IN_VALUES} values`);
      return { ...base, op, value: parts.map(typed) };
    }
    case 'contains':
    case 'startsWith':
      if (text === '') throw invalid('at least one character');
      return { ...base, op, value: typed(text) };
    default:
      return { ...base, op, value: typed(text) };
  }
};

/** `filter[a]=x` and `filter[a][eq]=x` are the same condition. */
export const conditionKey = (condition: Pick<FilterCondition, 'field' | 'op'>): string =>
  JSON.stringify([condition.field, condition.op]);

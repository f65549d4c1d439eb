/**
 * `filter[field]=value` and `filter[field][op]=value` -> typed conditions (contract section 6). Pure.
 */
import type { Field } from '../registry/types';
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
export const filterTargetOf = (field: Pick<Field, 'type' | 'options'>): FilterTarget | null => {
  switch (field.type) {
    case 'select':
      return { type: 'select', options: (field.options ?? []).map((option) => option.value) };
    case 'string':
    case 'text':
    case 'number':
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
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):(\d{2}))$/;

const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysInMonth = (year: number, month: number) =>
  month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;

const isCalendarDate = (year: number, month: number, day: number) =>
  month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);

/** `YYYY-MM-DD` of a real calendar day. */
export const parseDate = (text: string): string | null => {
  const match = DATE.exec(text);
  if (!match) return null;
  return isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3])) ? text : null;
};

/**
 * An instant as Unix milliseconds: RFC 3339 date-time with `Z` or an offset (a time without one names
 * no instant), or a bare `YYYY-MM-DD`, read as midnight UTC. Fractions beyond milliseconds are cut.
 */
export const parseInstant = (text: string): number | null => {
  if (parseDate(text) !== null) return Date.parse(`${text}T00:00:00Z`);
  const match = DATETIME.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second = '0', fraction = '', zone, offsetHours, offsetMinutes] = match;
  if (!isCalendarDate(Number(year), Number(month), Number(day))) return null;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  if (zone !== 'Z' && (Number(offsetHours) > 23 || Number(offsetMinutes) > 59)) return null;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  // Set fields one by one: Date.UTC would read years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second), millis);
  const offset = zone === 'Z' ? 0 : (zone!.startsWith('-') ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  return date.getTime() - offset * 60_000;
};

const typedValue = (target: FilterTarget, text: string): Typed => {
  switch (target.type) {
    case 'number': {
      const value = Number(text);
      return NUMBER.test(text) && Number.isFinite(value)
        ? { ok: true, value: value === 0 ? 0 : value }
        : { ok: false, expected: 'a finite decimal number' };
    }
    case 'boolean':
      return text === 'true' || text === 'false'
        ? { ok: true, value: text === 'true' }
        : { ok: false, expected: "'true' or 'false'" };
    case 'date': {
      const value = parseDate(text);
      return value !== null ? { ok: true, value } : { ok: false, expected: 'a date YYYY-MM-DD' };
    }
    case 'datetime': {
      const value = parseInstant(text);
      return value !== null
        ? { ok: true, value }
        : { ok: false, expected: 'an ISO 8601 date-time with Z or an offset, or a date YYYY-MM-DD' };
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

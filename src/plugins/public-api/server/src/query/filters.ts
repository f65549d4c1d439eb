/**
 * `filter[field]=value` and `filter[field][op]=value` -> typed conditions (contract section 6). Pure.
 * Which keys filter, which operators apply and how values are typed is the field-type layer's
 * (fields/system-keys.ts, fields/table.ts, fields/filter-kinds.ts); this module reads the syntax.
 */
import { FILTER_KINDS } from '../fields/filter-kinds';
import { echo, parameterError } from './problems';
import { FILTER_OPERATORS, type FilterCondition, type FilterOperator, type FilterTarget, type FilterType, type FilterValue } from './types';

export const MAX_FILTERS = 10;
export const MAX_FILTER_VALUE_LENGTH = 1000;
export const MAX_IN_VALUES = 100;

/**
 * Range operators only where the order means the same on every database (numbers and time); substring
 * operators only on free text; equality, `in` and `null` on every type (fields/filter-kinds.ts).
 */
export const operatorApplies = (op: FilterOperator, type: FilterType): boolean => FILTER_KINDS[type].operators.has(op);

/** Whether a parameter name belongs to the filter syntax (and so is judged here, not as unknown). */
export const isFilterParameter = (name: string): boolean => name === 'filter' || name.startsWith('filter[');

const FILTER_NAME = /^filter\[([^[\]]+)\](?:\[([^[\]]+)\])?$/;

const isOperator = (text: string): text is FilterOperator => (FILTER_OPERATORS as readonly string[]).includes(text);

// ---------------------------------------------------------------------------------------------------------
// One parameter
// ---------------------------------------------------------------------------------------------------------

/**
 * One filter parameter -> one condition, or a 400 naming the parameter. Field names are echoed only as
 * sent, and an unknown field and an unreadable one get the same answer.
 */
export const parseFilter = (parameter: string, text: string, filterable: ReadonlyMap<string, FilterTarget>): FilterCondition => {
  const fail = (detail: string, reason: Parameters<typeof parameterError>[2]) => parameterError(parameter, detail, reason);

  const match = FILTER_NAME.exec(parameter);
  if (!match) {
    throw fail(`${echo(parameter)} is not a filter; write filter[field]=value or filter[field][operator]=value.`, 'filter_invalid');
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
    const result = FILTER_KINDS[target.type].parse(part, target);
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
export const conditionKey = (condition: Pick<FilterCondition, 'field' | 'op'>): string => JSON.stringify([condition.field, condition.op]);

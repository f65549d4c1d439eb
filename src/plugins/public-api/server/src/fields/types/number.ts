/**
 * `number`: Strapi's integer, biginteger, float and decimal, each within what its column holds
 * (values/numbers.ts). Pure.
 */
import type { Schema } from '../../openapi/types';
import { toNumber } from '../../values/database';
import { describeColumn, fitsColumn, numberColumnOf } from '../../values/numbers';
import type { ColumnCodec } from '../codec';
import { acceptValue, describe, refuse, violation } from '../judge';

const NUMBER_ATTRIBUTES = new Set(['integer', 'biginteger', 'float', 'decimal']);
const INTEGER_ATTRIBUTES = new Set(['integer', 'biginteger']);

/** DECIMAL(10, 2) columns: eight digits before the point, two after. */
export const DECIMAL_LIMIT = 1e8;
export const DECIMAL_PLACES = 2;

const hasAtMostPlaces = (n: number, places: number): boolean => Number(n.toFixed(places)) === n;

const numeric = (value: number | string | undefined): number | undefined => {
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
};

const jsonType = (strapiType: string) => (INTEGER_ATTRIBUTES.has(strapiType) ? 'integer' : 'number');

export const number: ColumnCodec = {
  type: 'number',
  storage: 'column',
  scalar: true,
  accepts: (attribute) => NUMBER_ATTRIBUTES.has(attribute.type),
  serialize: toNumber,
  readSchema: (field) => ({ schema: { type: jsonType(field.attribute.type) }, nullable: 'unless-required' }),
  parseWrite: (raw, field, { pointer }) => {
    if (raw === null) return acceptValue(null);
    if (typeof raw !== 'number' || !Number.isFinite(raw)) {
      return refuse(violation(pointer, `'${field.key}' takes a number or null, not ${describe(raw)}.`));
    }
    const column = numberColumnOf(field.attribute.type);
    if (!fitsColumn(column, raw)) return refuse(violation(pointer, `'${field.key}' takes ${describeColumn(column)}.`));
    if (field.attribute.type === 'decimal' && (Math.abs(raw) >= DECIMAL_LIMIT || !hasAtMostPlaces(raw, DECIMAL_PLACES))) {
      return refuse(
        violation(
          pointer,
          `'${field.key}' takes a number below ${DECIMAL_LIMIT} in absolute value, with at most ${DECIMAL_PLACES} decimal places.`,
        ),
      );
    }
    return acceptValue(raw);
  },
  writeSchema: (field) => {
    const schema: Schema = { type: jsonType(field.attribute.type) };
    const min = numeric(field.attribute.min);
    const max = numeric(field.attribute.max);
    if (min !== undefined) schema.minimum = min;
    if (max !== undefined) schema.maximum = max;
    return { schema, nullable: 'unless-required' };
  },
  filter: (field) => ({ type: 'number', column: numberColumnOf(field.attribute.type) }),
  sortKind: 'number',
  sortable: () => true,
};

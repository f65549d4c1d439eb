/**
 * `date`: a calendar day, `YYYY-MM-DD`, in the range both databases store (values/calendar.ts). Pure.
 */
import { DATE_RANGE, parseDate } from '../../values/calendar';
import { toDate } from '../../values/database';
import type { ColumnCodec } from '../codec';
import { acceptValue, refuse, violation } from '../judge';

/** `YYYY-MM-DD` that names a real day in the range both databases store. */
export const isDate = (text: string): boolean => parseDate(text) !== null;

export const date: ColumnCodec = {
  type: 'date',
  storage: 'column',
  scalar: true,
  accepts: (attribute) => attribute.type === 'date',
  serialize: toDate,
  readSchema: () => ({ schema: { type: 'string', format: 'date' }, nullable: 'unless-required' }),
  parseWrite: (raw, field, { pointer }) =>
    raw === null || (typeof raw === 'string' && isDate(raw))
      ? acceptValue(raw)
      : refuse(violation(pointer, `'${field.key}' takes a date as YYYY-MM-DD ${DATE_RANGE}, or null.`)),
  writeSchema: () => ({ schema: { type: 'string', format: 'date' }, nullable: 'unless-required' }),
  filter: () => ({ type: 'date' }),
  sortKind: 'text',
  sortable: () => true,
};

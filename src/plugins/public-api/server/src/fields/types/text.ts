/**
 * `text`: long plain text (Strapi's text). Sortable only when short enough for a cursor. Pure.
 */
import { toText } from '../../values/database';
import type { ColumnCodec } from '../codec';
import { parseTextWrite, textReadSchema, textWriteSchema } from './string';

/** Longest text a sort key may hold: its value travels in the cursor, which must fit in a URL. */
export const MAX_SORTABLE_TEXT_LENGTH = 255;

export const text: ColumnCodec = {
  type: 'text',
  storage: 'column',
  scalar: true,
  accepts: (attribute) => attribute.type === 'text',
  serialize: toText,
  readSchema: textReadSchema,
  parseWrite: parseTextWrite,
  writeSchema: textWriteSchema,
  filter: () => ({ type: 'text' }),
  sortKind: 'text',
  sortable: (field) => typeof field.attribute.maxLength === 'number' && field.attribute.maxLength <= MAX_SORTABLE_TEXT_LENGTH,
};

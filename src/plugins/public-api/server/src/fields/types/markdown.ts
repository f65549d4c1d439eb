/**
 * `markdown`: Strapi's (markdown) richtext, sent as the text it is. Neither filtered nor sorted. Pure.
 */
import { toText } from '../../values/database';
import type { ColumnCodec } from '../codec';
import { parseTextWrite, textReadSchema, textWriteSchema } from './string';

export const markdown: ColumnCodec = {
  type: 'markdown',
  storage: 'column',
  scalar: false,
  accepts: (attribute) => attribute.type === 'richtext',
  serialize: toText,
  readSchema: textReadSchema,
  parseWrite: parseTextWrite,
  writeSchema: textWriteSchema,
  filter: () => null,
  sortKind: 'text',
  sortable: () => false,
};

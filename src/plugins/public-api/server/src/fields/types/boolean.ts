/**
 * `boolean`: Strapi's boolean (0/1 on SQLite, a boolean on PostgreSQL). Pure.
 */
import { toBoolean } from '../../values/database';
import type { ColumnCodec } from '../codec';
import { acceptValue, describe, refuse, violation } from '../judge';

export const boolean: ColumnCodec = {
  type: 'boolean',
  storage: 'column',
  scalar: true,
  accepts: (attribute) => attribute.type === 'boolean',
  serialize: toBoolean,
  readSchema: () => ({ schema: { type: 'boolean' }, nullable: 'unless-required' }),
  parseWrite: (raw, field, { pointer }) =>
    raw === null || typeof raw === 'boolean'
      ? acceptValue(raw)
      : refuse(violation(pointer, `'${field.key}' takes true, false or null, not ${describe(raw)}.`)),
  writeSchema: () => ({ schema: { type: 'boolean' }, nullable: 'unless-required' }),
  filter: () => ({ type: 'boolean' }),
  sortKind: 'boolean',
  sortable: () => true,
};

/**
 * `select`: one of a fixed list of options (Strapi's enumeration). Pure.
 */
import type { Field } from '../../registry/types';
import { toText } from '../../values/database';
import type { ColumnCodec } from '../codec';
import { acceptValue, refuse, violation } from '../judge';
import { humanize } from '../labels';

const optionValues = (field: Field): string[] => (field.options ?? []).map((option) => option.value);

export const select: ColumnCodec = {
  type: 'select',
  storage: 'column',
  scalar: true,
  accepts: (attribute) => attribute.type === 'enumeration',
  details: (attribute) => ({ options: (attribute.enum ?? []).map((value) => ({ value, label: humanize(value) })) }),
  serialize: toText,
  readSchema: (field) => ({ schema: { type: 'string', enum: optionValues(field) }, nullable: 'unless-required' }),
  parseWrite: (raw, field, { pointer }) => {
    const options = optionValues(field);
    return raw === null || (typeof raw === 'string' && options.includes(raw))
      ? acceptValue(raw)
      : refuse(violation(pointer, `'${field.key}' takes one of ${options.map((option) => `'${option}'`).join(', ')}, or null.`));
  },
  writeSchema: (field) => ({ schema: { type: 'string', enum: optionValues(field) }, nullable: 'unless-required' }),
  filter: (field) => ({ type: 'select', options: optionValues(field) }),
  sortKind: 'text',
  sortable: () => true,
};

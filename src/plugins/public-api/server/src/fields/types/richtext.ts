/**
 * `richtext`: Strapi's blocks, as the contract's richtext document (serialize/richtext). Reads convert
 * through the converter handed in (it knows the base URL); writes are planned here and converted, images
 * resolved, by the writes service. Pure.
 */
import type { ColumnCodec } from '../codec';
import { accept, describe, isObject, refuse, violation } from '../judge';

export const richtext: ColumnCodec = {
  type: 'richtext',
  storage: 'column',
  scalar: false,
  accepts: (attribute) => attribute.type === 'blocks',
  serialize: (raw, context) => (raw === null || raw === undefined ? null : context.richtext(raw)),
  readSchema: (_field, kit) => ({ schema: kit.richtextDoc(), nullable: 'unless-required' }),
  parseWrite: (raw, field, { pointer }) =>
    raw === null || isObject(raw)
      ? accept({ kind: 'richtext', doc: raw })
      : refuse(
          violation(
            pointer,
            `'${field.key}' takes a richtext document ({ "type": "doc", "content": [...] }) or null, not ${describe(raw)}.`,
          ),
        ),
  writeSchema: (_field, kit) => ({ schema: kit.richtextDocInput(), nullable: 'unless-required' }),
  filter: () => null,
  sortKind: 'text',
  sortable: () => false,
};

/**
 * What documents say beside records: a record's system values (`meta`, from the table of system keys
 * in fields/system-keys.ts) and the field metadata of a resource (grants/projection.ts).
 */
import { META_ENTRIES } from '../fields/system-keys';
import { REFERENCE_LIST_CAP } from '../fields/types/relation';
import { FIELD_TYPES } from '../registry/types';
import type { Components } from './document-components';
import { object } from './schema';
import type { Ref } from './types';

/** `preview`: the key reads drafts, so records may carry `meta.status` (contract section 15). */
export const recordMeta = (c: Components, preview = false): Ref =>
  c.schema('RecordMeta', () =>
    object(
      {
        ...Object.fromEntries(META_ENTRIES.map(([key, entry]) => [key, structuredClone(entry.schema)])),
        ...(preview
          ? {
              // A draft has no publication date of its own: on draft reads publishedAt is null.
              publishedAt: {
                type: ['integer', 'null'],
                description: 'When the record was published (Unix milliseconds); null on draft reads (`status=draft`).',
              },
              status: {
                type: 'string',
                enum: ['draft', 'published'],
                description:
                  'Draft reads (`status=draft`) only: `published` when the record has a published version (the draft may differ from it), `draft` when it was never published or was unpublished. `publishedAt` of a draft is null.',
              },
            }
          : {}),
        locale: {
          type: 'string',
          description:
            'Reads of a localized resource with a list of locales (`locale=de-CH,de,en`) only: the listed locale the record is answered in, the first it exists in.',
        },
        truncated: {
          type: 'array',
          items: { type: 'string' },
          minItems: 1,
          description: `The to-many relation fields whose lists this record shows cut to their first ${REFERENCE_LIST_CAP} references, in the relation's order, and the component fields (components, dynamic zones) holding such a list at any depth; absent when none is cut. The rest are read with a filter on the target resource, where the relation has an inverse; a PATCH changes such a list with { add, remove } (a whole list is refused with 409 relation_list_truncated).`,
        },
      },
      META_ENTRIES.map(([key]) => key),
      { description: 'System values of a record, and the reference lists it shows cut.' },
    ),
  );

/** An archived record's last state: as reads showed it, with no publication date any more. */
export const archivedRecordMeta = (c: Components): Ref =>
  c.schema('ArchivedRecordMeta', () =>
    object(Object.fromEntries(META_ENTRIES.map(([key, entry]) => [key, structuredClone(entry.archived)])), undefined, {
      description: 'System values of an archived record.',
    }),
  );

export const fieldMeta = (c: Components): Ref =>
  c.schema('FieldMeta', () =>
    object(
      {
        key: { type: 'string' },
        label: { type: 'string' },
        type: { type: 'string', enum: [...FIELD_TYPES] },
        required: { type: 'boolean' },
        readable: { type: 'boolean' },
        writable: { type: 'boolean', description: 'Mirrors the write grant of the key.' },
        inlineEditable: { type: 'boolean' },
        sortable: { type: 'boolean', description: 'Whether the field can be used in `sort`.' },
        expandable: { type: 'boolean', description: 'Whether the relation can be expanded with `include`.' },
        filterable: { type: 'boolean', description: 'Whether the field can be used in `filter`.' },
        options: {
          type: 'array',
          description: 'The values of a select field.',
          items: object({ value: { type: 'string' }, label: { type: 'string' } }),
        },
        allowedTypes: { type: 'array', description: 'MIME patterns a media field accepts.', items: { type: 'string' } },
        components: {
          type: 'array',
          description:
            'The components a component field holds, or a dynamic zone may hold: `<category>.<name>`, what a dynamic zone item names as its `type`.',
          items: { type: 'string' },
          minItems: 1,
        },
      },
      ['key', 'label', 'type', 'required', 'readable', 'writable', 'inlineEditable', 'sortable', 'expandable', 'filterable'],
      { description: 'What the key may do with one field.' },
    ),
  );

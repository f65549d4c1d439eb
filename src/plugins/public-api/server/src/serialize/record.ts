/**
 * A database row -> the record object of the specification, cut to the projection. Pure: everything
 * the record shows is handed in, and only readable fields are ever looked at. Each field's value is
 * its type's to read out (fields/table.ts); this module hands each type what it is stored as.
 */
import type { Projection } from '../grants/projection';
import { META_ENTRIES, type MetaKeyName } from '../fields/system-keys';
import { codecOf } from '../fields/table';
import { isCut, shownReferences } from '../fields/types/relation';
import type { Field } from '../registry/types';
import type { Asset } from './assets';
import type { FileRow, RecordRow, Related, TargetRef } from './rows';

export type Reference = { id: string; slug: string | null; collection: string };

/** A record's system values. */
export type SystemMeta = { [K in MetaKeyName]: K extends 'slug' ? string | null : number | null };

export type RecordObject = {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  meta: SystemMeta & {
    /** The to-many relation fields whose lists this record shows cut to REFERENCE_LIST_CAP; absent when none. */
    truncated?: string[];
    /** Draft reads only (contract section 15): whether the document has a published version. */
    status?: 'draft' | 'published';
  };
};

export type RecordParts = {
  references: Related<TargetRef>;
  files: Related<FileRow>;
  asset: (file: FileRow) => Asset;
  /** The stored blocks value (JSON text or parsed) -> the richtext document, or null. */
  richtext: (raw: unknown) => unknown;
  /** Expanded records by relation field and target row id (include); references stay where absent. */
  expanded?: Map<string, Map<number, RecordObject>>;
};

export const recordMeta = (row: RecordRow): SystemMeta =>
  Object.fromEntries(META_ENTRIES.map(([key, entry]) => [key, entry.serialize(row[key])])) as SystemMeta;

/** The linked items of a link field, in order: references (or the records `include` expanded), or assets. */
const linkedItems = (projection: Projection, field: Field, row: RecordRow, parts: RecordParts, one: boolean): unknown[] => {
  const take = <T>(items: T[] | undefined): T[] => (one ? (items ?? []).slice(0, 1) : shownReferences(items ?? []));
  if (codecOf(field).storage === 'media') return take(parts.files.get(field.key)?.get(row.rowId)).map(parts.asset);
  const collection = projection.targets.get(field.key)!.slug;
  const expanded = parts.expanded?.get(field.key);
  return take(parts.references.get(field.key)?.get(row.rowId)).map(
    (ref) => expanded?.get(ref.rowId) ?? ({ id: ref.documentId, slug: ref.slug, collection } satisfies Reference),
  );
};

export const serializeRecord = (projection: Projection, row: RecordRow, parts: RecordParts): RecordObject => {
  const attributes: Record<string, unknown> = {};
  const truncated: string[] = [];
  for (const field of projection.readable) {
    const codec = codecOf(field);
    if (codec.storage === 'relation' && codec.cardinality === 'many' && isCut(parts.references.get(field.key)?.get(row.rowId))) {
      truncated.push(field.key);
    }
    attributes[field.key] =
      codec.storage === 'column'
        ? codec.serialize(row.values[field.key], parts)
        : codec.serialize(linkedItems(projection, field, row, parts, codec.cardinality === 'one'));
  }
  const meta: RecordObject['meta'] = recordMeta(row);
  if (truncated.length) meta.truncated = truncated;
  if (row.status !== undefined) meta.status = row.status;
  return { type: projection.resource.slug, id: row.documentId, attributes, meta };
};

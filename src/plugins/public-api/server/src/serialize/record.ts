/**
 * A database row -> the record object of the specification, cut to the projection. Pure: everything
 * the record shows is handed in, and only readable fields are ever looked at. Each field's value is
 * its type's to read out (fields/table.ts); this module hands each type what it is stored as.
 */
import type { Projection } from '../grants/projection';
import { META_ENTRIES, type MetaKeyName } from '../fields/system-keys';
import type { LinkCodec } from '../fields/codec';
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

/** The meta keys with their serializers, in the order `meta` lists them. */
const META_KEYS = META_ENTRIES.map(([key, entry]) => ({ key, serialize: entry.serialize }));

export const recordMeta = (row: RecordRow): SystemMeta => {
  const meta: Record<string, string | number | null> = {};
  for (const { key, serialize } of META_KEYS) meta[key] = serialize(row[key]);
  return meta as SystemMeta;
};

/** How one field of a record is written, given the row (the read's related items already looked up). */
type FieldStep = (row: RecordRow, attributes: Record<string, unknown>, truncated: string[]) => void;

/** The linked items of a link field: references (or the records `include` expanded), or assets. */
const linkStep = (projection: Projection, field: Field, codec: LinkCodec, parts: RecordParts): FieldStep => {
  const { key } = field;
  const one = codec.cardinality === 'one';
  const take = <T>(items: T[] | undefined): T[] => (one ? (items ?? []).slice(0, 1) : shownReferences(items ?? []));
  if (codec.storage === 'media') {
    const files = parts.files.get(key);
    return (row, attributes) => {
      attributes[key] = codec.serialize(take(files?.get(row.rowId)).map(parts.asset));
    };
  }
  const collection = projection.targets.get(key)!.slug;
  const expanded = parts.expanded?.get(key);
  const references = parts.references.get(key);
  return (row, attributes, truncated) => {
    const items = references?.get(row.rowId);
    if (!one && isCut(items)) truncated.push(key);
    attributes[key] = codec.serialize(
      take(items).map((ref) => expanded?.get(ref.rowId) ?? ({ id: ref.documentId, slug: ref.slug, collection } satisfies Reference)),
    );
  };
};

/**
 * The serializer of a projection's records for one read (issue 16): what each field is (its codec, its
 * target, its related items of this read) is looked up once for all the rows, not once per field of every
 * record; each record is then its fields' steps in the projection's order.
 */
export const recordSerializer = (projection: Projection, parts: RecordParts): ((row: RecordRow) => RecordObject) => {
  const steps: FieldStep[] = projection.readable.map((field) => {
    const codec = codecOf(field);
    if (codec.storage !== 'column') return linkStep(projection, field, codec, parts);
    const { key } = field;
    return (row, attributes) => {
      attributes[key] = codec.serialize(row.values[key], parts);
    };
  });
  const type = projection.resource.slug;
  return (row) => {
    const attributes: Record<string, unknown> = {};
    const truncated: string[] = [];
    for (const step of steps) step(row, attributes, truncated);
    const meta: RecordObject['meta'] = recordMeta(row);
    if (truncated.length) meta.truncated = truncated;
    return { type, id: row.documentId, attributes, meta };
  };
};

export const serializeRecord = (projection: Projection, row: RecordRow, parts: RecordParts): RecordObject =>
  recordSerializer(projection, parts)(row);

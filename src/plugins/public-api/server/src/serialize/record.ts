/**
 * A database row -> the record object of the specification, cut to the projection. Pure: everything
 * the record shows is handed in, and only readable fields are ever looked at. Each field's value is
 * its type's to read out (fields/table.ts); this module hands each type what it is stored as.
 */
import type { Projection } from '../grants/projection';
import { META_ENTRIES, type MetaKeyName } from '../fields/system-keys';
import type { ColumnReadContext, ComponentCodec, ComponentItem, LinkCodec } from '../fields/codec';
import { codecOf } from '../fields/table';
import { isCut, REFERENCE_LIST_CAP } from '../fields/types/relation';
import type { Field } from '../registry/types';
import type { Asset } from './assets';
import { inputValue, objectId, type RecordTextCache } from './record-texts';
import type { FileRow, RecordRow, Related, TargetRef } from './rows';

export type Reference = { id: string; slug: string | null; collection: string };

/** A record's system values. */
export type SystemMeta = { [K in MetaKeyName]: K extends 'slug' ? string | null : number | null };

export type RecordObject = {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  meta: SystemMeta & {
    /**
     * The to-many relation fields whose lists this record shows cut to REFERENCE_LIST_CAP, and the component
     * fields holding such a list (at any depth); absent when none.
     */
    truncated?: string[];
    /** Draft reads only (contract section 15): whether the document has a published version. */
    status?: 'draft' | 'published';
    locale?: string;
  };
};

export type RecordParts = {
  references: Related<TargetRef>;
  files: Related<FileRow>;
  asset: (file: FileRow) => Asset;
  /** The stored blocks value (JSON text or parsed) of a row -> the richtext document, or null. */
  richtext: (raw: unknown, row: RecordRow) => unknown;
  /** Expanded records by relation field and target row id (include); references stay where absent. */
  expanded?: Map<string, Map<number, RecordObject>>;
  /** The component values of component fields, by field and owner row id, each already read out, in order. */
  components?: Related<ComponentItem>;
  /**
   * Where records are kept by their inputs (serialize/record-texts.ts), and what else their URLs depend on
   * (`partition`: the base URL and the asset key); `skip` names rows whose records show something that is
   * not among their inputs (richtext images), which are made every time.
   */
  kept?: { cache: RecordTextCache; partition: string; skip: (row: RecordRow) => boolean };
};

/** The meta keys with their serializers, in the order `meta` lists them. */
const META_KEYS = META_ENTRIES.map(([key, entry]) => ({ key, serialize: entry.serialize }));

export const recordMeta = (row: RecordRow): SystemMeta => {
  const meta: Record<string, string | number | null> = {};
  for (const { key, serialize } of META_KEYS) meta[key] = serialize(row[key]);
  return meta as SystemMeta;
};

/**
 * How one field of a record is written (`write`: returns the field's key when the record shows its list
 * cut), and what it writes it from (`input` adds it to the list of the record's inputs,
 * serialize/record-texts.ts), or null when what it shows is not all among its inputs.
 */
type FieldStep = {
  write: (row: RecordRow, attributes: Record<string, unknown>) => string | undefined;
  input: ((row: RecordRow, inputs: unknown[]) => void) | null;
};

/** No linked items: one shared list (codecs only read it, and a to-many value is the list itself). */
const NONE: readonly unknown[] = Object.freeze([]);

/**
 * The linked items of a link field: references (or the records `include` expanded), or assets. A to-one
 * field takes the first item alone, without copying the list; a to-many one its first REFERENCE_LIST_CAP.
 */
const linkStep = (projection: Projection, field: Field, codec: LinkCodec, parts: RecordParts): FieldStep => {
  const { key } = field;
  const one = codec.cardinality === 'one';
  const cap = one ? 1 : REFERENCE_LIST_CAP;
  const take = <T, U>(items: T[] | undefined, to: (item: T) => U): readonly U[] => {
    if (!items || items.length === 0) return NONE as readonly U[];
    const shown = new Array<U>(Math.min(items.length, cap));
    for (let index = 0; index < shown.length; index += 1) shown[index] = to(items[index]!);
    return shown;
  };
  if (codec.storage === 'media') {
    const files = parts.files.get(key);
    return {
      write: (row, attributes) => {
        attributes[key] = codec.serialize(take(files?.get(row.rowId), parts.asset));
        return undefined;
      },
      // An asset is its file row's (with the partition's base URL and key): the rows shown, as JSON.
      input: (row, inputs) => {
        const shown = files?.get(row.rowId);
        inputs.push(shown && shown.length > 0 ? inputValue(take(shown, (file) => file)) : 0);
      },
    };
  }
  const collection = projection.targets.get(key)!.slug;
  const expanded = parts.expanded?.get(key);
  const references = parts.references.get(key);
  const reference = (ref: TargetRef) =>
    expanded?.get(ref.rowId) ?? ({ id: ref.documentId, slug: ref.slug, collection } satisfies Reference);
  return {
    write: (row, attributes) => {
      const items = references?.get(row.rowId);
      attributes[key] = codec.serialize(take(items, reference));
      return !one && isCut(items) ? key : undefined;
    },
    // A reference is its target's document id and slug, after how many are shown and whether the list is
    // cut; an expanded record is not an input of this one.
    input:
      expanded && expanded.size > 0
        ? null
        : (row, inputs) => {
            const items = references?.get(row.rowId);
            if (!items || items.length === 0) {
              inputs.push(0);
              return;
            }
            const shown = Math.min(items.length, cap);
            inputs.push(!one && isCut(items) ? -shown : shown);
            for (let index = 0; index < shown; index += 1) inputs.push(items[index]!.documentId, items[index]!.slug);
          },
  };
};

/**
 * A component field: its items as the reads read them out (none when the row has none). A reference list
 * inside one of them cut to the cap names the field in `meta.truncated`, as a list at the top does: the
 * field is what a grant and a write take whole.
 */
const componentStep = (field: Field, codec: ComponentCodec, parts: RecordParts): FieldStep => {
  const { key } = field;
  const items = parts.components?.get(key);
  const own = (row: RecordRow) => items?.get(row.rowId) ?? (NONE as readonly ComponentItem[]);
  return {
    write: (row, attributes) => {
      const values = own(row);
      attributes[key] = codec.serialize(values);
      return values.some((item) => item.truncated) ? key : undefined;
    },
    // The items are already read out (their own records' fields): what the field shows is their JSON.
    input: (row, inputs) => {
      const values = own(row);
      inputs.push(values.length > 0 ? inputValue(values) : 0);
    },
  };
};

/** What a projection's records show whatever their rows: the resource, the fields, the references' collections. */
const signatures = new WeakMap<Projection, string>();

const signatureOf = (projection: Projection): string => {
  let signature = signatures.get(projection);
  if (signature === undefined) {
    const fields = projection.readable.map((field) => `${field.key}=${projection.targets.get(field.key)?.slug ?? ''}`);
    signature = `${objectId(projection.resource)}:${fields.join(',')}`;
    signatures.set(projection, signature);
  }
  return signature;
};

/**
 * The serializer of a projection's records for one read (issue 16): what each field is (its codec, its
 * target, its related items of this read) is looked up once for all the rows, not once per field of every
 * record; each record is then its fields' steps in the projection's order. With `parts.kept`, a record
 * whose inputs were seen before is the record made then (serialize/record-texts.ts).
 */
export const recordSerializer = (projection: Projection, parts: RecordParts): ((row: RecordRow) => RecordObject) => {
  // What column codecs are handed: the richtext documents of the row being written (one context for
  // every row, not a closure per row).
  let current: RecordRow;
  const columns: ColumnReadContext = { richtext: (raw) => parts.richtext(raw, current) };
  const steps: FieldStep[] = projection.readable.map((field) => {
    const codec = codecOf(field);
    if (codec.storage === 'component') return componentStep(field, codec, parts);
    if (codec.storage !== 'column') return linkStep(projection, field, codec, parts);
    const { key } = field;
    return {
      write: (row, attributes) => {
        attributes[key] = codec.serialize(row.values[key], columns);
        return undefined;
      },
      input: (row, inputs) => {
        inputs.push(inputValue(row.values[key]));
      },
    };
  });
  const type = projection.resource.slug;
  const make = (row: RecordRow): RecordObject => {
    current = row;
    const attributes: Record<string, unknown> = {};
    let truncated: string[] | undefined;
    for (const step of steps) {
      const cut = step.write(row, attributes);
      if (cut !== undefined) (truncated ??= []).push(cut);
    }
    const meta: RecordObject['meta'] = recordMeta(row);
    if (truncated) meta.truncated = truncated;
    if (row.status !== undefined) meta.status = row.status;
    if (row.locale !== undefined) meta.locale = row.locale;
    return { type, id: row.documentId, attributes, meta };
  };
  const { kept } = parts;
  if (!kept || steps.some((step) => step.input === null)) return make;
  const partition = kept.cache.partition<RecordObject>(`${kept.partition}\u0001${signatureOf(projection)}`);
  const inputSteps = steps.map((step) => step.input!);
  return (row) => {
    if (kept.skip(row)) return make(row);
    const inputs: unknown[] = [row.documentId, row.status, row.locale];
    for (const { key } of META_KEYS) inputs.push(inputValue(row[key]));
    for (const input of inputSteps) input(row, inputs);
    const found = partition.get(row.rowId, inputs);
    if (found) return found;
    const record = make(row);
    partition.keep(row.rowId, inputs, record);
    return record;
  };
};

export const serializeRecord = (projection: Projection, row: RecordRow, parts: RecordParts): RecordObject =>
  recordSerializer(projection, parts)(row);

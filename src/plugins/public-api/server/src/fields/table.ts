/**
 * The table of field types: every type the registry can give a field, with its codec (./codec.ts). The
 * registry, the serializers, the write planner, the query vocabulary and the OpenAPI builder look a
 * field's behaviour up here; a new type is a new module in ./types and one line below. Pure.
 */
import type { FilterTarget } from '../query/types';
import { FIELD_TYPES, type Field, type FieldType, type StrapiAttribute } from '../registry/types';
import type { FieldCodec, FieldStorage } from './codec';
import type { SortValueKind } from './sort-kinds';
import { systemKeyOf } from './system-keys';
import { boolean } from './types/boolean';
import { component, components, dynamiczone } from './types/component';
import { date } from './types/date';
import { datetime } from './types/datetime';
import { markdown } from './types/markdown';
import { file, files, image, images } from './types/media';
import { number } from './types/number';
import { relation, relations } from './types/relation';
import { richtext } from './types/richtext';
import { select } from './types/select';
import { string } from './types/string';
import { tags } from './types/tags';
import { text } from './types/text';

/** Every field type has an entry (the compiler checks it); each entry's `type` is its key (a unit test checks it). */
export const FIELD_CODECS: { readonly [T in FieldType]: FieldCodec } = {
  string,
  text,
  markdown,
  richtext,
  number,
  boolean,
  date,
  datetime,
  select,
  tags,
  image,
  file,
  images,
  files,
  relation,
  relations,
  component,
  components,
  dynamiczone,
};

export const codecOf = (field: Pick<Field, 'type'>): FieldCodec => FIELD_CODECS[field.type];

/** The type of a Strapi attribute, or null when no type exposes it (passwords, morph relations, ...). */
export const fieldTypeOf = (attribute: StrapiAttribute): FieldType | null =>
  FIELD_TYPES.find((type) => FIELD_CODECS[type].accepts(attribute)) ?? null;

export const isStoredIn = (field: Pick<Field, 'type'>, storage: FieldStorage): boolean => codecOf(field).storage === storage;

/** Whether `sort` may name the field. */
export const isSortableField = (field: Field): boolean => codecOf(field).sortable(field);

/** How `filter[field]` types its values, or null when the field cannot be filtered. */
export const filterTargetOf = (field: Field): FilterTarget | null => codecOf(field).filter(field);

/**
 * How a sort, filter or keyset key compares: a readable field's kind, else a system key's, else text.
 * A field named like a system key is the field.
 */
export const sortKindOf = (key: string, field: Field | undefined): SortValueKind =>
  field ? codecOf(field).sortKind : (systemKeyOf(key)?.sortKind ?? 'text');

const typesStoredIn = (storage: FieldStorage): ReadonlySet<FieldType> =>
  new Set(FIELD_TYPES.filter((type) => FIELD_CODECS[type].storage === storage));

/** Types whose values are links to records of another resource. */
export const RELATION_FIELD_TYPES = typesStoredIn('relation');
/** Types whose values are links to files. */
export const MEDIA_FIELD_TYPES = typesStoredIn('media');
/** Types whose values are component rows (components and dynamic zones). */
export const COMPONENT_FIELD_TYPES = typesStoredIn('component');

/** Whether writes may take the field's values at all (a grant's `write` list cannot make a read-only type writable). */
export const isWritableType = (field: Pick<Field, 'type'>): boolean => codecOf(field).readOnly !== true;

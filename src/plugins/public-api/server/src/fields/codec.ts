/**
 * What one field type knows, in one object (a codec): which Strapi attributes it exposes, how a stored
 * value is read out, how a written value is judged, how both are described in the OpenAPI document, and
 * how the field filters and sorts. Pure: no Strapi, no database; what a type needs from around it (the
 * named schemas of the document, the richtext converter, a relation's target) is handed in.
 *
 * The serializers, the write planner, the OpenAPI builder and the query vocabulary read the table of
 * codecs (./table.ts) instead of switching on the type, so a new type (a component, a dynamic zone) is
 * one new entry there.
 */
import type { Ref, Schema } from '../openapi/types';
import type { FilterTarget } from '../query/types';
import type { ComponentSchema, Field, FieldType, StrapiAttribute } from '../registry/types';
import type { SortValueKind } from './sort-kinds';

// ---------------------------------------------------------------------------------------------------------
// Writes: what a value becomes, or why it is refused
// ---------------------------------------------------------------------------------------------------------

/** How a reference names its target: by `id`, by `slug`, or a bare string tried as slug, then as id. */
export type RelationRef = {
  by: 'id' | 'slug' | 'either';
  value: string;
  /** A reference that gives both id and slug must name one record with both. */
  alsoSlug?: string;
  pointer: string;
};

export type AssetRef = { id: string; pointer: string };

/** A judged value: stored as is, or resolved by the writes service (richtext images, relation targets, assets). */
export type PlannedValue =
  | { kind: 'value'; value: unknown }
  | { kind: 'richtext'; doc: unknown }
  | { kind: 'relation'; refs: RelationRef[] }
  /** A to-many list changed in place: `add` appended (those not linked yet), `remove` unlinked (those linked). */
  | { kind: 'relationChanges'; add: RelationRef[]; remove: RelationRef[] }
  | { kind: 'media'; refs: AssetRef[] }
  /** Component values, in order (none for null): each a new value of its component, its fields judged in turn. */
  | { kind: 'components'; items: PlannedComponent[] };

/**
 * One component value of a write: its component, where it was sent (`pointer`; `attributes`: where its
 * fields are, the same but in a dynamic zone), and its fields' judged values.
 */
export type PlannedComponent = { component: string; pointer: string; attributes: string; members: PlannedMember[] };

/** A field inside a component value, judged by its own type. */
export type PlannedMember = { field: Field; pointer: string; planned: PlannedValue };

/** What is left of the component values one field's value may hold (fields/types/component-input.ts). */
export type ComponentBudget = { left: number };

/** A value of the wrong shape: where in the request, and what the field takes, for people. */
export type Violation = { pointer: string; detail: string };

export type WriteVerdict = { ok: true; planned: PlannedValue } | { ok: false; violations: Violation[] };

export type WriteContext = {
  /** Where the value sits in the request document. */
  pointer: string;
  /** The slug of the resource a relation leads to ('' when the key sees none). */
  target: string;
  /**
   * Judges a field of a component inside a component value (with `context.pointer` where it sits): its
   * own type's judgement, a relation's target as this key sees it; null when the key sees no such field.
   */
  member?: (raw: unknown, field: Field, component: ComponentSchema, context: WriteContext) => WriteVerdict | null;
  /** The component values a field's value may still hold, shared by its nested values. */
  budget?: ComponentBudget;
};

// ---------------------------------------------------------------------------------------------------------
// Reads
// ---------------------------------------------------------------------------------------------------------

/**
 * Where a value is stored, which decides how reads load it: a column of the record's own row, links to
 * records of another resource, links to files, or rows of component tables (Strapi's `<table>_cmps`).
 */
export type FieldStorage = 'column' | 'relation' | 'media' | 'component';

/**
 * One component value as reads hand it to its field's type: its component's uid and its attributes, read
 * out; `truncated` when a reference list inside it (at any depth) is cut to the cap (contract section 13).
 */
export type ComponentItem = { component: string; attributes: Record<string, unknown>; truncated?: boolean };

export type ColumnReadContext = {
  /** The stored blocks value (JSON text or parsed) -> the richtext document, or null. */
  richtext: (raw: unknown) => unknown;
};

// ---------------------------------------------------------------------------------------------------------
// The OpenAPI document
// ---------------------------------------------------------------------------------------------------------

/** Whether a value's schema admits null: always, unless the field is required, or never. */
export type Nullability = 'always' | 'unless-required' | 'never';

/** The schema of a field's value; the builder adds null as `nullable` says, and the field's label. */
export type ValueSchema = { schema: Schema | Ref; nullable: Nullability };

/** The named schemas field types refer to; the OpenAPI builder writes each into the document on first use. */
export type SchemaKit = {
  richtextDoc: () => Ref;
  richtextDocInput: () => Ref;
  asset: () => Ref;
  assetInput: () => Ref;
  relationInput: () => Ref;
  /** `{ "add": [...], "remove": [...] }`: a change of a stored to-many list. */
  relationChanges: () => Ref;
  /** A relation's value on reads: the reference, or the related record when the key may expand it. */
  relationItem: (field: Field) => Schema | Ref;
  /** A component's value on reads (its attributes), written once into the document per component. */
  component: (component: ComponentSchema) => Ref;
  /** One item of a dynamic zone on reads: `{ type, attributes }`, one of the zone's components, told by `type`. */
  dynamicZoneItem: (field: Field) => Schema | Ref;
  /** A component's value as writes take it (its fields' write schemas), written once into the document per component. */
  componentInput: (component: ComponentSchema) => Ref;
  /** One item of a dynamic zone as writes take it: `{ type, attributes }`, told by `type`. */
  dynamicZoneItemInput: (field: Field) => Schema | Ref;
};

export type WriteSchemaContext = {
  /** Whether the field is the resource's slug, which a write may leave empty (it is then generated). */
  isSlug: boolean;
  /** Whether the schema is a create's (a new record: lists are whole) or an update's. */
  action: 'create' | 'update';
};

// ---------------------------------------------------------------------------------------------------------
// The codec
// ---------------------------------------------------------------------------------------------------------

/** What the registry adds to a field of the type, beside key, label, type, required and localized. */
export type FieldDetails = Pick<Field, 'options' | 'allowedTypes' | 'target' | 'components'>;

/** What the registry hands a type that needs more than the attribute: the components, by uid. */
export type DetailsContext = {
  /** The component of a uid as the API shows it, or null when it does not exist or shows nothing. */
  component: (uid: string) => ComponentSchema | null;
};

type CodecBase = {
  type: FieldType;
  /** Whether a Strapi attribute is a field of this type (exactly one type accepts an exposed attribute). */
  accepts: (attribute: StrapiAttribute) => boolean;
  /** The field's details, or null when the attribute turns out to expose nothing (a component that shows no field). */
  details?: (attribute: StrapiAttribute, context: DetailsContext) => FieldDetails | null;
  /** One plain value, edited in place (field metadata's `inlineEditable`). */
  scalar: boolean;
  /** Values writes cannot take yet: the field is never writable, whatever a grant says. */
  readOnly?: boolean;
  readSchema: (field: Field, kit: SchemaKit) => ValueSchema;
  /** The JSON value of a write -> what is stored, or every violation of its shape. */
  parseWrite: (raw: unknown, field: Field, context: WriteContext) => WriteVerdict;
  writeSchema: (field: Field, kit: SchemaKit, context: WriteSchemaContext) => ValueSchema;
  /** How `filter[field]` types its values, or null when the field cannot be filtered. */
  filter: (field: Field) => FilterTarget | null;
  /** How the value compares in SQL and travels in a cursor. */
  sortKind: SortValueKind;
  /** Whether `sort` may name the field. */
  sortable: (field: Field) => boolean;
};

/** A type whose value is a column of the record's row. */
export type ColumnCodec = CodecBase & {
  storage: 'column';
  /** The column's value as the database driver returns it -> the JSON value of the attribute. */
  serialize: (raw: unknown, context: ColumnReadContext) => unknown;
};

/** A type whose value is links: the reads hand it the linked items (assets, references or records), in order. */
export type LinkCodec = CodecBase & {
  storage: 'relation' | 'media';
  cardinality: 'one' | 'many';
  serialize: (items: readonly unknown[]) => unknown;
};

/**
 * A type whose value is component rows: the reads hand it its items, each read out by its component's
 * fields (in the field's order), and it makes of them the value the record shows.
 */
export type ComponentCodec = CodecBase & {
  storage: 'component';
  cardinality: 'one' | 'many';
  /**
   * Whether each item is a section that names its own component (a dynamic zone: `type` and `attributes`
   * on reads and writes, `__component` in Strapi's data, the row's component type in the database), or
   * every item is of the field's one component, its value its attributes.
   */
  sections: boolean;
  serialize: (items: readonly ComponentItem[]) => unknown;
};

export type FieldCodec = ColumnCodec | LinkCodec | ComponentCodec;

import type { NumberColumn } from '../values/numbers';

/**
 * The read path's query vocabulary as plain data: what a key may ask for (QueryVocabulary, computed from
 * its grants and the resource elsewhere) and what it asked for (ParsedQuery). No Strapi, no I/O.
 */

export type SortDirection = 'asc' | 'desc';

export type SortTerm = { key: string; direction: SortDirection };

/** A JSON-safe scalar, as stored in a cursor and compared by the keyset conditions. */
export type ScalarValue = string | number | boolean | null;

/**
 * How a filter value is typed. Scalar field types as in the registry, `relation`/`relations` matched by
 * the target's id or slug (a string).
 */
export type FilterType = 'string' | 'text' | 'number' | 'boolean' | 'date' | 'datetime' | 'select' | 'relation' | 'relations';

/** One key that `filter[...]` accepts: its value type, and for `select` the allowed values. */
export type FilterTarget = {
  type: FilterType;
  options?: readonly string[];
  /** For `number`: what its column holds (values/numbers.ts); any finite number when absent. */
  column?: NumberColumn;
};

export const FILTER_OPERATORS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'startsWith', 'null'] as const;

export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** Operators that compare with one value. */
export type ValueOperator = Exclude<FilterOperator, 'in' | 'null'>;

/**
 * A typed filter value: strings for string-like types, relations (id or slug) and dates (`YYYY-MM-DD`),
 * finite numbers for numbers, booleans, and Unix milliseconds for datetimes (so that any offset written
 * by the caller compares as the instant it denotes).
 */
export type FilterValue = string | number | boolean;

type ConditionBase = {
  /** The parameter exactly as sent, e.g. `filter[price][gte]`, for later error messages. */
  parameter: string;
  field: string;
  type: FilterType;
};

export type FilterCondition =
  | (ConditionBase & { op: ValueOperator; value: FilterValue })
  | (ConditionBase & { op: 'in'; value: FilterValue[] })
  /** `value: true` selects rows where the field is null (or a to-many relation is empty). */
  | (ConditionBase & { op: 'null'; value: boolean });

/**
 * Relation fields a key may expand, per resource: each entry leads to the expandable fields of the
 * target resource. Maps (not objects) so that a request for `constructor` or `__proto__` finds nothing,
 * and so that cycles (events -> festival -> events) are one shared map, not an infinite tree.
 */
export type IncludeTree = ReadonlyMap<string, IncludeTree> & {
  /**
   * The level of a component field (contract section 15: `sections.events`): a path goes on through it
   * to a relation of its components, and cannot end on it (a component value is not a record).
   */
  readonly throughComponent?: true;
};

/** A requested expansion: `festival.events,venue` -> [{ festival, [{ events, [] }] }, { venue, [] }]. */
export type IncludeSpec = { field: string; include: IncludeSpec[] };

/**
 * What `fields[type]` may name: the JSON:API type of the records one level of a read returns (the
 * resource's own, or those an include path expands), the fields those records can show (the readable
 * ones), and per expandable relation the level it leads to. Shared per resource, as IncludeTree.
 */
export type RecordTypeTree = { type: string; fields: ReadonlySet<string>; include: ReadonlyMap<string, RecordTypeTree> };

/** Requested sparse fieldsets: record type -> the fields its records show (an empty set: none). */
export type Fieldsets = ReadonlyMap<string, ReadonlySet<string>>;

export type QueryVocabulary = {
  /** Keys `sort` accepts: readable scalar fields plus the system values (see SYSTEM_SORT_KEYS). */
  sortable: ReadonlySet<string>;
  /** Keys `filter[...]` accepts: readable scalar fields, relations, and the system values. */
  filterable: ReadonlyMap<string, FilterTarget>;
  /** What `include` may expand, from this resource. */
  include: IncludeTree;
  /** What `fields[type]` may name, from this resource. */
  records: RecordTypeTree;
  /** Configured locale codes, or null when the resource is not localized (then `locale` is ignored). */
  locales: readonly string[] | null;
  /** The order when `sort` is absent; `sort` ascending unless given. */
  defaultSort?: readonly SortTerm[];
};

/**
 * Which version of each record a read returns (contract section 15): the published one, or the latest
 * draft (preview keys only; the handler checks the key, the parser only the value).
 */
export type ReadStatus = 'published' | 'draft';

export type ParsedQuery = {
  /** Page size, 1 to 100. */
  limit: number;
  /** The raw cursor as sent; verified later against this query (see cursor.ts). */
  cursor: string | null;
  /** The effective order, without the `id` tiebreaker (keyset.ts `totalSort` appends it). */
  sort: SortTerm[];
  /** A configured locale code, or null when absent or when the resource is not localized. */
  locale: string | null;
  /**
   * The locales after the first of a list (`locale=de-CH,de,en`, contract section 15), in order: a record
   * missing in `locale` is answered in the first of these it exists in. Empty for a single code.
   */
  fallback: string[];
  include: IncludeSpec[];
  /** In request order; all of them apply (AND). */
  filters: FilterCondition[];
  /** Sparse fieldsets by record type; a type not in it shows every readable field. */
  fields: Fieldsets;
  /** `published` unless `status=draft` was sent. */
  status: ReadStatus;
};

/** What a single-record read accepts. */
export type RecordQuery = Pick<ParsedQuery, 'locale' | 'fallback' | 'include' | 'fields' | 'status'>;

export type RecordVocabulary = Pick<QueryVocabulary, 'include' | 'records' | 'locales'>;

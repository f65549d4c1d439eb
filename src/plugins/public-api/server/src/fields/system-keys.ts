/**
 * The system keys: values every record has beside its fields (its id, slug, sort value and dates), and
 * the names that can never be fields. One table, read by the registry, the query vocabulary, the read
 * path, the record serializer and the OpenAPI document alike. Pure.
 */
import type { Schema } from '../openapi/types';
import type { FilterTarget } from '../query/types';
import type { Resource } from '../registry/types';
import type { RecordRow } from '../serialize/rows';
import { toMillis, toNumber } from '../values/database';
import type { SortValueKind } from './sort-kinds';

type ResourceSystem = Pick<Resource, 'slugAttribute' | 'sortAttribute'>;

/** How a system key appears in a record's `meta`. */
export type MetaEntry = {
  /** The stored value -> the JSON value of `meta`. */
  serialize: (raw: unknown) => string | number | null;
  /** Its schema in `RecordMeta`. */
  schema: Schema;
  /** Its schema in `ArchivedRecordMeta`, the last state of an archived record. */
  archived: Schema;
};

export type SystemKey = {
  /** The Strapi attribute that holds it on a resource, or undefined where the resource has none. */
  attribute: (resource: ResourceSystem) => string | undefined;
  /** Its value on a record's row, as the read path selected it. */
  row: (row: RecordRow) => unknown;
  /**
   * How it pages: `sortKind` is how it compares in SQL and travels in a cursor; the id is every order's
   * tiebreaker (a cursor's last member), the others may be `sort` keys (SYSTEM_SORT_KEYS).
   */
  paging: 'tiebreaker' | 'sort';
  sortKind: SortValueKind;
  /** How `filter[key]` types its values, or null when the key is not filterable. */
  filter: FilterTarget | null;
  /** How the key shows in `meta`, or null (the id is the record's own `id` member). */
  meta: MetaEntry | null;
};

const UNIX_MILLIS: Schema = { type: 'integer', description: 'Unix milliseconds.' };

const timestamp = (attribute: 'createdAt' | 'updatedAt' | 'publishedAt', archived: Schema = UNIX_MILLIS): SystemKey => ({
  attribute: () => attribute,
  row: (row) => row[attribute],
  paging: 'sort',
  sortKind: 'datetime',
  filter: { type: 'datetime' },
  meta: { serialize: toMillis, schema: UNIX_MILLIS, archived },
});

/** In the order `meta` lists them. */
export const SYSTEM_KEYS = {
  id: { attribute: () => 'documentId', row: (row) => row.documentId, paging: 'tiebreaker', sortKind: 'text', filter: null, meta: null },
  slug: {
    attribute: (resource) => resource.slugAttribute,
    row: (row) => row.slug,
    paging: 'sort',
    sortKind: 'text',
    filter: { type: 'string' },
    meta: {
      serialize: (raw) => (raw === null || raw === undefined ? null : String(raw)),
      schema: { type: ['string', 'null'], description: "The record's public identifier (its uid field), or null." },
      archived: { type: ['string', 'null'] },
    },
  },
  sort: {
    attribute: (resource) => resource.sortAttribute,
    row: (row) => row.sort,
    paging: 'sort',
    sortKind: 'number',
    filter: null,
    meta: {
      serialize: toNumber,
      schema: { type: ['integer', 'null'], description: "The record's system sort value, or null." },
      archived: { type: ['integer', 'null'] },
    },
  },
  createdAt: timestamp('createdAt'),
  updatedAt: timestamp('updatedAt'),
  publishedAt: timestamp('publishedAt', { type: 'null', description: 'Archived records are no longer published.' }),
} satisfies Record<string, SystemKey>;

export type SystemKeyName = keyof typeof SYSTEM_KEYS;

/** The keys `meta` shows, in order. */
export type MetaKeyName = { [K in SystemKeyName]: (typeof SYSTEM_KEYS)[K]['meta'] extends null ? never : K }[SystemKeyName];

export const systemKeyOf = (key: string): SystemKey | undefined =>
  Object.prototype.hasOwnProperty.call(SYSTEM_KEYS, key) ? (SYSTEM_KEYS as Record<string, SystemKey>)[key] : undefined;

/** Whether a resource has the key at all (`slug` and `sort` only where the schema has them). */
export const hasSystemKey = (resource: ResourceSystem, key: SystemKeyName): boolean => SYSTEM_KEYS[key].attribute(resource) !== undefined;

/** The system keys `sort` accepts, in the order the document lists them (the id is only the tiebreaker). */
export const SYSTEM_SORT_KEYS = ['slug', 'sort', 'publishedAt', 'createdAt', 'updatedAt'] as const satisfies readonly SystemKeyName[];

/** The system keys `filter` accepts, with how their values are typed. */
export const SYSTEM_FILTER_TARGETS: ReadonlyMap<SystemKeyName, FilterTarget> = new Map(
  Object.entries(SYSTEM_KEYS as Record<string, SystemKey>).flatMap(([key, entry]) =>
    entry.filter ? [[key as SystemKeyName, entry.filter] as const] : [],
  ),
);

/** The keys of `meta`, with how each is read out and described. */
export const META_ENTRIES: ReadonlyArray<readonly [MetaKeyName, MetaEntry]> = Object.entries(
  SYSTEM_KEYS as Record<string, SystemKey>,
).flatMap(([key, entry]) => (entry.meta ? [[key as MetaKeyName, entry.meta] as const] : []));

/** Strapi attributes that hold system values or Strapi internals: never fields. */
export const STRAPI_SYSTEM_ATTRIBUTES: ReadonlySet<string> = new Set([
  'id',
  'documentId',
  'createdAt',
  'updatedAt',
  'publishedAt',
  'createdBy',
  'updatedBy',
  'locale',
  'localizations',
]);

/** JSON:API reserves these member names inside a resource object. */
export const RESERVED_FIELD_NAMES = ['id', 'type'] as const;

/**
 * The columns a record read selects and the row it gives back: the system values under their own
 * aliases, the columns of the fields the projection shows (and of the sort keys), and how sort, filter
 * and keyset keys map onto columns. Pure: the caller makes the SQL that is not a column.
 */
import type { Knex } from 'knex';
import type { Projection } from '../grants/projection';
import type { ReadStatus } from '../query/types';
import type { RecordRow } from '../serialize/rows';
import type { Field } from '../registry/types';
import { MEDIA_FIELD_TYPES, RELATION_FIELD_TYPES, sortKindOf } from '../fields/table';
import { columnOf, type ReadModel } from './model';
import type { SqlKey } from './sql';

export const ROW_ALIASES = {
  rowId: '__row_id',
  documentId: '__document_id',
  slug: '__slug',
  sort: '__sort',
  createdAt: '__created_at',
  updatedAt: '__updated_at',
  publishedAt: '__published_at',
  hasPublished: '__has_published',
  locale: '__locale',
} as const;

export type RawRow = Record<string, unknown>;

export const qualified = (model: ReadModel, column: string) => `${model.table}.${column}`;

/** How sort, filter and keyset keys of a projection map onto columns. */
export const sqlKeys =
  (projection: Projection, model: ReadModel) =>
  (key: string): SqlKey => {
    const { resource } = projection;
    const field = projection.readable.find((candidate) => candidate.key === key);
    const kind = sortKindOf(key, field);
    return { column: qualified(model, columnOf(resource, model, key)), kind, nullable: key !== 'id' };
  };

/**
 * The system values, and the columns of the fields the projection shows and of `also` (sort keys); on
 * a draft read also whether each document has a published version (`hasPublished`, the caller's SQL).
 */
export const selectColumns = (
  projection: Projection,
  model: ReadModel,
  also: readonly Field[],
  status: ReadStatus,
  fallback: readonly string[],
  hasPublished: () => Knex.Raw,
): Record<string, string | Knex.Raw> => {
  const { resource } = projection;
  const columns: Record<string, string | Knex.Raw> = {
    [ROW_ALIASES.rowId]: qualified(model, 'id'),
    [ROW_ALIASES.documentId]: qualified(model, 'document_id'),
    [ROW_ALIASES.createdAt]: qualified(model, 'created_at'),
    [ROW_ALIASES.updatedAt]: qualified(model, 'updated_at'),
    [ROW_ALIASES.publishedAt]: qualified(model, 'published_at'),
  };
  if (resource.slugAttribute) columns[ROW_ALIASES.slug] = qualified(model, model.columns[resource.slugAttribute]!);
  if (resource.sortAttribute) columns[ROW_ALIASES.sort] = qualified(model, model.columns[resource.sortAttribute]!);
  for (const field of [...projection.readable, ...also]) {
    if (RELATION_FIELD_TYPES.has(field.type) || MEDIA_FIELD_TYPES.has(field.type)) continue;
    const column = model.columns[field.key];
    if (column) columns[field.key] = qualified(model, column);
  }
  if (status === 'draft') columns[ROW_ALIASES.hasPublished] = hasPublished();
  // Which locale of a fallback list each row is in, for its `meta.locale`.
  if (resource.localized && fallback.length) columns[ROW_ALIASES.locale] = qualified(model, 'locale');
  return columns;
};

/**
 * The row as the serializers take it. Its field values are the driver's row itself, not a copy: the
 * query selected only the projection's columns (and the system values under their own aliases), and
 * readers look values up by field key.
 */
export const toRecordRow = (raw: RawRow): RecordRow => {
  return {
    rowId: Number(raw[ROW_ALIASES.rowId]),
    documentId: String(raw[ROW_ALIASES.documentId]),
    slug: raw[ROW_ALIASES.slug] ?? null,
    sort: raw[ROW_ALIASES.sort] ?? null,
    createdAt: raw[ROW_ALIASES.createdAt],
    updatedAt: raw[ROW_ALIASES.updatedAt],
    publishedAt: raw[ROW_ALIASES.publishedAt],
    values: raw,
    // Draft reads only (SQLite answers 0/1, PostgreSQL a boolean).
    ...(ROW_ALIASES.hasPublished in raw
      ? { status: raw[ROW_ALIASES.hasPublished] === true || Number(raw[ROW_ALIASES.hasPublished]) === 1 ? 'published' : 'draft' }
      : {}),
    ...(ROW_ALIASES.locale in raw ? { locale: String(raw[ROW_ALIASES.locale]) } : {}),
  };
};

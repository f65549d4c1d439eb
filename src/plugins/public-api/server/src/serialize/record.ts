/**
 * A database row -> the record object of the specification, cut to the projection. Pure: everything
 * the record shows is handed in, and only readable fields are ever looked at.
 */
import type { Projection } from '../grants/projection';
import type { FileRow, RecordRow, Related, TargetRef } from '../read/rows';
import { toMillis, scalarValue, toTags, toNumber } from './values';
import type { Asset } from './assets';

export type Reference = { id: string; slug: string | null; collection: string };

export type RecordObject = {
  type: string;
  id: string;
  attributes: Record<string, unknown>;
  meta: {
    slug: string | null;
    sort: number | null;
    createdAt: number | null;
    updatedAt: number | null;
    publishedAt: number | null;
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

export const recordMeta = (row: RecordRow): RecordObject['meta'] => ({
  slug: row.slug === null || row.slug === undefined ? null : String(row.slug),
  sort: toNumber(row.sort),
  createdAt: toMillis(row.createdAt),
  updatedAt: toMillis(row.updatedAt),
  publishedAt: toMillis(row.publishedAt),
});

export const serializeRecord = (projection: Projection, row: RecordRow, parts: RecordParts): RecordObject => {
  const attributes: Record<string, unknown> = {};
  for (const field of projection.readable) {
    const raw = row.values[field.key];
    switch (field.type) {
      case 'relation':
      case 'relations': {
        const collection = projection.targets.get(field.key)!.slug;
        const expanded = parts.expanded?.get(field.key);
        const refs = (parts.references.get(field.key)?.get(row.rowId) ?? []).map(
          (ref) => expanded?.get(ref.rowId) ?? ({ id: ref.documentId, slug: ref.slug, collection } satisfies Reference)
        );
        attributes[field.key] = field.type === 'relation' ? (refs[0] ?? null) : refs;
        break;
      }
      case 'image':
      case 'file': {
        const file = parts.files.get(field.key)?.get(row.rowId)?.[0];
        attributes[field.key] = file ? parts.asset(file) : null;
        break;
      }
      case 'images':
      case 'files':
        attributes[field.key] = (parts.files.get(field.key)?.get(row.rowId) ?? []).map(parts.asset);
        break;
      case 'tags':
        attributes[field.key] = toTags(raw);
        break;
      case 'richtext':
        attributes[field.key] = raw === null || raw === undefined ? null : parts.richtext(raw);
        break;
      case 'markdown':
        attributes[field.key] = raw === null || raw === undefined ? null : String(raw);
        break;
      default:
        attributes[field.key] = scalarValue(field.type, raw);
    }
  }
  return { type: projection.resource.slug, id: row.documentId, attributes, meta: recordMeta(row) };
};

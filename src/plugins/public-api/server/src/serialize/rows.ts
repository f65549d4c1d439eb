/**
 * The shapes the database reads return and the serializers take: plain rows keyed by API names, never
 * Strapi entities. They live beside the serializers so that the data layer points down at them.
 */

/** One record's row: internal row id, system values and the readable scalar columns by field key. */
export type RecordRow = {
  rowId: number;
  documentId: string;
  slug: unknown;
  sort: unknown;
  createdAt: unknown;
  updatedAt: unknown;
  publishedAt: unknown;
  values: Record<string, unknown>;
  /**
   * Draft reads only: whether the record's document has a published version (`published`) or not
   * (`draft`), as `meta.status` shows it. Absent on published reads.
   */
  status?: 'draft' | 'published';
  /** Reads with a locale fallback list only: the locale the row is in, as `meta.locale` shows it. */
  locale?: string;
  /**
   * A component row only (it has no `updatedAt` of its own): the version of the record it belongs to, its
   * top-level row and that row's `updatedAt` (`recordVersion`), which every write of the record changes,
   * an edit of its components included. Caches key the row's converted values by it.
   */
  version?: string;
};

/** A relation target as a reference carries it, plus its row id for batched expansion. */
export type TargetRef = { rowId: number; documentId: string; slug: string | null };

/** A file linked to a record, with the columns an asset object needs. */
export type FileRow = {
  id: number;
  documentId: string;
  name: string;
  alternativeText: string | null;
  caption: string | null;
  width: number | null;
  height: number | null;
  hash: string;
  /** The plugin's content version of a replaced file (assets/token.ts), null if never replaced. */
  version: string | null;
  ext: string | null;
  mime: string;
  /** Strapi's size in kilobytes, rounded to two decimals. */
  size: number;
  /** The exact size in bytes the plugin recorded (services/file-versions), null if it could not. */
  bytes: number | null;
  url: string;
  updatedAt: unknown;
};

/** Field key -> owner row id -> items, in order. */
export type Related<T> = Map<string, Map<number, T[]>>;

/** An image file as it is now, for the images a stored richtext document names (by documentId). */
export type CurrentImageFile = Pick<FileRow, 'documentId' | 'hash' | 'version' | 'name' | 'width' | 'height' | 'mime'>;

/** A component value linked to an owner row: the row of its component's table. */
export type ComponentLink = { rowId: number; component: string };

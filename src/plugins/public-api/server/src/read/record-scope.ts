/**
 * What a read of records is asked for: the scope (locale, fallback list, status) its rows are read in,
 * and for a page also its order, filters, keyset position and size. Types only.
 */
import type { Projection } from '../grants/projection';
import type { FilterCondition, ReadStatus, ScalarValue, SortTerm } from '../query/types';

export type Scope = {
  /** The locale rows are read in; null for resources that are not localized. */
  locale: string | null;
  /**
   * The locales after `locale` of a fallback list (contract section 15), in order: each document is read
   * in the first listed locale it has a visible row in. Absent or empty: `locale` alone.
   */
  fallback?: readonly string[];
  /** Which rows: published (absent) or, for a preview key's `status=draft`, the drafts (contract section 15). */
  status?: ReadStatus;
};

export type PageQuery = Scope & {
  /** The locale of the localized records relations lead to (relation filters match in it). */
  language: string | null;
  /**
   * The locales after `language` of a fallback list, also for a resource that is not localized (buildings
   * filtered by their events): a relation filter matches a localized target on its document's row in the
   * first of `language, ...languageFallback` it has, the row references show. Absent: `language` alone.
   */
  languageFallback?: readonly string[];
  sort: SortTerm[];
  filters: FilterCondition[];
  /** Rows after this position (values of the total sort, id last), or null for the first page. */
  after: ScalarValue[] | null;
  limit: number;
  /**
   * What the rows show: a fieldset's cut of the projection (grants/fieldset-projection.ts), the projection itself
   * when absent. Sorting and filtering still use the whole projection, and the sort keys' columns are
   * read besides, for the cursor of the next page.
   */
  shown?: Projection;
};

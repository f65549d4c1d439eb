/**
 * Database reads for /api/v2: one query for a page of records, then one query per readable relation
 * field and one for all media, however many records the page has. Only the columns of the fields the
 * projection shows are selected (a fieldset's cut of the readable ones: reads pass the projection
 * `shownProjection` made); pagination is keyset (no OFFSET) and no page is counted.
 *
 * Each query names its shape (what its SQL text depends on, read/record-shapes.ts) and passes what varies
 * within it (ids, slugs, keyset positions) as parameters: its SQL is built once per shape and runs as a
 * prepared statement (database/statements.ts). The SQL is the read path's (read/): which rows and links
 * a read sees (visibility.ts), the columns it selects (record-columns.ts), a page (record-page.ts),
 * references (references.ts) and files (record-files.ts); this service holds the record lookups and
 * what every read is made with (record-reads.ts), once per application.
 */
import type { Core } from '@strapi/strapi';
import type { Projection } from '../grants/projection';
import { orderBy, totalSort } from '../query/keyset';
import type { ReadStatus, SortTerm } from '../query/types';
import type { RecordRow } from '../serialize/rows';
import type { Resource } from '../registry/types';
import { qualified, sqlKeys, toRecordRow, type RawRow } from '../read/record-columns';
import { readImageFiles, readMedia } from '../read/record-files';
import { readPage } from '../read/record-page';
import { createRecordReads } from '../read/record-reads';
import type { PageQuery, Scope } from '../read/record-scope';
import { localeShape, projectionShape } from '../read/record-shapes';
import { linkedAmong, readReferences } from '../read/references';
import { applyOrder } from '../read/sql';

export type { PageQuery, Scope } from '../read/record-scope';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const reads = createRecordReads(strapi);
  const { models, knex, run, columns, baseQuery } = reads;
  const { applyVisibility } = reads.visibility;

  return {
    sqlKeysOf(projection: Projection) {
      return sqlKeys(projection, models(projection.resource.uid));
    },

    /**
     * One page in the total order of `sort` (plus id); `hasMore` from reading one row more.
     *
     * When the leading sort key may be null, the order falls into two segments, the rows with a value
     * and the rows without (nulls last ascending, first descending), and the page is read segment by
     * segment from the cursor's one: each segment query fixes `(key IS NULL)` and is ordered by the
     * remaining keys, which the order index serves as a range at any depth. A keyset condition across
     * both segments (`key > v OR key IS NULL ...`) cannot be a range: the planner would walk the index
     * from the start of the collection and filter, so a page deep in the collection would cost more than
     * the first. A second query is run only by a page that crosses from one segment into the next.
     */
    page(projection: Projection, query: PageQuery): Promise<{ rows: RecordRow[]; hasMore: boolean }> {
      return readPage(reads, projection, query);
    },

    /**
     * One record by slug (tried first) or id, as the resource accepts them: two indexed lookups rather
     * than one `slug = ? OR document_id = ?`, which no index serves.
     */
    async one(projection: Projection, identifier: string, scope: Scope): Promise<RecordRow | null> {
      const { resource } = projection;
      const lookups: [string, string][] = [];
      if (resource.identifiers.includes('slug') && resource.slugAttribute) lookups.push(['slug', resource.slugAttribute]);
      if (resource.identifiers.includes('id')) lookups.push(['id', 'documentId']);
      for (const [, attribute] of lookups) {
        const shape = `one|${projectionShape(projection)}|${localeShape(scope)}|${attribute}|${scope.status ?? 'published'}`;
        const raws = await run(shape, [identifier], (param) => {
          const { model, builder } = baseQuery(projection, scope);
          return builder.where(qualified(model, model.columns[attribute]!), param(0)).limit(1);
        });
        if (raws[0]) return toRecordRow(raws[0]);
      }
      return null;
    },

    /**
     * Published records of `resource` visible in `scope` whose id or slug is one of `values`: how a write
     * finds the targets of the references it was sent. One query, whatever the number of values.
     */
    async identify(
      resource: Resource,
      values: string[],
      scope: Scope,
    ): Promise<{ rowId: number; documentId: string; slug: string | null }[]> {
      if (values.length === 0) return [];
      const model = models(resource.uid);
      const slugColumn = resource.slugAttribute ? model.columns[resource.slugAttribute] : undefined;
      const builder = knex()(model.table).select({ rowId: qualified(model, 'id'), documentId: qualified(model, 'document_id') });
      if (slugColumn) builder.select({ slug: qualified(model, slugColumn) });
      applyVisibility(builder, resource, model, scope);
      builder.where((inner) => {
        inner.whereIn(qualified(model, 'document_id'), values);
        if (slugColumn) inner.orWhereIn(qualified(model, slugColumn), values);
      });
      return ((await builder) as RawRow[]).map((raw) => ({
        rowId: Number(raw.rowId),
        documentId: String(raw.documentId),
        slug: raw.slug == null ? null : String(raw.slug),
      }));
    },

    /** One record by its id (documentId) whatever identifiers the resource accepts in paths: a write's read-back. */
    async byDocumentId(projection: Projection, documentId: string, scope: Scope): Promise<RecordRow | null> {
      const raws = await run(`document|${projectionShape(projection)}|${localeShape(scope)}`, [documentId], (param) => {
        const { model, builder } = baseQuery(projection, scope);
        return builder.where(qualified(model, 'document_id'), param(0)).limit(1);
      });
      return raws[0] ? toRecordRow(raws[0]) : null;
    },

    /**
     * The records of `documentIds` visible in `scope`, in no particular order: one query for all of them
     * (the sync feed and webhooks render the records a batch of changes names; a document not visible
     * has no row).
     */
    async byDocumentIds(projection: Projection, documentIds: readonly string[], scope: Scope): Promise<RecordRow[]> {
      if (documentIds.length === 0) return [];
      const shape = `documents|${projectionShape(projection)}|${localeShape(scope)}|${documentIds.length}`;
      const raws = await run(shape, documentIds, (param) => {
        const { model, builder } = baseQuery(projection, scope);
        return builder.whereIn(
          qualified(model, 'document_id'),
          documentIds.map((_, index) => param(index) as string),
        );
      });
      return raws.map(toRecordRow);
    },

    /** The one record of a singleton: the first in the resource's default order. */
    async singleton(projection: Projection, scope: Scope, sort: SortTerm[]): Promise<RecordRow | null> {
      const shape = `singleton|${projectionShape(projection)}|${localeShape(scope)}|${JSON.stringify(sort)}|${scope.status ?? 'published'}`;
      const raws = await run(shape, [], () => {
        const { model, builder } = baseQuery(projection, scope);
        applyOrder(builder, orderBy(totalSort(sort)), sqlKeys(projection, model));
        return builder.limit(1);
      });
      return raws[0] ? toRecordRow(raws[0]) : null;
    },

    /** Rows by row id (for expanding relations), in no particular order; drafts only on a draft read. */
    async byRowIds(
      projection: Projection,
      rowIds: number[],
      language: string | null,
      status?: ReadStatus,
      fallback: readonly string[] = [],
    ): Promise<RecordRow[]> {
      if (rowIds.length === 0) return [];
      const model = models(projection.resource.uid);
      const scope: Scope = projection.resource.localized ? { locale: language, fallback, status } : { locale: null, status };
      const shape = `rows|${projectionShape(projection)}|${localeShape(scope)}|${rowIds.length}|${status ?? 'published'}`;
      const raws = await run(shape, rowIds, (param) => {
        // With a fallback list each expanded record says which locale it is in (`meta.locale`).
        const builder = knex()(model.table).select(columns(projection, model, [], status, scope.fallback));
        // Visibility again: a reference never leads to a draft (but on a draft read), to another website's
        // record or to a locale other than its document's first listed one.
        applyVisibility(builder, projection.resource, model, scope);
        return builder.whereIn(
          qualified(model, 'id'),
          rowIds.map((_, index) => param(index) as number),
        );
      });
      return raws.map(toRecordRow);
    },

    /**
     * References of every visible relation field: one query per field, whatever the number of owners.
     * Each target document appears once per owner (see `visibleLinks`), in the relation's order. For reads
     * the SQL returns an owner's list cut one past the cap (REFERENCE_LIST_CAP, read/first-links.ts),
     * enough for the serializer to see that it was cut; `whole` returns every reference (a write that
     * replaces a list the key may not read disconnects all of it).
     */
    relations(
      projection: Projection,
      rowIds: number[],
      fields: string[],
      language: string | null,
      whole = false,
      status?: ReadStatus,
      fallback: readonly string[] = [],
    ) {
      return readReferences(reads, projection, rowIds, fields, language, whole, status, fallback);
    },

    /**
     * Which of `documentIds` the record's relation `field` links, as reads see links (visible targets,
     * in `language`): how a write that adds and removes references learns what is linked already, one
     * indexed lookup whatever the length of the stored list.
     */
    linkedAmong(projection: Projection, rowId: number, field: string, documentIds: string[], language: string | null) {
      return linkedAmong(reads, projection, rowId, field, documentIds, language);
    },

    /** The files images embedded in richtext name, as they are now (name, hash, content version). */
    imageFiles(documentIds: string[]) {
      return readImageFiles(reads, documentIds);
    },

    /** Files of every readable media field, in one query. */
    media(projection: Projection, rows: RecordRow[], fields: string[]) {
      return readMedia(reads, projection, rows, fields);
    },
  };
};

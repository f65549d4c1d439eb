/**
 * Database reads for /api/v2: one query for a page of records, then one query per readable relation
 * field and one for all media, however many records the page has. Only the columns of the fields the
 * projection shows are selected (a fieldset's cut of the readable ones: reads pass the projection
 * `shownProjection` made); pagination is keyset (no OFFSET) and no page is counted.
 *
 * Each query names its shape (what its SQL text depends on) and passes what varies within it (ids,
 * slugs, keyset positions) as parameters: its SQL is built once per shape and runs as a prepared
 * statement (database/statements.ts). A shape holds every value that is not a parameter: resource and
 * its website's id, shown columns, locale, sort, filters with their values, limit, number of ids.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { FILE_VERSIONS_TABLE } from '../content-types/file-version';
import { databaseClient, readAll } from '../database/connection';
import { readConnectionOf } from '../database/sqlite-reader';
import { statementRunner } from '../database/runner';
import { bindValue } from '../fields/sort-kinds';
import type { Projection } from '../grants/projection';
import { keysetAfter, orderBy, totalSort } from '../query/keyset';
import type { FilterCondition, ReadStatus, ScalarValue, SortTerm } from '../query/types';
import { createReadModels, columnOf, type ReadModel, type RelationModel } from '../read/model';
import type { CurrentImageFile, FileRow, RecordRow, Related, TargetRef } from '../serialize/rows';
import { pageSegments, type Segment } from '../read/segments';
import { applyCondition, applyFilter, applyNullness, applyOrder, type SqlKey } from '../read/sql';
import { MEDIA_FIELD_TYPES, RELATION_FIELD_TYPES, sortKindOf } from '../fields/table';
import { REFERENCE_LIST_CAP } from '../fields/types/relation';
import { allLinks, cutDocuments, cutLinks, firstPerDocument, shortOwners } from '../read/first-links';
import type { Field, Resource } from '../registry/types';

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

const ROW_ALIASES = {
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

/** What a scope's locales put in a statement's shape: the fallback order is part of the SQL. */
const localeShape = (scope: Scope): string => [scope.locale, ...(scope.fallback ?? [])].join('>');

type RawRow = Record<string, unknown>;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const models = createReadModels(strapi);
  // The write in progress, when there is one: a write reads its own record back inside its transaction.
  const knex = (): Knex => readConnectionOf(strapi);
  const statements = statementRunner(strapi);
  const run = (shape: string | null, values: readonly unknown[], build: Parameters<typeof statements.rows>[2]) =>
    statements.rows<RawRow>(shape, values, build);

  /** What a resource's queries depend on besides its columns: its content type and its website. */
  const resourceShape = (resource: Resource) => `${resource.uid}@${resource.website?.id ?? ''}`;
  /** What `selectColumns` and `applyVisibility` make of a projection. */
  const projectionShape = (projection: Projection, also: readonly Field[] = []) =>
    `${resourceShape(projection.resource)}[${projection.readable.map((field) => field.key).join(',')}|${also.map((field) => field.key).join(',')}]`;

  const qualified = (model: ReadModel, column: string) => `${model.table}.${column}`;

  /** How sort, filter and keyset keys of a projection map onto columns. */
  const sqlKeys =
    (projection: Projection, model: ReadModel) =>
    (key: string): SqlKey => {
      const { resource } = projection;
      const field = projection.readable.find((candidate) => candidate.key === key);
      const kind = sortKindOf(key, field);
      return { column: qualified(model, columnOf(resource, model, key)), kind, nullable: key !== 'id' };
    };

  /**
   * The rows in the locales of a fallback list that are their document's first listed one: a row in the
   * i-th locale is taken when its document has no row (of the same status) in a locale listed before it.
   * One statement for the whole page: each NOT EXISTS is an indexed lookup on Strapi's (document_id,
   * locale, published_at) index, and filters, order and keyset then apply to the chosen rows' values.
   */
  const applyLocales = (builder: Knex.QueryBuilder, resource: Resource, model: ReadModel, scope: Scope & { locale: string }) => {
    const { locale, fallback = [] } = scope;
    const column = qualified(model, 'locale');
    if (fallback.length === 0) {
      builder.where(column, locale);
      return;
    }
    const listed = [locale, ...fallback];
    builder.where((inner) => {
      inner.where(column, locale);
      listed.forEach((code, index) => {
        if (index === 0) return;
        inner.orWhere((branch) =>
          branch.where(column, code).whereNotExists(earlierRows(resource, model, scope.status, listed.slice(0, index))),
        );
      });
    });
  };

  /** The rows (of the status read) of the current row's document in one of the `earlier` locales: one index search. */
  const earlierRows = (resource: Resource, model: ReadModel, status: ReadStatus | undefined, earlier: readonly string[]) => {
    const rows = knex()(`${model.table} as fb`)
      .select(knex().raw('1'))
      .where('fb.document_id', knex().ref(qualified(model, 'document_id')))
      .whereIn('fb.locale', [...earlier]);
    if (status === 'draft' && resource.draftAndPublish) rows.whereNull('fb.published_at');
    else rows.whereNotNull('fb.published_at');
    return rows;
  };

  /**
   * Restricts a query to what the resource shows: published rows (or, on a draft read, the draft rows of
   * a type with draft & publish; a type without it has only published rows), the locale, the website.
   */
  const applyVisibility = (builder: Knex.QueryBuilder, resource: Resource, model: ReadModel, scope: Scope) => {
    if (scope.status === 'draft' && resource.draftAndPublish) builder.whereNull(qualified(model, 'published_at'));
    else builder.whereNotNull(qualified(model, 'published_at'));
    if (resource.localized && scope.locale) applyLocales(builder, resource, model, { ...scope, locale: scope.locale });
    if (resource.scopeAttribute && resource.website) {
      const join = model.relations[resource.scopeAttribute]!;
      builder.whereIn(qualified(model, 'id'), knex()(join.table).select(join.ownerColumn).where(join.targetColumn, resource.website.id));
    }
  };

  /**
   * Whether the row's document has a published version in the row's locale (what `meta.status` of a
   * draft read says): one indexed lookup per row of the page, on Strapi's (document_id, locale,
   * published_at) index. Types without draft & publish have only published rows.
   */
  const hasPublishedVersion = (resource: Resource, model: ReadModel): Knex.Raw => {
    if (!resource.draftAndPublish) return knex().raw('1');
    const published = knex()(`${model.table} as pv`)
      .select(knex().raw('1'))
      .where('pv.document_id', knex().ref(qualified(model, 'document_id')))
      .whereNotNull('pv.published_at');
    if (resource.localized) published.where('pv.locale', knex().ref(qualified(model, 'locale')));
    return knex().raw('exists ?', [published]);
  };

  /**
   * The system values, and the columns of the fields the projection shows and of `also` (sort keys); on
   * a draft read also whether each document has a published version.
   */
  const selectColumns = (
    projection: Projection,
    model: ReadModel,
    also: readonly Field[] = [],
    status: ReadStatus = 'published',
    fallback: readonly string[] = [],
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
    if (status === 'draft') columns[ROW_ALIASES.hasPublished] = hasPublishedVersion(resource, model);
    // Which locale of a fallback list each row is in, for its `meta.locale`.
    if (resource.localized && fallback.length) columns[ROW_ALIASES.locale] = qualified(model, 'locale');
    return columns;
  };

  /**
   * The row as the serializers take it. Its field values are the driver's row itself, not a copy: the
   * query selected only the projection's columns (and the system values under their own aliases), and
   * readers look values up by field key.
   */
  const toRecordRow = (raw: RawRow): RecordRow => {
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

  /**
   * The links of a relation field that lead to a record the key could see through this resource: the
   * target's published row, of its website when it is scoped, and in `language` when it is localized.
   * Strapi keeps a link per version (each locale, draft and published), so without the locale a
   * localized target would be reached once per language; with it, once. References, `include` and
   * relation filters all read links through here, so they agree on which targets exist.
   */
  const visibleLinks = (
    join: RelationModel,
    target: Resource,
    language: string | null,
    status?: ReadStatus,
    fallback: readonly string[] = [],
  ) => {
    const targetModel = models(join.targetUid);
    if (target.localized && !language) throw new Error(`Links to ${target.uid} need the language to read them in.`);
    const builder = knex()(`${join.table} as j`);
    joinTargets(builder, join, target, targetModel, fallback, status);
    // A draft links to its targets' drafts (Strapi links each version to the same version of the target).
    applyVisibility(builder, target, targetModel, {
      locale: target.localized ? language : null,
      fallback: target.localized ? fallback : [],
      status,
    });
    return { builder, targetModel };
  };

  /**
   * Joins the target rows the links of `j` reach. With a fallback list (contract section 15) a link names
   * a row in some locale (the one its owner row was written in), but the record shown is the target
   * document's row in the first listed locale it has: the linked row only names the document, and
   * `applyVisibility` then keeps that document's chosen row (one per document, so a link still gives one
   * row). The linked row must be of the same version (published, or the draft on a draft read).
   */
  const joinTargets = (
    builder: Knex.QueryBuilder,
    join: RelationModel,
    target: Resource,
    targetModel: ReadModel,
    fallback: readonly string[],
    status?: ReadStatus,
  ) => {
    if (!target.localized || fallback.length === 0) {
      builder.join(targetModel.table, qualified(targetModel, 'id'), `j.${join.targetColumn}`);
      return;
    }
    builder
      .join(`${targetModel.table} as ln`, 'ln.id', `j.${join.targetColumn}`)
      .join(targetModel.table, qualified(targetModel, 'document_id'), 'ln.document_id');
    if (status === 'draft' && target.draftAndPublish) builder.whereNull('ln.published_at');
    else builder.whereNotNull('ln.published_at');
  };

  /**
   * The ids of `resource` rows whose relation `field` points at visible targets with these ids or slugs.
   * With a fallback list (contract section 15) a target is matched as references show it: each owner row
   * (in its own chosen locale) reaches the target document, and the target's id or slug is compared on
   * that document's row in the first listed locale it has, not on its row in the first locale only. Still
   * one subquery for the whole page: a join on the document and a NOT EXISTS per later locale.
   */
  const relationOwners =
    (
      resource: Resource,
      model: ReadModel,
      targetOf: (field: string) => Resource | undefined,
      language: string | null,
      status?: ReadStatus,
      fallback: readonly string[] = [],
    ) =>
    (field: string, refs: string[] | null): Knex.QueryBuilder => {
      const join = model.relations[field];
      const target = targetOf(field);
      if (!join || !target) throw new Error(`No relation '${field}' on ${resource.uid}.`);
      const { builder, targetModel } = visibleLinks(join, target, language, status, target.localized ? fallback : []);
      builder.select(`j.${join.ownerColumn}`);
      if (refs) {
        const slugColumn = target.slugAttribute ? targetModel.columns[target.slugAttribute] : undefined;
        builder.where((inner) => {
          inner.whereIn(qualified(targetModel, 'document_id'), refs);
          if (slugColumn) inner.orWhereIn(qualified(targetModel, slugColumn), refs);
        });
      }
      return builder;
    };

  const baseQuery = (projection: Projection, scope: Scope, also: readonly Field[] = []) => {
    const model = models(projection.resource.uid);
    const builder = knex()(model.table).select(selectColumns(projection, model, also, scope.status, scope.fallback));
    applyVisibility(builder, projection.resource, model, scope);
    return { model, builder };
  };

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
    async page(projection: Projection, query: PageQuery): Promise<{ rows: RecordRow[]; hasMore: boolean }> {
      const model = models(projection.resource.uid);
      const keys = sqlKeys(projection, model);
      const total = totalSort(query.sort);
      const lead = total[0]!;
      const leadKey = keys(lead.key);
      const wanted = query.limit + 1;
      const sortFields = projection.readable.filter((field) => query.sort.some((term) => term.key === field.key));

      // Relation filters read their targets' visibility (websites) and the language.
      const filterShape = query.filters.length
        ? `${JSON.stringify(query.filters)}|${[query.language, ...(query.languageFallback ?? [])].join('>')}|${[...projection.targets.values()].map(resourceShape).join(',')}`
        : '';
      const read = async (segment: Segment & { limit: number }): Promise<RawRow[]> => {
        const after = segment.after;
        // The keyset position is the parameter; which of its values are null decides the SQL's shape.
        const values = (after ?? []).map((value, index) => (value === null ? null : bindValue(keys(segment.sort[index]!.key).kind, value)));
        const shape = [
          'page',
          projectionShape(query.shown ?? projection, sortFields),
          localeShape(query),
          JSON.stringify(segment.sort),
          JSON.stringify(segment.order),
          segment.leadIsNull,
          after ? after.map((value) => (value === null ? 'n' : 'v')).join('') : '-',
          segment.limit,
          filterShape,
          query.status ?? 'published',
        ].join('|');
        return run(shape, values, (param) => {
          /** The segment's page among the rows of `scope`, less those whose document has a row in `earlier`. */
          const branch = (scope: Scope, earlier: readonly string[]) => {
            const { builder } = baseQuery(query.shown ?? projection, scope, sortFields);
            if (earlier.length) builder.whereNotExists(earlierRows(projection.resource, model, query.status, earlier));
            const owners = relationOwners(
              projection.resource,
              model,
              (field) => projection.targets.get(field),
              query.language,
              query.status,
              query.languageFallback,
            );
            for (const filter of query.filters) applyFilter(builder, filter, keys, qualified(model, 'id'), owners, databaseClient(strapi));
            if (segment.leadIsNull !== undefined) applyNullness(builder, leadKey.column, segment.leadIsNull, databaseClient(strapi));
            if (after) {
              const position = after.map((value, index) => (value === null ? null : (param(index) as ScalarValue)));
              applyCondition(builder, keysetAfter(segment.sort, position), segment.keys);
            }
            applyOrder(builder, orderBy(segment.order), segment.keys);
            return builder.limit(segment.limit);
          };
          if (!projection.resource.localized || !query.locale || !query.fallback?.length) return branch(query, []);
          return fallbackPage(query.locale, query.fallback, segment, (code, earlier) =>
            branch({ ...query, locale: code, fallback: [] }, earlier).select({ [ROW_ALIASES.locale]: qualified(model, 'locale') }),
          );
        });
      };

      /**
       * A page of a fallback list (contract section 15) as one statement: per listed locale, a keyset range
       * of its rows whose document has no row in an earlier-listed locale (each served by the order index,
       * each NOT EXISTS an index search), cut to the page; then the union, ordered and cut again. So a page
       * costs at most (locales x page size) rows, not the size of the resource.
       */
      const fallbackPage = (
        locale: string,
        fallback: readonly string[],
        segment: Segment & { limit: number },
        branchOf: (code: string, earlier: readonly string[]) => Knex.QueryBuilder,
      ): Knex.QueryBuilder => {
        const listed = [locale, ...fallback];
        const [first, ...rest] = listed.map((code, index) =>
          knex()
            .select('*')
            .from(branchOf(code, listed.slice(0, index)).as(`l${index}`)),
        );
        const union = first!.unionAll(rest);
        // The outer order names the branches' output columns: the alias each order key was selected under.
        const selected = selectColumns(query.shown ?? projection, model, sortFields, query.status);
        const aliasOf = (key: string) => {
          const column = segment.keys(key).column;
          const alias = Object.keys(selected).find((name) => selected[name] === column);
          if (alias === undefined) throw new Error(`The order key ${key} is not among the selected columns.`);
          return `u.${alias}`;
        };
        const outer = knex().select('*').from(union.as('u'));
        applyOrder(outer, orderBy(segment.order), (key) => ({ ...segment.keys(key), column: aliasOf(key) }));
        return outer.limit(segment.limit);
      };

      const raws: RawRow[] = [];
      for (const segment of pageSegments(total, query.after, leadKey.nullable, keys)) {
        raws.push(...(await read({ ...segment, limit: wanted - raws.length })));
        if (raws.length >= wanted) break;
      }
      const hasMore = raws.length > query.limit;
      return { rows: raws.slice(0, query.limit).map(toRecordRow), hasMore };
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
        const builder = knex()(model.table).select(selectColumns(projection, model, [], status, scope.fallback));
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
    async relations(
      projection: Projection,
      rowIds: number[],
      fields: string[],
      language: string | null,
      whole = false,
      status?: ReadStatus,
      fallback: readonly string[] = [],
    ): Promise<Related<TargetRef>> {
      const result: Related<TargetRef> = new Map();
      if (rowIds.length === 0) return result;
      const model = models(projection.resource.uid);
      await readAll(
        fields.map((field) => async () => {
          const join = model.relations[field];
          const target = projection.targets.get(field);
          if (!join || !target) return;
          const targetModel = models(join.targetUid);
          const visible = (owners: number[]) =>
            visibleLinks(join, target, language, status, fallback).builder.whereIn(`j.${join.ownerColumn}`, owners);
          const slugColumn = target.slugAttribute ? targetModel.columns[target.slugAttribute] : undefined;
          const columns = {
            link: 'j.id',
            owner: `j.${join.ownerColumn}`,
            documentId: qualified(targetModel, 'document_id'),
            order: [...(join.orderColumn ? [`j.${join.orderColumn}`] : []), 'j.id'],
            select: { rowId: qualified(targetModel, 'id'), ...(slugColumn ? { slug: qualified(targetModel, slugColumn) } : {}) },
          };
          // One query; a second only for owners a repeated link left short (never on consistent data).
          const cap = REFERENCE_LIST_CAP + 1;
          // Through a fallback list (localized targets only) a link names the document, not the shown row.
          const targetFallback = target.localized ? fallback : [];
          const tables = {
            join: { table: join.table, targetColumn: join.targetColumn },
            target: {
              table: targetModel.table,
              ...(targetFallback.length
                ? {
                    join: (builder: Knex.QueryBuilder) => {
                      joinTargets(builder, join, target, targetModel, targetFallback, status);
                      applyVisibility(builder, target, targetModel, { locale: language, fallback: targetFallback, status });
                    },
                  }
                : {}),
            },
          };
          // The cut read is a prepared shape (its SQL depends on the relation, the target's visibility,
          // the language and the number of owners; the owners' ids are its parameters), built once. A
          // to-one relation has at most one link per owner: its links are read whole, by the owner
          // index, without the per-owner subquery of the cut (half the time of a page's venue read).
          const shapeOf = (kind: string) =>
            `${kind}|${resourceShape(projection.resource)}|${field}|${resourceShape(target)}|${target.localized ? localeShape({ locale: language, fallback }) : ''}|${cap}|${rowIds.length}|${status ?? 'published'}`;
          const rows = whole
            ? ((await allLinks(visible(rowIds), columns)) as RawRow[])
            : join.toOne
              ? await run(shapeOf('link'), rowIds, (param) => allLinks(visible(rowIds.map((_, index) => param(index) as number)), columns))
              : await run(shapeOf('links'), rowIds, (param) =>
                  cutLinks(
                    knex(),
                    databaseClient(strapi),
                    { ...tables, owners: { table: model.table, ids: rowIds.map((_, index) => param(index) as number) } },
                    () => visibleLinks(join, target, language, status, fallback).builder,
                    columns,
                    cap,
                  ),
                );
          const lists = firstPerDocument(rows);
          const short = whole ? [] : shortOwners(rows, lists, cap);
          if (short.length) {
            for (const [owner, list] of firstPerDocument((await cutDocuments(knex(), visible(short), columns, cap)) as RawRow[]))
              lists.set(owner, list);
          }
          const byOwner = new Map<number, TargetRef[]>();
          for (const [owner, list] of lists) {
            byOwner.set(
              owner,
              list.map((raw) => ({
                rowId: Number(raw.rowId),
                documentId: String(raw.documentId),
                slug: raw.slug == null ? null : String(raw.slug),
              })),
            );
          }
          result.set(field, byOwner);
        }),
      );
      return result;
    },

    /**
     * Which of `documentIds` the record's relation `field` links, as reads see links (visible targets,
     * in `language`): how a write that adds and removes references learns what is linked already, one
     * indexed lookup whatever the length of the stored list.
     */
    async linkedAmong(
      projection: Projection,
      rowId: number,
      field: string,
      documentIds: string[],
      language: string | null,
    ): Promise<Set<string>> {
      const join = models(projection.resource.uid).relations[field];
      const target = projection.targets.get(field);
      if (!join || !target) throw new Error(`No relation '${field}' on ${projection.resource.uid}.`);
      if (documentIds.length === 0) return new Set();
      const { builder, targetModel } = visibleLinks(join, target, language);
      const documentId = qualified(targetModel, 'document_id');
      const raws = (await builder
        .distinct({ documentId })
        .where(`j.${join.ownerColumn}`, rowId)
        .whereIn(documentId, documentIds)) as RawRow[];
      return new Set(raws.map((raw) => String(raw.documentId)));
    },

    /** The files images embedded in richtext name, as they are now (name, hash, content version). */
    async imageFiles(documentIds: string[]): Promise<Map<string, CurrentImageFile>> {
      const found = new Map<string, CurrentImageFile>();
      if (documentIds.length === 0) return found;
      const raws = await run(`images|${documentIds.length}`, documentIds, (param) =>
        knex()('files as f')
          .leftJoin(`${FILE_VERSIONS_TABLE} as v`, 'v.file_id', 'f.id')
          .select({
            documentId: 'f.document_id',
            name: 'f.name',
            hash: 'f.hash',
            version: 'v.version',
            width: 'f.width',
            height: 'f.height',
            mime: 'f.mime',
          })
          .whereIn(
            'f.document_id',
            documentIds.map((_, index) => param(index) as string),
          ),
      );
      for (const raw of raws) {
        const documentId = String(raw.documentId);
        found.set(documentId, {
          documentId,
          name: String(raw.name),
          hash: String(raw.hash),
          version: (raw.version as string | null) ?? null,
          width: raw.width == null ? null : Number(raw.width),
          height: raw.height == null ? null : Number(raw.height),
          mime: String(raw.mime),
        });
      }
      return found;
    },

    /** Files of every readable media field, in one query. */
    async media(projection: Projection, rows: RecordRow[], fields: string[]): Promise<Related<FileRow>> {
      const result: Related<FileRow> = new Map(fields.map((field) => [field, new Map()]));
      if (rows.length === 0 || fields.length === 0) return result;
      const model = models(projection.resource.uid);
      const m = model.media;
      const ownerIds = rows.map((row) => row.rowId);
      const raws = await run(`media|${projection.resource.uid}|${fields.join(',')}|${ownerIds.length}`, ownerIds, (param) =>
        knex()(`${m.table} as m`)
          .join('files as f', 'f.id', `m.${m.fileColumn}`)
          .leftJoin(`${FILE_VERSIONS_TABLE} as v`, 'v.file_id', 'f.id')
          .select({
            owner: `m.${m.ownerColumn}`,
            field: `m.${m.fieldColumn}`,
            id: 'f.id',
            documentId: 'f.document_id',
            name: 'f.name',
            alternativeText: 'f.alternative_text',
            caption: 'f.caption',
            width: 'f.width',
            height: 'f.height',
            hash: 'f.hash',
            version: 'v.version',
            ext: 'f.ext',
            mime: 'f.mime',
            size: 'f.size',
            bytes: 'v.bytes',
            url: 'f.url',
            updatedAt: 'f.updated_at',
          })
          .where(`m.${m.typeColumn}`, projection.resource.uid)
          .whereIn(
            `m.${m.ownerColumn}`,
            ownerIds.map((_, index) => param(index) as number),
          )
          .whereIn(`m.${m.fieldColumn}`, fields)
          .orderBy([`m.${m.ownerColumn}`, `m.${m.fieldColumn}`, `m.${m.orderColumn}`, 'm.id']),
      );
      for (const raw of raws) {
        const byOwner = result.get(String(raw.field))!;
        const owner = Number(raw.owner);
        const list = byOwner.get(owner) ?? [];
        list.push({
          id: Number(raw.id),
          documentId: String(raw.documentId),
          name: String(raw.name),
          alternativeText: (raw.alternativeText as string | null) ?? null,
          caption: (raw.caption as string | null) ?? null,
          width: raw.width == null ? null : Number(raw.width),
          height: raw.height == null ? null : Number(raw.height),
          hash: String(raw.hash),
          version: (raw.version as string | null) ?? null,
          ext: (raw.ext as string | null) ?? null,
          mime: String(raw.mime),
          size: Number(raw.size),
          bytes: raw.bytes == null ? null : Number(raw.bytes),
          url: String(raw.url),
          updatedAt: raw.updatedAt,
        });
        byOwner.set(owner, list);
      }
      return result;
    },
  };
};

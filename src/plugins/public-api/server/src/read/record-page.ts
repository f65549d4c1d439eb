/**
 * A page of records: the read of `records.page` (services/records.ts), one query per segment of the order
 * (read/segments.ts), a fallback list's locales in one statement.
 */
import type { Knex } from 'knex';
import type { Projection } from '../grants/projection';
import { keysetAfter, orderBy, totalSort } from '../query/keyset';
import type { ScalarValue } from '../query/types';
import { bindValue } from '../fields/sort-kinds';
import type { RecordRow } from '../serialize/rows';
import { ROW_ALIASES, qualified, sqlKeys, toRecordRow, type RawRow } from './record-columns';
import type { RecordReads } from './record-reads';
import type { PageQuery, Scope } from './record-scope';
import { localeShape, projectionShape, resourceShape } from './record-shapes';
import { pageSegments, type Segment } from './segments';
import { applyCondition, applyFilter, applyNullness, applyOrder } from './sql';

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
export const readPage = async (
  reads: RecordReads,
  projection: Projection,
  query: PageQuery,
): Promise<{ rows: RecordRow[]; hasMore: boolean }> => {
  const { models, knex, run, client, columns, baseQuery } = reads;
  const { earlierRows, relationOwners } = reads.visibility;
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
        for (const filter of query.filters) applyFilter(builder, filter, keys, qualified(model, 'id'), owners, client());
        if (segment.leadIsNull !== undefined) applyNullness(builder, leadKey.column, segment.leadIsNull, client());
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
    const selected = columns(query.shown ?? projection, model, sortFields, query.status);
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
};

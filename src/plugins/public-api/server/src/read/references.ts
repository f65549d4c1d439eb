/**
 * The references of records: the targets their relation fields link that a read may see
 * (read/visibility.ts), one query per field whatever the number of owners, each owner's list cut in SQL
 * (read/first-links.ts); and which of some documents a record links already, for a write.
 */
import type { Knex } from 'knex';
import type { Projection } from '../grants/projection';
import type { ReadStatus } from '../query/types';
import type { Related, TargetRef } from '../serialize/rows';
import { readAll } from '../database/connection';
import { REFERENCE_LIST_CAP } from '../fields/types/relation';
import { allLinks, cutDocuments, cutLinks, firstPerDocument, shortOwners } from './first-links';
import { qualified, type RawRow } from './record-columns';
import type { RecordReads } from './record-reads';
import { localeShape, resourceShape } from './record-shapes';

/**
 * References of every visible relation field: one query per field, whatever the number of owners.
 * Each target document appears once per owner (see `visibleLinks`), in the relation's order. For reads
 * the SQL returns an owner's list cut one past the cap (REFERENCE_LIST_CAP, read/first-links.ts),
 * enough for the serializer to see that it was cut; `whole` returns every reference (a write that
 * replaces a list the key may not read disconnects all of it).
 */
export const readReferences = async (
  reads: RecordReads,
  projection: Projection,
  rowIds: number[],
  fields: string[],
  language: string | null,
  whole = false,
  status?: ReadStatus,
  fallback: readonly string[] = [],
): Promise<Related<TargetRef>> => {
  const { models, knex, run, client } = reads;
  const { visibleLinks, joinTargets, applyVisibility } = reads.visibility;
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
                client(),
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
};

/**
 * Which of `documentIds` the record's relation `field` links, as reads see links (visible targets,
 * in `language`): how a write that adds and removes references learns what is linked already, one
 * indexed lookup whatever the length of the stored list.
 */
export const linkedAmong = async (
  reads: RecordReads,
  projection: Projection,
  rowId: number,
  field: string,
  documentIds: string[],
  language: string | null,
): Promise<Set<string>> => {
  const join = reads.models(projection.resource.uid).relations[field];
  const target = projection.targets.get(field);
  if (!join || !target) throw new Error(`No relation '${field}' on ${projection.resource.uid}.`);
  if (documentIds.length === 0) return new Set();
  const { builder, targetModel } = reads.visibility.visibleLinks(join, target, language);
  const documentId = qualified(targetModel, 'document_id');
  const raws = (await builder.distinct({ documentId }).where(`j.${join.ownerColumn}`, rowId).whereIn(documentId, documentIds)) as RawRow[];
  return new Set(raws.map((raw) => String(raw.documentId)));
};

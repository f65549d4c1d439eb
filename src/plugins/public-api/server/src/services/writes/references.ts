/**
 * The relation fields of a write -> the value Strapi is given for each: every reference resolved to a
 * record this key may read, in the write's language, or a 422 problem per reference that names none.
 */
import { allows } from '../../grants/projection';
import { REFERENCE_LIST_CAP } from '../../fields/types/relation';
import { apiError, errorObject, type ErrorObject } from '../../http/errors';
import { echo } from '../../query/problems';
import type { Resource } from '../../registry/types';
import { getService } from '../../utils/get-service';
import type { PlannedField, RelationRef } from '../../write/attributes';
import { targetLocale, type WriteTarget } from './target';

/**
 * The value Strapi is given for a relation field: the links reads show (`current`, on updates) are
 * disconnected and the list is connected in its order, or nothing at all when the list is the one
 * reads show. Not a `set`: Strapi links every version of a record on its own (each language, draft
 * and published), and a `set` would also drop the links reads do not show, those of other languages
 * (a building relates to each language version of an event separately) and those to another website's
 * records, which this key must not be able to touch.
 */
const relationValue = (field: PlannedField, targets: string[], current: string[] | null, locale: string | null): unknown => {
  if (current && current.length === targets.length && current.every((documentId, index) => documentId === targets[index])) return undefined;
  const ref = (documentId: string) => (locale ? { documentId, locale } : { documentId });
  const many = field.field.type === 'relations';
  return {
    disconnect: (current ?? []).map(ref),
    connect: targets.map((documentId) => (many ? { ...ref(documentId), position: { end: true } } : ref(documentId))),
  };
};

/** What reads show now of the relation fields written, by field: target documentIds in order. */
const currentReferences = async (target: WriteTarget, planned: PlannedField[], rowId: number): Promise<Map<string, string[]>> => {
  const fields = planned.filter((entry) => entry.planned.kind === 'relation').map((entry) => entry.field.key);
  if (fields.length === 0) return new Map();
  const related = await getService('records').relations(target.projection, [rowId], fields, target.language, true);
  return new Map(fields.map((field) => [field, (related.get(field)?.get(rowId) ?? []).map((ref) => ref.documentId)]));
};

/**
 * A write never drops references a read did not show (contract section 13): a to-many list sent for a
 * field whose stored list is longer than reads show is 409. Only fields the key may read are checked, so
 * the refusal never tells what a field the key cannot read holds.
 */
const refuseCutLists = (target: WriteTarget, planned: PlannedField[], current: Map<string, string[]>): void => {
  for (const entry of planned) {
    if (entry.planned.kind !== 'relation' || entry.field.type !== 'relations') continue;
    if (!target.projection.readable.some((field) => field.key === entry.field.key)) continue;
    if ((current.get(entry.field.key)?.length ?? 0) <= REFERENCE_LIST_CAP) continue;
    throw apiError(
      409,
      `'${entry.field.key}' holds more than the ${REFERENCE_LIST_CAP} references reads show, so a whole list would drop references no read showed. Change its links from the target records, through the inverse relation where there is one.`,
      { source: { pointer: entry.pointer }, reason: 'relation_list_truncated' },
    );
  }
};

/**
 * Relation fields -> Strapi's value for each (see `relationValue`), or a 422 per reference that names
 * no target. `rowId`: the record's published row, on updates.
 */
export const resolveRelations = async (target: WriteTarget, planned: PlannedField[], problems: ErrorObject[], rowId: number | null) => {
  const data: Record<string, unknown> = {};
  const current = rowId === null ? null : await currentReferences(target, planned, rowId);
  if (current) refuseCutLists(target, planned, current);
  const byTarget = new Map<Resource, { field: PlannedField; refs: RelationRef[] }[]>();
  for (const entry of planned) {
    if (entry.planned.kind !== 'relation') continue;
    const resource = target.projection.targets.get(entry.field.key)!;
    const refs = entry.planned.refs;
    if (refs.length > 0 && !allows(target.key.grants, resource.id, 'read')) {
      problems.push(
        errorObject(422, `'${entry.field.key}' refers to ${resource.slug} records, which this key may not read.`, {
          source: { pointer: entry.pointer },
          reason: 'target_not_readable',
        }),
      );
      continue;
    }
    const list = byTarget.get(resource) ?? [];
    list.push({ field: entry, refs });
    byTarget.set(resource, list);
  }
  for (const [resource, entries] of byTarget) {
    const locale = targetLocale(target, resource);
    const values = [...new Set(entries.flatMap(({ refs }) => refs.map((ref) => ref.value)))];
    const found = await getService('records').identify(resource, values, { locale });
    const bySlug = new Map(found.filter((row) => row.slug !== null).map((row) => [row.slug!, row]));
    const byId = new Map(found.map((row) => [row.documentId, row]));
    for (const { field, refs } of entries) {
      const targets: string[] = [];
      for (const ref of refs) {
        const row =
          ref.by === 'slug'
            ? bySlug.get(ref.value)
            : ref.by === 'id'
              ? byId.get(ref.value)
              : (bySlug.get(ref.value) ?? byId.get(ref.value));
        if (!row || (ref.alsoSlug !== undefined && row.slug !== ref.alsoSlug)) {
          problems.push(
            errorObject(
              422,
              `No ${resource.slug} record ${echo(ref.alsoSlug ? `${ref.value} (${ref.alsoSlug})` : ref.value)} exists for this reference.`,
              {
                source: { pointer: ref.pointer },
                reason: 'target_not_found',
              },
            ),
          );
          continue;
        }
        if (targets.includes(row.documentId)) {
          problems.push(
            errorObject(422, `This ${resource.slug} record is already referenced above.`, {
              source: { pointer: ref.pointer },
              reason: 'target_repeated',
            }),
          );
          continue;
        }
        targets.push(row.documentId);
      }
      const value = relationValue(field, targets, current?.get(field.field.key) ?? null, locale);
      if (value !== undefined) data[field.field.key] = value;
    }
  }
  return data;
};

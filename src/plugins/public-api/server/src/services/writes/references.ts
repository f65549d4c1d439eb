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
import { planListChange, type NamedTarget } from '../../write/list-change';
import { targetLocale, type WriteTarget } from './target';
import { isToMany } from '../../fields/items';

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
  const many = isToMany(field.field);
  return {
    disconnect: (current ?? []).map(ref),
    connect: targets.map((documentId) => (many ? { ...ref(documentId), position: { end: true } } : ref(documentId))),
  };
};

/**
 * What reads show now of the whole lists written, by field: target documentIds in order. A field the key
 * may read is read as reads show it, cut one past the cap: a longer list is refused (`refuseCutLists`)
 * before its links would be needed. A field the key may write but not read is replaced whole, so all its
 * visible links are read, to be disconnected.
 */
const currentReferences = async (target: WriteTarget, planned: PlannedField[], rowId: number): Promise<Map<string, string[]>> => {
  const fields = planned.filter((entry) => entry.planned.kind === 'relation').map((entry) => entry.field.key);
  const readable = (field: string) => target.projection.readable.some((candidate) => candidate.key === field);
  const current = new Map<string, string[]>();
  for (const [shown, whole] of [
    [fields.filter(readable), false],
    [fields.filter((field) => !readable(field)), true],
  ] as const) {
    if (shown.length === 0) continue;
    const related = await getService('records').relations(target.projection, [rowId], shown, target.language, whole);
    for (const field of shown)
      current.set(
        field,
        (related.get(field)?.get(rowId) ?? []).map((ref) => ref.documentId),
      );
  }
  return current;
};

/**
 * A write never drops references a read did not show (contract section 13): a to-many list sent for a
 * field whose stored list is longer than reads show is 409; `{ "add": [...], "remove": [...] }` changes
 * such a list. Only fields the key may read are checked, so the refusal never tells what a field the key
 * cannot read holds.
 */
const refuseCutLists = (target: WriteTarget, planned: PlannedField[], current: Map<string, string[]>): void => {
  for (const entry of planned) {
    if (entry.planned.kind !== 'relation' || !isToMany(entry.field)) continue;
    if (!target.projection.readable.some((field) => field.key === entry.field.key)) continue;
    if ((current.get(entry.field.key)?.length ?? 0) <= REFERENCE_LIST_CAP) continue;
    throw apiError(
      409,
      `'${entry.field.key}' holds more than the ${REFERENCE_LIST_CAP} references reads show, so a whole list would drop references no read showed. Send the change instead: { "add": [...], "remove": [...] }.`,
      { source: { pointer: entry.pointer }, reason: 'relation_list_truncated' },
    );
  }
};

/** A new record has no list to change: a create takes whole lists (422 at each change sent). */
export const listChangesOnCreate = (planned: PlannedField[]): ErrorObject[] =>
  planned
    .filter((entry) => entry.planned.kind === 'relationChanges')
    .map((entry) =>
      errorObject(422, `A new record has no '${entry.field.key}' list to change: send the whole list, an array of references.`, {
        source: { pointer: entry.pointer },
        reason: 'value_invalid',
      }),
    );

type Found = { rowId: number; documentId: string; slug: string | null };

/** Resolves references to target documents by id or slug, as plain lists and changes alike name them. */
export const resolver = (resource: Resource, found: Found[], problems: ErrorObject[]) => {
  const bySlug = new Map(found.filter((row) => row.slug !== null).map((row) => [row.slug!, row]));
  const byId = new Map(found.map((row) => [row.documentId, row]));
  return (ref: RelationRef): string | null => {
    const row =
      ref.by === 'slug' ? bySlug.get(ref.value) : ref.by === 'id' ? byId.get(ref.value) : (bySlug.get(ref.value) ?? byId.get(ref.value));
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
      return null;
    }
    return row.documentId;
  };
};

const namedRefs = (planned: PlannedField['planned']): RelationRef[] => {
  if (planned.kind === 'relation') return planned.refs;
  if (planned.kind === 'relationChanges') return [...planned.add, ...planned.remove];
  return [];
};

/**
 * Relation fields -> Strapi's value for each (see `relationValue`, `changeValue`), or a 422 per reference
 * that names no target. `rowId`: the record's published row, on updates.
 */
export const resolveRelations = async (target: WriteTarget, planned: PlannedField[], problems: ErrorObject[], rowId: number | null) => {
  const data: Record<string, unknown> = {};
  const current = rowId === null ? null : await currentReferences(target, planned, rowId);
  if (current) refuseCutLists(target, planned, current);
  const byTarget = new Map<Resource, PlannedField[]>();
  for (const entry of planned) {
    if (entry.planned.kind !== 'relation' && entry.planned.kind !== 'relationChanges') continue;
    const resource = target.projection.targets.get(entry.field.key)!;
    if (namedRefs(entry.planned).length > 0 && !allows(target.key.grants, resource.id, 'read')) {
      problems.push(
        errorObject(422, `'${entry.field.key}' refers to ${resource.slug} records, which this key may not read.`, {
          source: { pointer: entry.pointer },
          reason: 'target_not_readable',
        }),
      );
      continue;
    }
    byTarget.set(resource, [...(byTarget.get(resource) ?? []), entry]);
  }
  for (const [resource, entries] of byTarget) {
    const locale = targetLocale(target, resource);
    const values = [...new Set(entries.flatMap((entry) => namedRefs(entry.planned).map((ref) => ref.value)))];
    const resolve = resolver(resource, await getService('records').identify(resource, values, { locale }), problems);
    for (const field of entries) {
      const value =
        field.planned.kind === 'relationChanges'
          ? await changeValue(target, field, resource, field.planned, resolve, problems, rowId, locale)
          : relationValue(
              field,
              listTargets(resource, field.planned.kind === 'relation' ? field.planned.refs : [], resolve, problems),
              current?.get(field.field.key) ?? null,
              locale,
            );
      if (value !== undefined) data[field.field.key] = value;
    }
  }
  return data;
};

/** A whole list's references -> target documents in order, a 422 per reference naming none or one named above. */
export const listTargets = (
  resource: Resource,
  refs: RelationRef[],
  resolve: (ref: RelationRef) => string | null,
  problems: ErrorObject[],
) => {
  const targets: string[] = [];
  for (const ref of refs) {
    const documentId = resolve(ref);
    if (documentId === null) continue;
    if (targets.includes(documentId)) {
      problems.push(
        errorObject(422, `This ${resource.slug} record is already referenced above.`, {
          source: { pointer: ref.pointer },
          reason: 'target_repeated',
        }),
      );
      continue;
    }
    targets.push(documentId);
  }
  return targets;
};

/**
 * The value Strapi is given for `{ "add": [...], "remove": [...] }`: the added records not linked yet are
 * connected at the end, in order; the removed records linked now are disconnected; nothing when neither
 * changes anything. Only the links named are looked up (write/list-change.ts), never the stored list, so
 * a list of any length is changed at the cost of the change.
 */
const changeValue = async (
  target: WriteTarget,
  field: PlannedField,
  resource: Resource,
  change: { add: RelationRef[]; remove: RelationRef[] },
  resolve: (ref: RelationRef) => string | null,
  problems: ErrorObject[],
  rowId: number | null,
  locale: string | null,
): Promise<unknown> => {
  const named = (refs: RelationRef[]): NamedTarget[] =>
    refs.flatMap((ref) => {
      const documentId = resolve(ref);
      return documentId === null ? [] : [{ documentId, pointer: ref.pointer }];
    });
  const add = named(change.add);
  const remove = named(change.remove);
  if (add.length + remove.length < change.add.length + change.remove.length) return undefined;
  // Creates refuse changes before anything is resolved (listChangesOnCreate): there is a stored row here.
  if (rowId === null) throw new Error(`A change of '${field.field.key}' reached a create.`);
  const documentIds = [...new Set([...add, ...remove].map((entry) => entry.documentId))];
  const linked = await getService('records').linkedAmong(target.projection, rowId, field.field.key, documentIds, target.language);
  const planned = planListChange(linked, add, remove, resource.slug);
  for (const problem of planned.problems) {
    problems.push(errorObject(422, problem.detail, { source: { pointer: problem.pointer }, reason: problem.reason }));
  }
  if (planned.problems.length || (planned.connect.length === 0 && planned.disconnect.length === 0)) return undefined;
  const ref = (documentId: string) => (locale ? { documentId, locale } : { documentId });
  return {
    disconnect: planned.disconnect.map(ref),
    connect: planned.connect.map((documentId) => ({ ...ref(documentId), position: { end: true } })),
  };
};

/**
 * Local ids (`lid`) in references (contract section 17): a record added earlier in the same atomic request
 * is referred to as `{ "lid": "e1" }` wherever a reference `{ "id" }` is accepted (a to-one value, an item
 * of a list, an item of `add`/`remove`). Each is replaced by the reference the single write reads, so the
 * record is then judged and resolved exactly as one named by id. Pure.
 */
import { errorObject, type ErrorObject } from '../http/errors';
import { echo } from '../values/echo';
import { LIST_CHANGE_MEMBERS } from '../fields/types/relation';
import { attributePointer } from './pointer';

/** What a lid names: the record an earlier operation added, and the resource it belongs to. */
export type LocalRecord = { resourceId: string; resourceSlug: string; documentId: string };

/** A relation field the key may write: its name and the resource its references name. */
export type RelationTarget = { key: string; resourceId: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The attributes with every lid reference of a relation field replaced by `{ ...rest, id }`; a 422
 * problem per lid that names no record added before, or a record of another resource than the field's.
 */
export const resolveLocalIds = (
  attributes: Record<string, unknown>,
  relations: readonly RelationTarget[],
  lids: ReadonlyMap<string, LocalRecord>,
): { attributes: Record<string, unknown>; problems: ErrorObject[] } => {
  const problems: ErrorObject[] = [];
  const resolved: Record<string, unknown> = { ...attributes };

  const reference = (field: RelationTarget, raw: unknown, path: (string | number)[]): unknown => {
    if (!isObject(raw) || !Object.hasOwn(raw, 'lid')) return raw;
    const { lid, ...rest } = raw;
    const at = attributePointer(field.key, ...path, 'lid');
    if (typeof lid !== 'string' || lid === '') {
      problems.push(errorObject(422, 'A `lid` is a non-empty string.', { source: { pointer: at }, reason: 'value_invalid' }));
      return raw;
    }
    if (rest.id !== undefined) {
      problems.push(
        errorObject(422, 'A reference names its record by `id` or by `lid`, not both.', {
          source: { pointer: at },
          reason: 'value_invalid',
        }),
      );
      return raw;
    }
    const record = lids.get(lid);
    if (!record) {
      problems.push(
        errorObject(422, `No earlier operation of this request adds a record with the lid ${echo(lid)}.`, {
          source: { pointer: at },
          reason: 'lid_unknown',
        }),
      );
      return raw;
    }
    if (record.resourceId !== field.resourceId) {
      problems.push(
        errorObject(422, `The lid ${echo(lid)} names a ${record.resourceSlug} record, which '${field.key}' does not refer to.`, {
          source: { pointer: at },
          reason: 'target_not_found',
        }),
      );
      return raw;
    }
    return { ...rest, id: record.documentId };
  };

  const list = (field: RelationTarget, raw: unknown, path: (string | number)[]): unknown =>
    Array.isArray(raw) ? raw.map((item, index) => reference(field, item, [...path, index])) : raw;

  for (const field of relations) {
    if (!Object.hasOwn(attributes, field.key)) continue;
    const value = attributes[field.key];
    if (Array.isArray(value)) resolved[field.key] = list(field, value, []);
    else if (isObject(value) && LIST_CHANGE_MEMBERS.some((member) => Object.hasOwn(value, member)) && !Object.hasOwn(value, 'lid')) {
      resolved[field.key] = Object.fromEntries(
        Object.entries(value).map(([member, items]) =>
          (LIST_CHANGE_MEMBERS as readonly string[]).includes(member) ? [member, list(field, items, [member])] : [member, items],
        ),
      );
    } else resolved[field.key] = reference(field, value, []);
  }
  return { attributes: resolved, problems };
};

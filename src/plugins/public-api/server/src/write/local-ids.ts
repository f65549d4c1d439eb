/**
 * Local ids (`lid`) in references (contract section 17): a record added earlier in the same atomic request
 * is referred to as `{ "lid": "e1" }` wherever a reference `{ "id" }` is accepted (a to-one value, an item
 * of a list, an item of `add`/`remove`), at the top or inside component values. Each is replaced by the
 * reference the single write reads, so the record is then judged and resolved exactly as one named by id.
 * Pure.
 */
import { errorObject, type ErrorObject } from '../http/errors';
import { echo } from '../values/echo';
import { LIST_CHANGE_MEMBERS } from '../fields/types/relation';
import { pointer } from './pointer';
import { hasSections, isToMany } from '../fields/items';
import type { FieldType } from '../registry/types';

/** What a lid names: the record an earlier operation added, and the resource it belongs to. */
export type LocalRecord = { resourceId: string; resourceSlug: string; documentId: string };

/** A relation field the key may write: its name and the resource its references name. */
export type RelationTarget = { key: string; resourceId: string };

/**
 * Where lids may stand in an object of attributes: its relation fields, and its component fields, whose
 * values hold attributes of their own (by component uid: a dynamic zone's items name theirs in `type`).
 */
export type LidSites = { relations: readonly RelationTarget[]; components: readonly ComponentSites[] };
export type ComponentSites = {
  key: string;
  type: FieldType;
  components: ReadonlyMap<string, LidSites>;
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The attributes with every lid reference of a relation field replaced by `{ ...rest, id }`, inside
 * component values too; a 422 problem per lid that names no record added before, or a record of another
 * resource than the field's. A value of the wrong shape is left as it is, for the write to refuse.
 */
export const resolveLocalIds = (
  attributes: Record<string, unknown>,
  sites: LidSites,
  lids: ReadonlyMap<string, LocalRecord>,
): { attributes: Record<string, unknown>; problems: ErrorObject[] } => {
  const problems: ErrorObject[] = [];

  const reference = (field: RelationTarget, raw: unknown, path: (string | number)[]): unknown => {
    if (!isObject(raw) || !Object.hasOwn(raw, 'lid')) return raw;
    const { lid, ...rest } = raw;
    const at = pointer('data', 'attributes', ...path, 'lid');
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

  const relationValue = (field: RelationTarget, value: unknown, path: (string | number)[]): unknown => {
    if (Array.isArray(value)) return list(field, value, path);
    if (isObject(value) && LIST_CHANGE_MEMBERS.some((member) => Object.hasOwn(value, member)) && !Object.hasOwn(value, 'lid')) {
      return Object.fromEntries(
        Object.entries(value).map(([member, items]) =>
          (LIST_CHANGE_MEMBERS as readonly string[]).includes(member) ? [member, list(field, items, [...path, member])] : [member, items],
        ),
      );
    }
    return reference(field, value, path);
  };

  /** One component value's attributes, at `path` (the path of the attributes object). */
  const inComponent = (value: unknown, inner: LidSites | undefined, path: (string | number)[]): unknown =>
    inner && isObject(value) ? inObject(value, inner, path) : value;

  const componentValue = (field: ComponentSites, value: unknown, path: (string | number)[]): unknown => {
    if (!isToMany(field)) return inComponent(value, [...field.components.values()][0], path);
    if (!Array.isArray(value)) return value;
    if (!hasSections(field)) {
      const inner = [...field.components.values()][0];
      return value.map((item, index) => inComponent(item, inner, [...path, index]));
    }
    return value.map((item, index) => {
      if (!isObject(item) || typeof item.type !== 'string' || !Object.hasOwn(item, 'attributes')) return item;
      return { ...item, attributes: inComponent(item.attributes, field.components.get(item.type), [...path, index, 'attributes']) };
    });
  };

  const inObject = (object: Record<string, unknown>, where: LidSites, path: (string | number)[]): Record<string, unknown> => {
    const resolved: Record<string, unknown> = { ...object };
    for (const field of where.relations) {
      if (Object.hasOwn(object, field.key)) resolved[field.key] = relationValue(field, object[field.key], [...path, field.key]);
    }
    for (const field of where.components) {
      if (Object.hasOwn(object, field.key)) resolved[field.key] = componentValue(field, object[field.key], [...path, field.key]);
    }
    return resolved;
  };

  return { attributes: inObject(attributes, sites, []), problems };
};

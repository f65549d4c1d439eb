/**
 * A write's component values -> the data Strapi's document service takes for them (contract section 15).
 * Pure: the values inside that need the database (relation targets, assets, richtext images) are handed
 * in resolved, by `valueOf`.
 *
 * Strapi takes a component as an object of its fields, a repeatable component as an array of them, and a
 * dynamic zone as an array whose items name their component in `__component`. An item without an `id`
 * is a new component value: Strapi deletes the field's old values and creates these, so a write replaces
 * the field whole (the `id`s of stored values are never sent: they are not the API's).
 */
import type { PlannedComponent, PlannedMember } from '../fields/codec';
import type { Field } from '../registry/types';
import { itemDataOf, valueOfItems } from '../fields/items';

/** A value planned inside a component value, and the component (uid) whose field it is. */
export type NestedMember = { member: PlannedMember; component: string };

/** Every value planned inside component values, at any depth (not the component values themselves), depth first. */
export const nestedMembers = (planned: readonly PlannedMember[]): NestedMember[] => {
  const found: NestedMember[] = [];
  const walk = (members: readonly PlannedMember[], component: string | null) => {
    for (const member of members) {
      if (member.planned.kind === 'components') for (const item of member.planned.items) walk(item.members, item.component);
      else if (component !== null) found.push({ member, component });
    }
  };
  walk(planned, null);
  return found;
};

/**
 * The data of a component field: each item's fields, nested components in turn, the others as `valueOf`
 * gives them (undefined leaves a field out).
 */
export const componentData = (
  field: Pick<Field, 'type'>,
  items: readonly PlannedComponent[],
  valueOf: (member: PlannedMember) => unknown,
) => {
  const values = items.map((item) => {
    const data: Record<string, unknown> = itemDataOf(field, item.component);
    for (const member of item.members) {
      const value = member.planned.kind === 'components' ? componentData(member.field, member.planned.items, valueOf) : valueOf(member);
      if (value !== undefined) data[member.field.key] = value;
    }
    return data;
  });
  return valueOfItems(field, values);
};

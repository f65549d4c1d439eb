/**
 * What a field's value is made of, asked of its codec (./table.ts) rather than of its type's name: whether
 * it holds many items, whether it links records or holds component rows, and for component fields how
 * an item names its component and holds its attributes. The read path, the writes, the cache tags and the
 * atomic operations use these; no module outside fields/ compares field-type names (eslint.config.mjs).
 * Pure.
 */
import type { Field } from '../registry/types';
import { codecOf, isStoredIn } from './table';

type Typed = Pick<Field, 'type'>;

/** Whether the value is a list of items (to-many relations, media lists, repeatable components, dynamic zones). */
export const isToMany = (field: Typed): boolean => {
  const codec = codecOf(field);
  return codec.storage !== 'column' && codec.cardinality === 'many';
};

/** Whether the value links records of another resource (`relation`, `relations`). */
export const isRelationField = (field: Typed): boolean => isStoredIn(field, 'relation');

/** Whether the value is component rows (`component`, `components`, `dynamiczone`). */
export const isComponentField = (field: Typed): boolean => isStoredIn(field, 'component');

/** Whether the value is a richtext document (stored as Strapi's blocks, read and written as a document). */
export const isRichtextField = (field: Typed): boolean => codecOf(field).type === 'richtext';

/** Whether each item is a section naming its own component (a dynamic zone), not an item of the field's one component. */
export const hasSections = (field: Typed): boolean => {
  const codec = codecOf(field);
  return codec.storage === 'component' && codec.sections;
};

/**
 * The component uid of one item: a section's own (`named`: its `type` on reads and writes, its row's
 * component type in the database), any other item's the field's one component.
 */
export const itemComponentOf = <N>(field: Typed & { components?: readonly { uid: string }[] }, named: N): N | string | undefined =>
  hasSections(field) ? named : field.components?.[0]?.uid;

/** One item's attributes as records show and writes send it: a section's `attributes`, any other item itself. */
export const itemAttributesOf = (field: Typed, item: Record<string, unknown>): unknown => (hasSections(field) ? item.attributes : item);

/** Strapi's data of one item before its fields: a section names its component in `__component`. */
export const itemDataOf = (field: Typed, component: string): Record<string, unknown> =>
  hasSections(field) ? { __component: component } : {};

/** A field's value of its items' values: a to-one field's is its one item (or null), a list's the list. */
export const valueOfItems = <T>(field: Typed, items: T[]): T | T[] | null => (isToMany(field) ? items : (items[0] ?? null));

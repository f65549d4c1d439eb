/**
 * Component fields (contract section 15): `component` (one component value, an object of its own
 * attributes), `components` (a repeatable component: a list of them) and `dynamiczone` (a list of values
 * of several components, each `{ "type": "<category>.<name>", "attributes": { ... } }`). A component's own
 * fields are typed by the same table as a resource's; the reads hand each type its items already read
 * out, in order. Writes take the same shapes back (./component-input.ts). Pure.
 */
import type { Field, StrapiAttribute } from '../../registry/types';
import type { ComponentCodec, ComponentItem, DetailsContext, FieldDetails } from '../codec';
import { MAX_COMPONENT_VALUES, parseComponentWrite, parseDynamicZoneWrite, parseRepeatableWrite } from './component-input';

/** The components a component attribute's items may be, as the API shows them; null when none shows anything. */
const componentsOf = (uids: readonly string[], context: DetailsContext): FieldDetails | null => {
  const components = uids.map((uid) => context.component(uid)).filter((component) => component !== null);
  return components.length ? { components } : null;
};

const base = {
  storage: 'component',
  scalar: false,
  filter: () => null,
  sortKind: 'text',
  sortable: () => false,
} as const;

const single = (field: Field) => field.components![0]!;

const isComponent = (attribute: StrapiAttribute, repeatable: boolean) =>
  attribute.type === 'component' && typeof attribute.component === 'string' && (attribute.repeatable === true) === repeatable;

export const component: ComponentCodec = {
  ...base,
  type: 'component',
  cardinality: 'one',
  sections: false,
  accepts: (attribute) => isComponent(attribute, false),
  details: (attribute, context) => componentsOf([attribute.component!], context),
  serialize: (items) => items[0]?.attributes ?? null,
  parseWrite: parseComponentWrite,
  readSchema: (field, kit) => ({ schema: kit.component(single(field)), nullable: 'unless-required' }),
  writeSchema: (field, kit) => ({ schema: kit.componentInput(single(field)), nullable: 'unless-required' }),
};

export const components: ComponentCodec = {
  ...base,
  type: 'components',
  cardinality: 'many',
  sections: false,
  accepts: (attribute) => isComponent(attribute, true),
  details: (attribute, context) => componentsOf([attribute.component!], context),
  serialize: (items) => items.map((item) => item.attributes),
  parseWrite: parseRepeatableWrite,
  readSchema: (field, kit) => ({ schema: { type: 'array', items: kit.component(single(field)) }, nullable: 'never' }),
  writeSchema: (field, kit) => ({
    schema: {
      type: 'array',
      items: kit.componentInput(single(field)),
      maxItems: MAX_COMPONENT_VALUES,
      description: `The whole list, in order; null is the empty list. At most ${MAX_COMPONENT_VALUES} component values in all, nested ones included.`,
    },
    nullable: 'always',
  }),
};

/** A dynamic zone item as records show it. */
export type DynamicZoneItem = { type: string; attributes: Record<string, unknown> };

const zoneItem = (item: ComponentItem): DynamicZoneItem => ({ type: item.component, attributes: item.attributes });

export const dynamiczone: ComponentCodec = {
  ...base,
  type: 'dynamiczone',
  cardinality: 'many',
  sections: true,
  accepts: (attribute) => attribute.type === 'dynamiczone' && Array.isArray(attribute.components),
  details: (attribute, context) => componentsOf(attribute.components ?? [], context),
  serialize: (items) => items.map(zoneItem),
  parseWrite: parseDynamicZoneWrite,
  readSchema: (field, kit) => ({ schema: { type: 'array', items: kit.dynamicZoneItem(field) }, nullable: 'never' }),
  writeSchema: (field, kit) => ({
    schema: {
      type: 'array',
      items: kit.dynamicZoneItemInput(field),
      maxItems: MAX_COMPONENT_VALUES,
      description: `The whole zone, in order; null is the empty zone. At most ${MAX_COMPONENT_VALUES} component values in all, nested ones included.`,
    },
    nullable: 'always',
  }),
};

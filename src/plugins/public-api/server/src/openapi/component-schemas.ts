/**
 * Components and dynamic zones in the document (contract section 15): each component's value schema is
 * written once under components/schemas (`Component.<Category>.<Name>`), and a dynamic zone's item is a
 * `oneOf` of its components' items (`Component.<Category>.<Name>.Item`: `{ type, attributes }`) with a
 * discriminator on `type`, so that generators (openapi-typescript) type a zone as a discriminated union.
 *
 * A component's relations lead where its owner's do (the same website's resource first), so the schema
 * depends on the owner only through the targets of its relations: owners that resolve them alike share
 * one schema, and one that resolves them otherwise gets its own (`_2`, ...).
 */
import type { Projection } from '../grants/projection';
import type { ComponentSchema, Field } from '../registry/types';
import type { Components } from './document-components';
import type { DocumentContext } from './context';
import { pascal } from './names';
import { object } from './schema';
import type { Ref, Schema } from './types';

/** Per document: component uid -> the schema names given out, by what the component's relations lead to. */
const given = new WeakMap<Components, Map<string, Map<string, string>>>();

/** What a component's schema depends on besides its uid: where its relations (nested ones too) lead. */
const targetsSignature = (projection: Projection): string => {
  const seen = new Set<string>();
  const parts: string[] = [];
  const walk = (current: Projection) => {
    if (seen.has(current.resource.uid)) return;
    seen.add(current.resource.uid);
    for (const [key, target] of current.targets) parts.push(`${current.resource.uid}.${key}>${target.id}`);
    for (const field of current.readable) for (const inner of field.components ?? []) walk(current.components.get(inner.uid)!);
  };
  walk(projection);
  return parts.join(',');
};

/** `Component.<Category>.<Name>`: resources' names never hold a dot, so the two cannot meet. */
const baseName = (component: ComponentSchema): string => `Component.${pascal(component.category)}.${pascal(component.name)}`;

/** The name of a component's value schema as read from `projection` (the component's projection); inputs add to it. */
export const componentSchemaName = (context: DocumentContext, projection: Projection, component: ComponentSchema): string => {
  let byUid = given.get(context.components);
  if (!byUid) given.set(context.components, (byUid = new Map()));
  let bySignature = byUid.get(component.uid);
  if (!bySignature) byUid.set(component.uid, (bySignature = new Map()));
  const signature = targetsSignature(projection);
  let name = bySignature.get(signature);
  if (!name) {
    name = bySignature.size === 0 ? baseName(component) : `${baseName(component)}_${bySignature.size + 1}`;
    bySignature.set(signature, name);
  }
  return name;
};

export type FieldSchemaOf = (projection: Projection, field: Field) => Schema;

/**
 * The value schema of `component` as read from `owner`'s projection: every field the key sees of it,
 * always present (a component value is shown whole).
 */
export const componentSchema = (
  context: DocumentContext,
  owner: Projection,
  component: ComponentSchema,
  fieldSchema: FieldSchemaOf,
): Ref => {
  const projection = owner.components.get(component.uid)!;
  return context.components.schema(componentSchemaName(context, projection, component), () =>
    object(Object.fromEntries(projection.readable.map((field) => [field.key, fieldSchema(projection, field)])), undefined, {
      title: component.label,
      description: component.description ? `${component.label}: ${component.description}` : `The component ${component.uid}.`,
    }),
  );
};

/** One item of a dynamic zone: its component's uid as `type`, its value as `attributes`. */
const zoneItemSchema = (context: DocumentContext, owner: Projection, component: ComponentSchema, fieldSchema: FieldSchemaOf): Ref => {
  const value = componentSchema(context, owner, component, fieldSchema);
  return context.components.schema(`${value.$ref.slice(value.$ref.lastIndexOf('/') + 1)}.Item`, () =>
    object(
      {
        type: { type: 'string', const: component.uid, description: 'The component: `<category>.<name>`.' },
        attributes: value,
      },
      undefined,
      { description: `A ${component.label} section of a dynamic zone.` },
    ),
  );
};

/** A dynamic zone's item: one of its components' items, told apart by `type`. */
export const dynamicZoneItemSchema = (context: DocumentContext, owner: Projection, field: Field, fieldSchema: FieldSchemaOf): Schema => {
  const items = (field.components ?? []).map(
    (component) => [component.uid, zoneItemSchema(context, owner, component, fieldSchema)] as const,
  );
  return {
    oneOf: items.map(([, ref]) => ref),
    discriminator: { propertyName: 'type', mapping: Object.fromEntries(items.map(([uid, ref]) => [uid, ref.$ref])) },
  };
};

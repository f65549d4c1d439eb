/**
 * Strapi components -> the API's component schemas (contract section 15): each component's fields typed
 * by the same table as a resource's, nested components included. Pure: the component schemas are read by
 * the registry service and handed in as plain data.
 */
import type { DetailsContext } from '../fields/codec';
import { humanize } from '../fields/labels';
import { WEBSITE_UID, toField } from './fields';
import type { ComponentSchema, Field, StrapiAttribute } from './types';

/** A component as Strapi describes it (`strapi.components[uid]`). */
export type StrapiComponentSchema = {
  uid: string;
  category: string;
  info?: { displayName?: string; description?: string };
  attributes: Record<string, StrapiAttribute>;
};

/**
 * Strapi limits nesting in its editor; a schema written by hand could nest deeper or loop. A component
 * this deep is not exposed, so a loop ends rather than recursing forever.
 */
export const MAX_COMPONENT_DEPTH = 8;

/** The component schemas of a set of Strapi components, built once each, nested ones on the way. */
export const componentCatalog = (schemas: ReadonlyMap<string, StrapiComponentSchema>): DetailsContext => {
  const built = new Map<string, ComponentSchema | null>();
  const build = (uid: string, depth: number): ComponentSchema | null => {
    if (built.has(uid)) return built.get(uid)!;
    const schema = schemas.get(uid);
    if (!schema || depth > MAX_COMPONENT_DEPTH) return null;
    const context: DetailsContext = { component: (inner) => build(inner, depth + 1) };
    const fields: Field[] = [];
    for (const [key, attribute] of Object.entries(schema.attributes)) {
      if (attribute.target === WEBSITE_UID) continue;
      // A component value follows its record's row: its own fields are not localized on their own.
      const field = toField(key, attribute, false, undefined, context);
      if (field) fields.push(field);
    }
    const name = uid.slice(uid.indexOf('.') + 1);
    const component: ComponentSchema | null = fields.length
      ? {
          uid,
          category: schema.category,
          name,
          label: schema.info?.displayName?.trim() || humanize(name),
          ...(schema.info?.description ? { description: schema.info.description } : {}),
          fields,
        }
      : null;
    built.set(uid, component);
    return component;
  };
  return { component: (uid) => build(uid, 0) };
};

/**
 * Which content types keep a slug the plugin is responsible for, and within what. Pure.
 */
import { isPluginSlug, slugTargetFieldOf, websiteScopeAttributeOf } from '../registry/fields';
import type { StrapiAttribute } from '../registry/types';

export type SlugDefinition = {
  uid: string;
  /** The string attribute that holds the slug. */
  attribute: string;
  /** The attribute a missing slug is made from. */
  targetField: string | undefined;
  /** The relation to websites: a slug is unique among the records of one website. Undefined: of the content type. */
  scopeAttribute: string | undefined;
  localized: boolean;
};

export type SlugSchema = {
  uid: string;
  pluginOptions?: { i18n?: { localized?: boolean } };
  attributes: Record<string, StrapiAttribute>;
};

/** The plugin slug of a content type (`pluginOptions['public-api'].slug` on a string), or null. */
export const slugDefinitionOf = (schema: SlugSchema): SlugDefinition | null => {
  const found = Object.entries(schema.attributes).find(([, attribute]) => isPluginSlug(attribute));
  if (!found) return null;
  const [attribute, definition] = found;
  return {
    uid: schema.uid,
    attribute,
    targetField: slugTargetFieldOf(definition),
    scopeAttribute: websiteScopeAttributeOf(schema.attributes),
    localized: schema.pluginOptions?.i18n?.localized === true,
  };
};

/**
 * Website-scoped content types whose slug is a Strapi `uid`: Strapi keeps it unique across websites, so a
 * write through one website could learn of another's records. Reported at startup.
 */
export const uidSlugsAcrossWebsites = (schemas: readonly SlugSchema[]): string[] =>
  schemas
    .filter((schema) => websiteScopeAttributeOf(schema.attributes) !== undefined)
    .flatMap((schema) =>
      Object.entries(schema.attributes)
        .filter(([, attribute]) => attribute.type === 'uid')
        .map(([name]) => `${schema.uid}.${name}`),
    );

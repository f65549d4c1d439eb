/**
 * Strapi attributes -> API fields (contract section 2): which type a field has and what it carries is
 * the field-type table's (fields/table.ts); this module adds the registry's own rules (system attributes,
 * private ones, slugs, website scope). Pure.
 */
import { humanize } from '../fields/labels';
import { STRAPI_SYSTEM_ATTRIBUTES } from '../fields/system-keys';
import type { DetailsContext } from '../fields/codec';
import { FIELD_CODECS, fieldTypeOf } from '../fields/table';
import type { Field, StrapiAttribute } from './types';
import { isRelationAttribute } from '../fields/strapi-attributes';

/** Where no component is known (schemas without components): a component field then exposes nothing. */
export const NO_COMPONENTS: DetailsContext = { component: () => null };

export const WEBSITE_UID = 'plugin::public-api.website';

/**
 * A string attribute declared as the record slug with `pluginOptions['public-api'].slug`: the slug of a
 * website-scoped content type. Strapi keeps a `uid` unique per content type, so across websites; this
 * one the plugin keeps unique per website (`slugs/`), whoever writes.
 */
export const isPluginSlug = (attribute: StrapiAttribute): boolean =>
  attribute.type === 'string' && typeof attribute.pluginOptions?.['public-api']?.slug === 'object';

/** The field a slug is made from when a write leaves it empty: a uid's `targetField`, or the plugin slug's. */
export const slugTargetFieldOf = (attribute: StrapiAttribute): string | undefined =>
  attribute.type === 'uid' ? attribute.targetField : attribute.pluginOptions?.['public-api']?.slug?.targetField;

/** The to-one relation that links a content type's records to a website: what scopes them. */
export const websiteScopeAttributeOf = (attributes: Record<string, StrapiAttribute>): string | undefined =>
  Object.entries(attributes).find(
    ([, attribute]) =>
      isRelationAttribute(attribute) &&
      attribute.target === WEBSITE_UID &&
      (attribute.relation === 'manyToOne' || attribute.relation === 'oneToOne'),
  )?.[0];

export const toField = (
  key: string,
  attribute: StrapiAttribute,
  resourceLocalized: boolean,
  label?: string,
  context: DetailsContext = NO_COMPONENTS,
): Field | null => {
  if (STRAPI_SYSTEM_ATTRIBUTES.has(key) || attribute.private) return null;
  const type = fieldTypeOf(attribute);
  if (!type) return null;
  const details = FIELD_CODECS[type].details?.(attribute, context);
  if (details === null) return null;
  return {
    key,
    label: label && label !== key ? label : humanize(key),
    type,
    required: attribute.required === true,
    localized: resourceLocalized && attribute.pluginOptions?.i18n?.localized !== false,
    attribute,
    ...details,
  };
};

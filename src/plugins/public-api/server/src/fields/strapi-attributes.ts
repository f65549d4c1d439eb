/**
 * What a Strapi attribute is, for the modules that read Strapi's schemas directly (the read model's join
 * tables, the change journal's reference paths, the registry's website scope, the admin's content types):
 * Strapi's attribute-type names are field knowledge and stay in fields/ (eslint.config.mjs). Pure.
 */

type AttributeLike = { type?: string; component?: string; components?: readonly string[] };

/** A relation attribute (to records of a content type). */
export const isRelationAttribute = (attribute: AttributeLike): boolean => attribute.type === 'relation';

/** A media attribute (to upload files). */
export const isMediaAttribute = (attribute: AttributeLike): boolean => attribute.type === 'media';

/** The component uids a component or dynamic zone attribute may hold; none for any other attribute. */
export const componentUidsOf = (attribute: AttributeLike): readonly string[] =>
  attribute.type === 'component' && attribute.component
    ? [attribute.component]
    : attribute.type === 'dynamiczone'
      ? (attribute.components ?? [])
      : [];

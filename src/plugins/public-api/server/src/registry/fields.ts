/**
 * Strapi attributes -> API fields (contract section 2). Pure.
 */
import type { Field, FieldType, StrapiAttribute } from './types';

export const TAGS_CUSTOM_FIELD = 'plugin::public-api.tags';
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
      attribute.type === 'relation' &&
      attribute.target === WEBSITE_UID &&
      (attribute.relation === 'manyToOne' || attribute.relation === 'oneToOne')
  )?.[0];

/** Attributes that are system values or Strapi internals, never fields. */
const SYSTEM_ATTRIBUTES = new Set([
  'id',
  'documentId',
  'createdAt',
  'updatedAt',
  'publishedAt',
  'createdBy',
  'updatedBy',
  'locale',
  'localizations',
]);

/** JSON:API reserves these member names inside a resource object. */
export const RESERVED_FIELD_NAMES = ['id', 'type'] as const;

const TO_ONE = new Set(['oneToOne', 'manyToOne']);
const TO_MANY = new Set(['oneToMany', 'manyToMany']);

const MIME_PATTERNS: Record<string, string[]> = {
  images: ['image/*'],
  videos: ['video/*'],
  audios: ['audio/*'],
  files: ['application/*', 'text/*'],
};

const onlyImages = (allowed: string[] | null | undefined) =>
  Array.isArray(allowed) && allowed.length > 0 && allowed.every((type) => type === 'images');

const mediaAllowedTypes = (allowed: string[] | null | undefined): string[] => {
  if (!Array.isArray(allowed) || allowed.length === 0) return ['*/*'];
  return [...new Set(allowed.flatMap((type) => MIME_PATTERNS[type] ?? [type.includes('/') ? type : `${type}/*`]))];
};

/** The API field type of a Strapi attribute, or null when the attribute is not exposed. */
export const fieldTypeOf = (attribute: StrapiAttribute): FieldType | null => {
  switch (attribute.type) {
    case 'string':
    case 'email':
    case 'uid':
    case 'time':
      return 'string';
    case 'text':
      return 'text';
    case 'richtext':
      return 'markdown';
    case 'blocks':
      return 'richtext';
    case 'integer':
    case 'biginteger':
    case 'float':
    case 'decimal':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'date':
      return 'date';
    case 'datetime':
    case 'timestamp':
      return 'datetime';
    case 'enumeration':
      return 'select';
    case 'json':
      return attribute.customField === TAGS_CUSTOM_FIELD ? 'tags' : null;
    case 'media':
      if (attribute.multiple) return onlyImages(attribute.allowedTypes) ? 'images' : 'files';
      return onlyImages(attribute.allowedTypes) ? 'image' : 'file';
    case 'relation':
      if (!attribute.target || attribute.target.startsWith('admin::')) return null;
      if (TO_ONE.has(attribute.relation ?? '')) return 'relation';
      if (TO_MANY.has(attribute.relation ?? '')) return 'relations';
      return null;
    default:
      // password, components, dynamic zones, morph relations: not exposed.
      return null;
  }
};

export const humanize = (key: string): string => {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[-_]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

export const toField = (
  key: string,
  attribute: StrapiAttribute,
  resourceLocalized: boolean,
  label?: string
): Field | null => {
  if (SYSTEM_ATTRIBUTES.has(key) || attribute.private) return null;
  const type = fieldTypeOf(attribute);
  if (!type) return null;
  const field: Field = {
    key,
    label: label && label !== key ? label : humanize(key),
    type,
    required: attribute.required === true,
    localized: resourceLocalized && attribute.pluginOptions?.i18n?.localized !== false,
    attribute,
  };
  if (type === 'select') {
    field.options = (attribute.enum ?? []).map((value) => ({ value, label: humanize(value) }));
  }
  if (type === 'image' || type === 'file' || type === 'images' || type === 'files') {
    field.allowedTypes = mediaAllowedTypes(attribute.allowedTypes);
  }
  if (type === 'relation' || type === 'relations') {
    field.target = attribute.target;
  }
  return field;
};

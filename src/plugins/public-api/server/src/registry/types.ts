/**
 * The resource registry's vocabulary: what a resource and a field are, independent of Strapi.
 */
export const FIELD_TYPES = [
  'string',
  'text',
  'markdown',
  'richtext',
  'number',
  'boolean',
  'date',
  'datetime',
  'select',
  'tags',
  'image',
  'file',
  'images',
  'files',
  'relation',
  'relations',
  'component',
  'components',
  'dynamiczone',
] as const;

export type FieldType = (typeof FIELD_TYPES)[number];

export type SelectOption = { value: string; label: string };

/** The parts of a Strapi attribute the registry reads; the rest is carried along untouched. */
export type StrapiAttribute = {
  type: string;
  required?: boolean;
  private?: boolean;
  unique?: boolean;
  enum?: string[];
  multiple?: boolean;
  allowedTypes?: string[] | null;
  relation?: string;
  target?: string;
  targetField?: string;
  /** A component attribute's component uid (`shared.seo`). */
  component?: string;
  /** Whether a component attribute holds a list of them. */
  repeatable?: boolean;
  /** The component uids a dynamic zone may hold. */
  components?: string[];
  customField?: string;
  min?: number | string;
  max?: number | string;
  minLength?: number;
  maxLength?: number;
  regex?: string;
  default?: unknown;
  pluginOptions?: { i18n?: { localized?: boolean }; 'public-api'?: { slug?: { targetField?: string } } };
};

export type Field = {
  key: string;
  label: string;
  type: FieldType;
  required: boolean;
  /** Whether the value differs per locale (false for resources that are not localized). */
  localized: boolean;
  options?: SelectOption[];
  /** MIME patterns a media field accepts, e.g. `image/*`. */
  allowedTypes?: string[];
  /** Content type uid a relation points at. */
  target?: string;
  /**
   * What a component field's items may be: the one component of a `component` or `components` field,
   * every component a `dynamiczone` allows (in the schema's order).
   */
  components?: readonly ComponentSchema[];
  attribute: StrapiAttribute;
};

/**
 * A Strapi component (`sections.hero`) as the API shows it: its own fields, typed by the same table as a
 * resource's (nested components, media, relations and richtext included). Its fields are never localized
 * on their own: a component value belongs to its record's row, so it follows the field that holds it.
 */
export type ComponentSchema = {
  /** Strapi's component uid, `<category>.<name>`: a dynamic zone item's `type`. */
  uid: string;
  category: string;
  name: string;
  /** The content manager's display name. */
  label: string;
  description?: string;
  fields: Field[];
};

export type ResourceMode = 'collection' | 'singleton';
export type SourceType = 'native' | 'cms';
export type Identifier = 'slug' | 'id';
export type DeleteMode = 'remove' | 'archive';

export type WebsiteRef = { id: number; documentId: string; slug: string; name: string };

export type Resource = {
  /** `native:events` or `cms:site/pages`. */
  id: string;
  sourceType: SourceType;
  /** URL slug and JSON:API record type. */
  slug: string;
  name: string;
  mode: ResourceMode;
  website?: WebsiteRef;
  /** Strapi content type uid. */
  uid: string;
  kind: 'collectionType' | 'singleType';
  localized: boolean;
  draftAndPublish: boolean;
  identifiers: Identifier[];
  deleteMode: DeleteMode;
  /** The relation attribute that links records to a website; set for website-scoped CMS resources. */
  scopeAttribute?: string;
  /** Name of the attribute that is the record slug (a uid, or a string declared as the plugin's slug), if any. */
  slugAttribute?: string;
  /** Name of the integer attribute that is the record's system sort value, if any. */
  sortAttribute?: string;
  fields: Field[];
};

export const NATIVE_PREFIX = 'native:';
export const CMS_PREFIX = 'cms:';

export const nativeResourceId = (slug: string) => `${NATIVE_PREFIX}${slug}`;
export const cmsResourceId = (website: string, collection: string) => `${CMS_PREFIX}${website}/${collection}`;

/**
 * What exists to be granted: the resources of /api/v2 (native modules and every website's
 * publications) with their fields, and the commands the server knows.
 */
export const GRANT_ACTIONS = ['read', 'create', 'update', 'delete'] as const;
export type GrantAction = (typeof GRANT_ACTIONS)[number];

export type FieldType =
  | 'string'
  | 'text'
  | 'markdown'
  | 'richtext'
  | 'number'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'select'
  | 'tags'
  | 'image'
  | 'file'
  | 'images'
  | 'files'
  | 'relation'
  | 'relations'
  | 'component'
  | 'components'
  | 'dynamiczone';

export type FieldSummary = {
  key: string;
  /** The label editors see in the content manager (its stored configuration), else the key made readable. */
  label: string;
  type: FieldType;
  required: boolean;
  localized: boolean;
  /**
   * Present when the server fills the field in on a create that leaves it out (a default, a slug made
   * from another field): a create needs no value for it, required or not.
   */
  filledIn?: true;
  /**
   * A relation's target as this resource reaches it (`native:buildings`), or null when the API serves no
   * resource of that content type; absent for other fields. A relation is shown to a key only when its
   * target resource is granted too.
   */
  target?: string | null;
};

export type ResourceSummary = {
  /** `native:events` or `cms:<website>/<collection>`. */
  id: string;
  name: string;
  slug: string;
  mode: 'collection' | 'singleton';
  sourceType: 'native' | 'cms';
  website: { slug: string; name: string } | null;
  /** The path below the API base, e.g. `/events` or `/cms/site/pages`. */
  path: string;
  /** Content type uid the resource reads. */
  contentType: string;
  /** The actions this resource can ever support (a singleton: read and update). */
  actions: GrantAction[];
  fields: FieldSummary[];
  /** Whether the content type holds personal data (job applications, newsletter subscriptions). */
  personalData: boolean;
};

export type CommandSummary = {
  name: string;
  description: string;
};

export type ContentTypeSummary = {
  uid: string;
  displayName: string;
  /** The schema's API names (`job-application`, `job-applications`): a new publication's slug comes from them. */
  singularName: string;
  pluralName: string;
  kind: 'collectionType' | 'singleType';
  /** Whether records link to a website, so that each website sees only its own. */
  websiteScoped: boolean;
  /** Whether its records hold personal data (schema `pluginOptions['public-api'].personalData`). */
  personalData: boolean;
};

export declare namespace GetRegistry {
  interface Response {
    data: {
      /** Absolute URL of /api/v2 as clients call it. */
      apiBaseUrl: string;
      resources: ResourceSummary[];
      commands: CommandSummary[];
    };
  }
}

export declare namespace GetContentTypes {
  interface Response {
    data: ContentTypeSummary[];
  }
}

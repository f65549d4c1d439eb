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
  label: string;
  type: FieldType;
  required: boolean;
  localized: boolean;
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
};

export type CommandSummary = {
  name: string;
  description: string;
};

export type ContentTypeSummary = {
  uid: string;
  displayName: string;
  kind: 'collectionType' | 'singleType';
  /** Whether records link to a website, so that each website sees only its own. */
  websiteScoped: boolean;
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

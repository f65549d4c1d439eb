/**
 * Builds resources from content type schemas and website publications. Pure: Strapi is read by the
 * registry service and handed in as plain data.
 */
import type { NativeResourceConfig } from '../config/native-resources';
import { humanize } from '../fields/labels';
import { RESERVED_FIELD_NAMES } from '../fields/system-keys';
import type { DetailsContext } from '../fields/codec';
import { NO_COMPONENTS, WEBSITE_UID, isPluginSlug, toField, websiteScopeAttributeOf } from './fields';
import {
  cmsResourceId,
  nativeResourceId,
  type Field,
  type Resource,
  type ResourceMode,
  type StrapiAttribute,
  type WebsiteRef,
} from './types';

export type ContentTypeSchema = {
  uid: string;
  kind: 'collectionType' | 'singleType';
  info: { displayName: string; pluralName: string; singularName: string };
  options?: { draftAndPublish?: boolean };
  pluginOptions?: { i18n?: { localized?: boolean }; 'public-api'?: { personalData?: boolean } };
  attributes: Record<string, StrapiAttribute>;
};

/**
 * Whether a content type's records hold personal data (`pluginOptions['public-api'].personalData`):
 * the admin warns before a website publishes it or a key is granted it.
 */
export const holdsPersonalData = (schema: ContentTypeSchema | undefined): boolean =>
  schema?.pluginOptions?.['public-api']?.personalData === true;

export type Publication = {
  collection: string;
  contentType: string;
  mode: ResourceMode;
  name?: string;
};

export type WebsiteWithPublications = WebsiteRef & { publications: Publication[] };

export class RegistryError extends Error {
  override name = 'RegistryError';
}

/** A Strapi attribute named like a JSON:API member cannot be exposed; refuse the schema outright. */
export const assertNoReservedFieldNames = (schema: ContentTypeSchema): void => {
  for (const name of RESERVED_FIELD_NAMES) {
    if (Object.prototype.hasOwnProperty.call(schema.attributes, name)) {
      throw new RegistryError(
        `Content type ${schema.uid} has an attribute named '${name}', which JSON:API reserves; rename it to expose ${schema.uid} through /api/v2.`,
      );
    }
  }
};

const isLocalized = (schema: ContentTypeSchema) => schema.pluginOptions?.i18n?.localized === true;

const websiteScopeAttribute = (schema: ContentTypeSchema): string | undefined => websiteScopeAttributeOf(schema.attributes);

const fieldsOf = (
  schema: ContentTypeSchema,
  labels: Record<string, string>,
  components: DetailsContext,
  scopeAttribute?: string,
): Field[] => {
  const localized = isLocalized(schema);
  const fields: Field[] = [];
  for (const [key, attribute] of Object.entries(schema.attributes)) {
    if (key === scopeAttribute || attribute.target === WEBSITE_UID) continue;
    const field = toField(key, attribute, localized, labels[key], components);
    if (field) fields.push(field);
  }
  return fields;
};

const systemAttributes = (schema: ContentTypeSchema) => {
  const entries = Object.entries(schema.attributes);
  const isSlug = (attribute: StrapiAttribute) => attribute.type === 'uid' || isPluginSlug(attribute);
  const slugAttribute = schema.attributes.slug && isSlug(schema.attributes.slug) ? 'slug' : entries.find(([, a]) => isSlug(a))?.[0];
  const sortAttribute = schema.attributes.sort?.type === 'integer' ? 'sort' : undefined;
  return { slugAttribute, sortAttribute };
};

export type LabelsByUid = Record<string, Record<string, string>>;

/**
 * The native resources an application configures (config/native-resources.ts: their shape is valid by
 * then). A uid that names no content type, or a schema that cannot be exposed, refuses the start: a
 * configured resource that silently went missing would break every client of it. A single type is served
 * as a singleton, as a website's single type is. `components`: the component schemas (registry/components.ts);
 * without them component fields expose nothing.
 */
export const buildNativeResources = (
  configured: readonly NativeResourceConfig[],
  schemas: Map<string, ContentTypeSchema>,
  labels: LabelsByUid = {},
  components: DetailsContext = NO_COMPONENTS,
): Resource[] =>
  configured.map(({ slug, uid, deleteMode }, index) => {
    const schema = schemas.get(uid);
    if (!schema) {
      throw new RegistryError(
        `The public-api plugin's nativeResources[${index}] ('${slug}') names content type ${uid}, which does not exist.`,
      );
    }
    assertNoReservedFieldNames(schema);
    return {
      id: nativeResourceId(slug),
      sourceType: 'native',
      slug,
      // A single type is one thing (`Homepage`), a collection many (`Events`).
      name:
        schema.kind === 'singleType'
          ? schema.info.displayName.trim() || humanize(schema.info.singularName)
          : humanize(schema.info.pluralName),
      mode: schema.kind === 'singleType' ? 'singleton' : 'collection',
      uid,
      kind: schema.kind,
      localized: isLocalized(schema),
      draftAndPublish: schema.options?.draftAndPublish === true,
      identifiers: ['slug', 'id'],
      deleteMode,
      ...systemAttributes(schema),
      fields: fieldsOf(schema, labels[uid] ?? {}, components),
    } satisfies Resource;
  });

/**
 * Resources a website publishes. A publication whose content type is gone or unusable is skipped with
 * a reason, so one bad publication never takes the other resources down.
 */
export const buildWebsiteResources = (
  website: WebsiteWithPublications,
  schemas: Map<string, ContentTypeSchema>,
  labels: LabelsByUid = {},
  onSkip: (reason: string) => void = () => {},
  components: DetailsContext = NO_COMPONENTS,
): Resource[] => {
  const resources: Resource[] = [];
  for (const publication of website.publications) {
    const schema = schemas.get(publication.contentType);
    if (!schema) {
      onSkip(`Website '${website.slug}' publishes '${publication.collection}' from ${publication.contentType}, which does not exist.`);
      continue;
    }
    try {
      assertNoReservedFieldNames(schema);
    } catch (error) {
      onSkip((error as Error).message);
      continue;
    }
    const scopeAttribute = websiteScopeAttribute(schema);
    const { slugAttribute, sortAttribute } = systemAttributes(schema);
    const mode: ResourceMode = schema.kind === 'singleType' ? 'singleton' : publication.mode;
    resources.push({
      id: cmsResourceId(website.slug, publication.collection),
      sourceType: 'cms',
      slug: publication.collection,
      name: publication.name?.trim() || humanize(publication.collection),
      mode,
      website: { id: website.id, documentId: website.documentId, slug: website.slug, name: website.name },
      uid: schema.uid,
      kind: schema.kind,
      localized: isLocalized(schema),
      draftAndPublish: schema.options?.draftAndPublish === true,
      // Every listed record is addressable: the slug where there is one, and always the id, which a record
      // published without a slug (or before its website's slug is settled) still has.
      identifiers: slugAttribute ? ['slug', 'id'] : ['id'],
      deleteMode: 'remove',
      scopeAttribute,
      slugAttribute,
      sortAttribute,
      fields: fieldsOf(schema, labels[schema.uid] ?? {}, components, scopeAttribute),
    });
  }
  return resources;
};

/**
 * Builds resources from content type schemas and website publications. Pure: Strapi is read by the
 * registry service and handed in as plain data.
 */
import { humanize } from '../fields/labels';
import { RESERVED_FIELD_NAMES } from '../fields/system-keys';
import type { DetailsContext } from '../fields/codec';
import { NO_COMPONENTS, WEBSITE_UID, isPluginSlug, toField, websiteScopeAttributeOf } from './fields';
import {
  cmsResourceId,
  nativeResourceId,
  type DeleteMode,
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
  pluginOptions?: { i18n?: { localized?: boolean } };
  attributes: Record<string, StrapiAttribute>;
};

export type Publication = {
  collection: string;
  contentType: string;
  mode: ResourceMode;
  name?: string;
};

export type WebsiteWithPublications = WebsiteRef & { publications: Publication[] };

/** The five built-in modules and how each deletes. */
export const NATIVE_RESOURCES: ReadonlyArray<{ slug: string; uid: string; deleteMode: DeleteMode }> = [
  { slug: 'buildings', uid: 'api::building.building', deleteMode: 'remove' },
  { slug: 'events', uid: 'api::event.event', deleteMode: 'remove' },
  { slug: 'festivals', uid: 'api::festival.festival', deleteMode: 'remove' },
  { slug: 'jobs', uid: 'api::job.job', deleteMode: 'archive' },
  { slug: 'products', uid: 'api::product.product', deleteMode: 'remove' },
];

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

/** `components`: the component schemas (registry/components.ts); without them component fields expose nothing. */
export const buildNativeResources = (
  schemas: Map<string, ContentTypeSchema>,
  labels: LabelsByUid = {},
  components: DetailsContext = NO_COMPONENTS,
): Resource[] =>
  NATIVE_RESOURCES.map(({ slug, uid, deleteMode }) => {
    const schema = schemas.get(uid);
    if (!schema) throw new RegistryError(`Native resource '${slug}' needs content type ${uid}, which does not exist.`);
    assertNoReservedFieldNames(schema);
    return {
      id: nativeResourceId(slug),
      sourceType: 'native',
      slug,
      name: humanize(schema.info.pluralName),
      mode: 'collection',
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

/**
 * Server values -> the admin contracts (shared/contracts). Pure. The compiler holds both sides
 * together: a change on either side that breaks the contract fails the build here.
 */
import type { AdminKey } from '../../../../shared/contracts/keys';
import type { CommandSummary, ContentTypeSummary, ResourceSummary } from '../../../../shared/contracts/registry';
import type { AdminWebsite } from '../../../../shared/contracts/websites';
import type { CommandDefinition } from '../../commands';
import { isStoredIn } from '../../fields/table';
import { supportedActions } from '../../grants/resolve';
import type { ApiKey } from '../../keys/types';
import type { TargetResolver } from '../../grants/projection';
import { holdsPersonalData, type ContentTypeSchema } from '../../registry/build';
import { WEBSITE_UID, slugTargetFieldOf } from '../../registry/fields';
import { resourcePath } from '../../registry/paths';
import type { Resource } from '../../registry/types';
import type { Website } from '../../services/websites';
import { isRelationAttribute } from '../../fields/strapi-attributes';

export const toAdminKey = (key: ApiKey): AdminKey => ({
  id: key.id,
  documentId: key.documentId,
  name: key.name,
  description: key.description,
  prefix: key.prefix,
  lastFour: key.lastFour,
  grants: key.grants,
  limits: key.limits,
  cache: key.cache,
  preview: key.preview,
  expiresAt: key.expiresAt,
  revoked: key.revoked,
  lastUsedAt: key.lastUsedAt,
  createdAt: key.createdAt,
  updatedAt: key.updatedAt,
});

/** What the summaries need besides the resource: where its relations lead, and its content type's schema. */
export type SummaryContext = {
  resolveTarget: TargetResolver;
  schemas: Map<string, ContentTypeSchema>;
  /** Editors' labels by content type uid and field (the content manager's configuration). */
  labels: Map<string, Record<string, string>>;
};

export const toResourceSummary = (resource: Resource, context: SummaryContext): ResourceSummary => ({
  id: resource.id,
  name: resource.name,
  slug: resource.slug,
  mode: resource.mode,
  sourceType: resource.sourceType,
  website: resource.website ? { slug: resource.website.slug, name: resource.website.name } : null,
  path: resourcePath(resource),
  contentType: resource.uid,
  actions: supportedActions(resource),
  fields: resource.fields.map((field) => ({
    key: field.key,
    label: context.labels.get(resource.uid)?.[field.key] ?? field.label,
    type: field.type,
    required: field.required,
    localized: field.localized,
    ...(field.attribute.default !== undefined || slugTargetFieldOf(field.attribute) !== undefined ? { filledIn: true as const } : {}),
    ...(isStoredIn(field, 'relation') ? { target: field.target ? (context.resolveTarget(resource, field.target)?.id ?? null) : null } : {}),
  })),
  personalData: holdsPersonalData(context.schemas.get(resource.uid)),
});

export const toCommandSummary = (command: CommandDefinition): CommandSummary => ({
  name: command.name,
  description: command.description,
});

/** Content types a website may publish: the application's own (`api::`), not Strapi's or plugins'. */
export const toContentTypeSummaries = (schemas: Map<string, ContentTypeSchema>): ContentTypeSummary[] =>
  [...schemas.values()]
    .filter((schema) => schema.uid.startsWith('api::'))
    .map((schema) => ({
      uid: schema.uid,
      displayName: schema.info.displayName,
      singularName: schema.info.singularName,
      pluralName: schema.info.pluralName,
      kind: schema.kind,
      websiteScoped: Object.values(schema.attributes).some(
        (attribute) => isRelationAttribute(attribute) && attribute.target === WEBSITE_UID,
      ),
      personalData: holdsPersonalData(schema),
    }))
    .sort((a, b) => a.displayName.localeCompare(b.displayName));

export const toAdminWebsite = (website: Website): AdminWebsite => ({
  id: website.id,
  documentId: website.documentId,
  name: website.name,
  slug: website.slug,
  publications: website.publications.map((publication) => ({
    collection: publication.collection,
    contentType: publication.contentType,
    mode: publication.mode,
    ...(publication.name ? { name: publication.name } : {}),
  })),
  createdAt: website.createdAt,
  updatedAt: website.updatedAt,
});

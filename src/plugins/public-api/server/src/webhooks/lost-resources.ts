/**
 * What a grant change takes out of a key's view (issue 18: "a record that leaves a key's view ... grant
 * removed ... is a removal for that key"), and which of the key's webhook endpoints are to be told (pure).
 *
 * A resource is lost when the key could read it before the change and cannot after it. Its records are
 * where the resource's content type and website say (a CMS collection type backs one resource per
 * website), so a resource whose content type and website the key still reads under another id (a website
 * renamed: `cms:old/pages` became `cms:new/pages`) is not lost. A resource that cannot be resolved (its
 * website or publication no longer exists and the caller knew nothing of it) has no records to name and
 * is left out.
 *
 * Field-level changes (a readable field added or taken away on a resource still readable) lose nothing:
 * the record is still in the key's view, so they are not removals (docs/api.md, "Webhooks").
 */
import { allows } from '../grants/projection';
import type { KeyGrants } from '../grants/types';
import type { Resource } from '../registry/types';
import type { WebhookEvent } from './events';

/** The records a key no longer reads: a resource's content type, on one website when it is scoped. */
export type LostResource = {
  resourceId: string;
  /** The JSON:API record type of the resource (its slug): the removal's `type`. */
  recordType: string;
  uid: string;
  draftAndPublish: boolean;
  /** The website whose records these are, and the relation that links records to it (scoped CMS resources). */
  websiteId: number | null;
  scopeAttribute: string | null;
};

const placeOf = (resource: Pick<Resource, 'uid' | 'website' | 'scopeAttribute'>) =>
  `${resource.uid}\u0000${resource.scopeAttribute && resource.website ? resource.website.id : ''}`;

const readableIds = (grants: KeyGrants): string[] =>
  Object.keys(grants.resources).filter((resourceId) => allows(grants, resourceId, 'read'));

/**
 * The resources readable under `before` and not under `after`; `resolve` names each resource id's
 * resource (the registry now, and what the caller knew of before the change), or undefined.
 */
export const lostResources = (
  before: KeyGrants,
  after: KeyGrants,
  resolve: (resourceId: string) => Resource | undefined,
): LostResource[] => {
  const kept = new Set<string>();
  for (const resourceId of readableIds(after)) {
    const resource = resolve(resourceId);
    if (resource) kept.add(placeOf(resource));
  }
  const lost: LostResource[] = [];
  for (const resourceId of readableIds(before)) {
    if (allows(after, resourceId, 'read')) continue;
    const resource = resolve(resourceId);
    if (!resource || kept.has(placeOf(resource))) continue;
    const scoped = Boolean(resource.scopeAttribute && resource.website);
    lost.push({
      resourceId,
      recordType: resource.slug,
      uid: resource.uid,
      draftAndPublish: resource.draftAndPublish,
      websiteId: scoped ? resource.website!.id : null,
      scopeAttribute: scoped ? resource.scopeAttribute! : null,
    });
  }
  return lost.sort((a, b) => (a.resourceId < b.resourceId ? -1 : a.resourceId > b.resourceId ? 1 : 0));
};

/** The event a record that left the key's view is sent as (as webhooks/visibility.ts sends a record that left it). */
export const REMOVAL_EVENT: WebhookEvent = 'record.unpublished';

/** Whether an endpoint is told of a lost resource: it subscribes to removals, and to that resource (or to all). */
export const endpointWants = (endpoint: { events: readonly string[]; resources: readonly string[] }, lost: LostResource): boolean =>
  endpoint.events.includes(REMOVAL_EVENT) && (endpoint.resources.length === 0 || endpoint.resources.includes(lost.resourceId));

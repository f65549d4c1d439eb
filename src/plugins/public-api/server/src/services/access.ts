/**
 * From a request's path to what the key may see of that resource: 404 for a resource that does not
 * exist, 403 for one the key holds no grant for (contract section 4), and the projections of the
 * resource and of every resource its relations lead to.
 */
import type { Core } from '@strapi/strapi';
import { allows, type Projection } from '../grants/projection';
import { sharedProjector, type Projector } from '../grants/projector';
import type { Action } from '../grants/types';
import { apiError } from '../http/errors';
import type { ApiKey } from '../keys/types';
import type { Resource } from '../registry/types';
import { getService } from '../utils/get-service';

export type ResourceAccess = {
  resource: Resource;
  projection: Projection;
  /** The key's projection of any resource (memoized while the grants and resources are the same: grants/projector.ts). */
  projectionOf: Projector;
};

export type AccessOptions = {
  /** Throws (405) when the resource never supports what the request asks, whatever the key. */
  supports?: (resource: Resource) => void;
};

const ACTION_WORDS: Record<Action, string> = {
  read: 'read',
  create: 'create records in',
  update: 'update records of',
  delete: 'delete records of',
};

/** A native resource's siblings: none, one array for every request (the projector is kept by it). */
const NO_SIBLINGS: readonly Resource[] = [];

export default ({ strapi: _strapi }: { strapi: Core.Strapi }) => {
  const accessTo = (
    key: ApiKey,
    resource: Resource,
    siblings: readonly Resource[],
    action: Action,
    options: AccessOptions,
  ): ResourceAccess => {
    // What a resource can never do is said before what this key may not do (405 before 403).
    options.supports?.(resource);
    if (!allows(key.grants, resource.id, action)) {
      throw apiError(403, `This key may not ${ACTION_WORDS[action]} ${resource.id}.`, { reason: 'action_not_granted' });
    }
    // Kept while the key's grants, the native resources and the website's resources are the same objects.
    const projectionOf = sharedProjector(key.grants, getService('resources').native(), siblings);
    return { resource, projection: projectionOf(resource), projectionOf };
  };

  return {
    native(key: ApiKey, slug: string, action: Action, options: AccessOptions = {}): ResourceAccess {
      const resource = getService('resources').findNative(slug);
      if (!resource) throw apiError(404, 'No resource exists at this path.', { reason: 'resource_not_found' });
      return accessTo(key, resource, NO_SIBLINGS, action, options);
    },

    async cms(key: ApiKey, websiteSlug: string, collection: string, action: Action, options: AccessOptions = {}): Promise<ResourceAccess> {
      const registry = getService('resources');
      const website = await registry.website(websiteSlug);
      const siblings = website ? registry.resourcesOf(website) : [];
      const resource = siblings.find((candidate) => candidate.slug === collection);
      if (!resource) throw apiError(404, 'No resource exists at this path.', { reason: 'resource_not_found' });
      return accessTo(key, resource, siblings, action, options);
    },
  };
};

/**
 * GET /: the resources this key may use, in the shape of the specification.
 */
import { INDEX_TAG } from '../http/cache-tags';
import { document } from '../http/jsonapi';
import { assertOnlyParameters } from '../http/query';
import type { Handler } from '../http/request';
import type { Resource } from '../registry/types';
import { CMS_PREFIX } from '../registry/types';
import { resourcePath } from '../registry/paths';
import { getService } from '../utils/get-service';

const indexEntry = (resource: Resource, baseUrl: string) => ({
  type: 'resources',
  id: resource.id,
  attributes: {
    name: resource.name,
    slug: resource.slug,
    mode: resource.mode,
    sourceType: resource.sourceType,
    ...(resource.website ? { website: resource.website.slug } : {}),
  },
  links: { self: `${baseUrl}${resourcePath(resource)}` },
});

export const resourceIndex: Handler = async (request) => {
  assertOnlyParameters(request.query, () => false);
  const granted = request.key.grants.resources;
  const registry = getService('resources');
  // Websites are read only for keys that hold a CMS grant.
  const needsWebsites = Object.keys(granted).some((id) => id.startsWith(CMS_PREFIX));
  const resources = needsWebsites ? await registry.all() : registry.native();
  const visible = resources.filter((resource) => (granted[resource.id]?.actions.length ?? 0) > 0);
  return {
    kind: 'document',
    status: 200,
    tags: [INDEX_TAG],
    document: document({ links: { self: request.selfUrl }, data: visible.map((r) => indexEntry(r, request.baseUrl)) }),
  };
};

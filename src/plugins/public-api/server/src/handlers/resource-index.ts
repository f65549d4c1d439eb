/**
 * GET /: the resources this key may use, in the shape of the specification.
 *
 * The index changes only when the key's grants or the websites do, so its bytes and their tag are kept
 * (issue 37: written afresh, it answered at 4,300 req/s against a raw server's 15,000). They are kept with
 * what they were made of, each compared by identity: the key's parsed grants (services/keys.ts parses them
 * once per text read, so a grant changed by anyone is a new object on the next request), the websites'
 * resources (services/resources.ts builds them anew when the rows read differ) and the request's URL. So a
 * change is seen at once, on every instance, and nothing needs to be invalidated; a key's kept index goes
 * with its grants object.
 */
import { INDEX_TAG } from '../http/cache-tags';
import { entityTagOf } from '../http/entity-tags';
import { document } from '../http/jsonapi';
import { JSONAPI_MEDIA_TYPE } from '../http/media-types';
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

type KeptIndex = { websites: readonly Resource[] | null; selfUrl: string; baseUrl: string; bytes: Buffer; etag: string };

/** The index last written for a grants object (a key's parsed grants), with what it was made of. */
const keptIndexes = new WeakMap<object, KeptIndex>();

export const resourceIndex: Handler = async (request) => {
  assertOnlyParameters(request.query, () => false);
  const granted = request.key.grants.resources;
  const registry = getService('resources');
  // Websites are read only for keys that hold a CMS grant.
  const needsWebsites = Object.keys(granted).some((id) => id.startsWith(CMS_PREFIX));
  const websites = needsWebsites ? (await registry.snapshot()).resources : null;
  const { selfUrl, baseUrl } = request;
  let kept = keptIndexes.get(granted);
  if (!kept || kept.websites !== websites || kept.selfUrl !== selfUrl || kept.baseUrl !== baseUrl) {
    const resources = websites ? [...registry.native(), ...websites] : registry.native();
    const visible = resources.filter((resource) => (granted[resource.id]?.actions.length ?? 0) > 0);
    const bytes = Buffer.from(JSON.stringify(document({ links: { self: selfUrl }, data: visible.map((r) => indexEntry(r, baseUrl)) })));
    kept = { websites, selfUrl, baseUrl, bytes, etag: entityTagOf(bytes) };
    keptIndexes.set(granted, kept);
  }
  return { kind: 'serialized', type: JSONAPI_MEDIA_TYPE, status: 200, tags: [INDEX_TAG], bytes: kept.bytes, etag: kept.etag };
};

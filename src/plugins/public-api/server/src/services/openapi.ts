/**
 * The key-scoped OpenAPI document, cached. The cache key is a hash of everything the document is built
 * from: the key's resource and command grants, the websites its CMS grants name (with their
 * publications), the configured locales, the command registry and the base URL. Keys and websites are
 * read on every request, so a grant or publication change shows in the very next document on every
 * instance; keys with the same grants share one entry.
 */
import { createHash } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import type { ApiKey } from '../keys/types';
import { entityTagOf } from '../http/entity-tags';
import { DocumentCache, type CachedDocument } from '../openapi/cache';
import { buildOpenApiDocument } from '../openapi/document';
import { CMS_PREFIX } from '../registry/types';
import { getService } from '../utils/get-service';

/** Documents of a key with every grant on the demo content are about 200 KB; this keeps ~100 of them. */
export const OPENAPI_CACHE_LIMITS = { maxEntries: 200, maxBytes: 32 * 1024 * 1024 };

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/** The websites a key's CMS grants name. */
const grantedWebsites = (key: ApiKey): Set<string> =>
  new Set(
    Object.keys(key.grants.resources)
      .filter((id) => id.startsWith(CMS_PREFIX))
      .map((id) => id.slice(CMS_PREFIX.length).split('/')[0]!),
  );

export default ({ strapi: _strapi }: { strapi: Core.Strapi }) => {
  const cache = new DocumentCache(OPENAPI_CACHE_LIMITS);

  return {
    async document(key: ApiKey, baseUrl: string): Promise<CachedDocument> {
      const registry = getService('resources');
      const wanted = grantedWebsites(key);
      // Only keys holding a CMS grant cost a read of the websites.
      const websites = wanted.size ? (await registry.websites()).filter((website) => wanted.has(website.slug)) : [];
      const locales = (await getService('locales').get()).codes;
      const commands = getService('commands').names();
      const fingerprint = sha256(
        JSON.stringify([baseUrl, key.grants.resources, key.grants.commands, websites, locales, commands, key.preview]),
      );
      const cached = cache.get(fingerprint);
      if (cached) return cached;

      const document = buildOpenApiDocument({
        baseUrl,
        grants: key.grants,
        resources: [...registry.native(), ...websites.flatMap((website) => registry.resourcesOf(website))],
        locales,
        commands: getService('commands').all(),
        preview: key.preview,
      });
      // Kept as bytes: sent as they are, hashed once (the same tag the edge gives every document).
      const text = Buffer.from(JSON.stringify(document));
      const entry = { text, etag: entityTagOf(text) };
      cache.set(fingerprint, entry);
      return entry;
    },

    /** For tests and benchmarks: forget every cached document. */
    clearCache() {
      cache.clear();
    },

    cacheStats() {
      return { entries: cache.size, bytes: cache.totalBytes };
    },
  };
};

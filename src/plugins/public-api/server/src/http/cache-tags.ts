/**
 * Cache-Tag and Surrogate-Key (contract section 14): what a CDN may purge a document by. Pure.
 *
 * Tags name resources and records, without the `native:`/`cms:` prefix of resource ids:
 * - a native resource: `events`; one of its records: `events:<documentId>`;
 * - a CMS resource: `<website>/<collection>`; one of its records: `<website>/<collection>:<documentId>`;
 * - documents that are not records: `_index` (GET /), `_openapi`, `_commands`.
 * A record document is tagged with its resource and its record; a page with its resource and every record
 * on it; records expanded by `include` and references (which show the target's slug) add their resource
 * and record tags too, wherever they sit in the document.
 *
 * CDNs bound the header (16 KB at most for the common ones, less for some), so the value is kept to
 * MAX_CACHE_TAG_BYTES. A document whose tags do not fit carries every resource tag and, for each resource
 * with records in it, `<resource>:overflow` in place of those records' tags: a publisher purging a changed
 * record purges `<resource>:<documentId>` and `<resource>:overflow`, and stays exact for every document
 * that fits.
 */
import type { Resource } from '../registry/types';

export const MAX_CACHE_TAG_BYTES = 8000;
export const OVERFLOW_TAG = 'overflow';

export const INDEX_TAG = '_index';
export const OPENAPI_TAG = '_openapi';
export const COMMANDS_TAG = '_commands';

/** The tag of a resource: its slug, after its website's for a CMS resource. */
export const resourceTag = (resource: Pick<Resource, 'slug' | 'website'>): string =>
  resource.website ? `${resource.website.slug}/${resource.slug}` : resource.slug;

type Tagged = { type: string; id: string };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object';

/** A record object (`type`, `id`, `attributes`), or a reference (`id`, `slug`, `collection`). */
const taggedOf = (value: Record<string, unknown>): Tagged | null => {
  if (typeof value.id !== 'string') return null;
  if (typeof value.type === 'string' && isObject(value.attributes)) return { type: value.type, id: value.id };
  if (typeof value.collection === 'string' && 'slug' in value) return { type: value.collection, id: value.id };
  return null;
};

/** Each resource's record ids in the document, in order of appearance (records, then what they show). */
const collect = (value: unknown, found: Map<string, Set<string>>): void => {
  if (Array.isArray(value)) {
    for (const item of value) collect(item, found);
    return;
  }
  if (!isObject(value)) return;
  const tagged = taggedOf(value);
  if (tagged) {
    const ids = found.get(tagged.type) ?? new Set<string>();
    ids.add(tagged.id);
    found.set(tagged.type, ids);
  }
  // A record's further records sit in its attributes (not in its meta or links); any other object
  // (a component, an asset, a richtext node) is looked through.
  const inner = tagged ? (isObject(value.attributes) ? value.attributes : {}) : value;
  for (const member of Object.values(inner)) collect(member, found);
};

const byteLength = (tags: readonly string[]): number => Buffer.byteLength(tags.join(','));

/**
 * The tags of a read of `resource` whose records are `records` (a page's data, or one record). Records of
 * other types found in them belong to resources of the same namespace: a relation of a native resource
 * targets a native resource, one of a website's collection a collection of the same website.
 */
export const recordTags = (resource: Pick<Resource, 'slug' | 'website'>, records: readonly unknown[]): string[] => {
  const prefix = resource.website ? `${resource.website.slug}/` : '';
  const found = new Map<string, Set<string>>([[resource.slug, new Set()]]);
  collect(records, found);
  const resources = [...found.keys()].map((type) => `${prefix}${type}`);
  const records_ = [...found.entries()].flatMap(([type, ids]) => [...ids].map((id) => `${prefix}${type}:${id}`));
  const all = [...resources, ...records_];
  if (byteLength(all) <= MAX_CACHE_TAG_BYTES) return all;
  const overflow = [...found.entries()].filter(([, ids]) => ids.size > 0).map(([type]) => `${prefix}${type}:${OVERFLOW_TAG}`);
  return [...resources, ...overflow];
};

/** The header fields of a tag list: Cache-Tag lists with commas, Surrogate-Key with spaces. */
export const cacheTagHeaders = (tags: readonly string[]): Record<string, string> =>
  tags.length === 0 ? {} : { 'Cache-Tag': tags.join(','), 'Surrogate-Key': tags.join(' ') };

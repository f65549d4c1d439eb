/**
 * Cache-Tag and Surrogate-Key (contract section 14): what a CDN may purge a document by. Pure.
 *
 * Tags name resources and records, without the `native:`/`cms:` prefix of resource ids:
 * - a native resource: `events`; one of its records: `events:<documentId>`;
 * - a CMS resource: `<website>/<collection>`; one of its records: `<website>/<collection>:<documentId>`;
 * - documents that are not records: `_index` (GET /), `_openapi`, `_commands`.
 * A record document is tagged with its resource and its record; a page with its resource and every record
 * on it; records expanded by `include` and references (which show the target's slug) add their resource
 * and record tags too, at any depth, each under the resource its relation field leads to.
 *
 * CDNs bound the header (16 KB at most for the common ones, less for some), so the value is kept to
 * MAX_CACHE_TAG_BYTES. A document whose tags do not fit carries every resource tag and, for each resource
 * with records in it, `<resource>:overflow` in place of those records' tags: a publisher purging a changed
 * record purges `<resource>:<documentId>` and `<resource>:overflow`, and stays exact for every document
 * that fits.
 */
import type { FieldType, Resource } from '../registry/types';
import { itemAttributesOf, itemComponentOf } from '../fields/items';

export const MAX_CACHE_TAG_BYTES = 8000;
export const OVERFLOW_TAG = 'overflow';

export const INDEX_TAG = '_index';
export const OPENAPI_TAG = '_openapi';
export const COMMANDS_TAG = '_commands';

/** The tag of a resource: its slug, after its website's for a CMS resource. */
export const resourceTag = (resource: Pick<Resource, 'slug' | 'website'>): string =>
  resource.website ? `${resource.website.slug}/${resource.slug}` : resource.slug;

type TagTarget = Pick<Resource, 'slug' | 'website'>;

/** A field as tagging reads it: component fields name the components their values may be. */
type TaggedField = { key: string; type: FieldType; components?: readonly { uid: string }[] };

/**
 * What tagging needs of a projection: its resource, the resource each relation field leads to and, for
 * references inside component values, its fields and the projections of its components (by uid).
 */
export type TaggedProjection<R extends TagTarget> = {
  resource: R;
  targets: ReadonlyMap<string, R>;
  readable?: readonly TaggedField[];
  components?: ReadonlyMap<string, TaggedProjection<R>>;
};

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object';

/** Record ids by resource tag, in order of appearance. */
type Found = Map<string, Set<string>>;

const add = (found: Found, tag: string, id: unknown) => {
  let ids = found.get(tag);
  if (!ids) {
    ids = new Set<string>();
    found.set(tag, ids);
  }
  if (typeof id === 'string') ids.add(id);
};

/** What tagging reads of a projection, worked out once per projection (a page walks it for every record). */
type TagPlan<R extends TagTarget> = {
  tag: string;
  targets: readonly { field: string; target: R; tag: string }[];
  components: readonly TaggedField[];
};

const plans = new WeakMap<object, TagPlan<TagTarget>>();

const planOf = <R extends TagTarget>(projection: TaggedProjection<R>): TagPlan<R> => {
  let plan = plans.get(projection) as TagPlan<R> | undefined;
  if (!plan) {
    plan = {
      tag: resourceTag(projection.resource),
      targets: [...projection.targets].map(([field, target]) => ({ field, target, tag: resourceTag(target) })),
      components: (projection.readable ?? []).filter((field) => field.components),
    };
    plans.set(projection, plan as TagPlan<TagTarget>);
  }
  return plan;
};

/**
 * The records of `projection` and, through its relation fields, the records they show: a reference
 * (`{ id, slug, collection }`) or a record `include` expanded, tagged with the field's target resource
 * (a CMS resource's relation may lead to a native resource); expanded records are walked with their
 * own projection.
 */
const collect = <R extends TagTarget>(
  projection: TaggedProjection<R>,
  projectionOf: (target: R) => TaggedProjection<R>,
  records: readonly unknown[],
  found: Found,
): void => {
  const { tag } = planOf(projection);
  for (const record of records) {
    if (!isObject(record)) continue;
    add(found, tag, record.id);
    if (isObject(record.attributes)) collectAttributes(projection, projectionOf, record.attributes, found);
  }
};

/** One linked item of a relation field: an expanded record (walked with its own projection) or a reference. */
const collectLinked = <R extends TagTarget>(
  item: unknown,
  target: R,
  tag: string,
  projectionOf: (target: R) => TaggedProjection<R>,
  found: Found,
): void => {
  if (!isObject(item)) return;
  if (isObject(item.attributes)) collect(projectionOf(target), projectionOf, [item], found);
  else add(found, tag, item.id);
};

/** One item of a component field's value: a dynamic zone item names its component; a component's value is its attributes. */
const collectComponentItem = <R extends TagTarget>(
  item: unknown,
  field: TaggedField,
  projection: TaggedProjection<R>,
  projectionOf: (target: R) => TaggedProjection<R>,
  found: Found,
): void => {
  if (!isObject(item)) return;
  const uid = itemComponentOf(field, item.type);
  const inner = typeof uid === 'string' ? projection.components?.get(uid) : undefined;
  const values = itemAttributesOf(field, item);
  if (inner && isObject(values)) collectAttributes(inner, projectionOf, values, found);
};

/**
 * The records one set of attributes shows: its relations' targets, and those inside its component values.
 * A to-one value is the item itself, a to-many one a list of items. Written as loops, not callbacks: this
 * runs for every record of a page (issue 16).
 */
const collectAttributes = <R extends TagTarget>(
  projection: TaggedProjection<R>,
  projectionOf: (target: R) => TaggedProjection<R>,
  attributes: Record<string, unknown>,
  found: Found,
): void => {
  const plan = planOf(projection);
  for (const { field, target, tag } of plan.targets) {
    const value = attributes[field];
    if (Array.isArray(value)) for (const item of value) collectLinked(item, target, tag, projectionOf, found);
    else collectLinked(value, target, tag, projectionOf, found);
  }
  for (const field of plan.components) {
    const value = attributes[field.key];
    if (Array.isArray(value)) for (const item of value) collectComponentItem(item, field, projection, projectionOf, found);
    else collectComponentItem(value, field, projection, projectionOf, found);
  }
};

/** Bytes of a Cache-Tag value. */
const byteLength = (tags: readonly string[]): number => Buffer.byteLength(tags.join(','));

/** The tags of a read whose records (a page's data, or one record) are of `projection`. */
export const recordTags = <R extends TagTarget>(
  projection: TaggedProjection<R>,
  projectionOf: (target: R) => TaggedProjection<R>,
  records: readonly unknown[],
): string[] => {
  const found: Found = new Map([[resourceTag(projection.resource), new Set<string>()]]);
  collect(projection, projectionOf, records, found);
  const resources = [...found.keys()];
  const recordTags_ = [...found.entries()].flatMap(([tag, ids]) => [...ids].map((id) => `${tag}:${id}`));
  const all = [...resources, ...recordTags_];
  if (byteLength(all) <= MAX_CACHE_TAG_BYTES) return all;
  const overflow = [...found.entries()].filter(([, ids]) => ids.size > 0).map(([tag]) => `${tag}:${OVERFLOW_TAG}`);
  return [...resources, ...overflow];
};

/** The header fields of a tag list: Cache-Tag lists with commas, Surrogate-Key with spaces. */
export const cacheTagHeaders = (tags: readonly string[]): Record<string, string> =>
  tags.length === 0 ? {} : { 'Cache-Tag': tags.join(','), 'Surrogate-Key': tags.join(' ') };

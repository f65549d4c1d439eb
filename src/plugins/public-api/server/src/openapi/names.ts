/**
 * Names in the OpenAPI document: component names, operation ids and tags per resource. Pure.
 *
 * `<Resource>` is the resource slug in PascalCase (`events` -> `Events`); a CMS resource's carries its
 * website's too, joined by `_` (`cms:site-a/pages` -> `SiteA_Pages`). Names must be unique across the
 * document whatever the slugs are (`a-1` and `a1`, or a slug that ends like a suffix), so they are
 * handed out in document order and a later resource whose names would meet an earlier one's takes
 * `_2`, `_3`, ...
 */
import type { Resource } from '../registry/types';

/** Component names allow `[A-Za-z0-9._-]`; anything else in a slug becomes a word break. */
export const pascal = (slug: string): string =>
  slug
    .replace(/[^A-Za-z0-9-]+/g, '-')
    .split('-')
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/** `<Resource>` before allocation. */
export const resourceName = (resource: Pick<Resource, 'sourceType' | 'slug' | 'website'>): string =>
  resource.sourceType === 'cms' && resource.website ? `${pascal(resource.website.slug)}_${pascal(resource.slug)}` : pascal(resource.slug);

/** The suffixes a resource's components take: `<Resource><Suffix>`. */
export const COMPONENT_SUFFIXES = [
  'Record',
  'Attributes',
  'Reference',
  'CollectionDocument',
  'RecordDocument',
  'CreateRequest',
  'UpdateRequest',
  'CreateWritableAttributes',
  'UpdateWritableAttributes',
  'CreateAtomicAttributes',
  'UpdateAtomicAttributes',
] as const;

export type ComponentSuffix = (typeof COMPONENT_SUFFIXES)[number];

/** `<Resource>` per resource id, unique against each other and against `reserved` component names. */
export const allocateNames = (resources: readonly Resource[], reserved: ReadonlySet<string>): Map<string, string> => {
  const taken = new Set(reserved);
  const names = new Map<string, string>();
  const clashes = (candidate: string) => taken.has(candidate) || COMPONENT_SUFFIXES.some((suffix) => taken.has(`${candidate}${suffix}`));
  for (const resource of resources) {
    const base = resourceName(resource) || 'Resource';
    let candidate = base;
    for (let n = 2; clashes(candidate); n += 1) candidate = `${base}_${n}`;
    taken.add(candidate);
    for (const suffix of COMPONENT_SUFFIXES) taken.add(`${candidate}${suffix}`);
    names.set(resource.id, candidate);
  }
  return names;
};

/** The tag that groups a resource's operations. */
export const resourceTag = (resource: Pick<Resource, 'sourceType' | 'name' | 'website'>): string =>
  resource.sourceType === 'cms' && resource.website ? `${resource.website.slug} / ${resource.name}` : resource.name;

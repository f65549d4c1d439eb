/**
 * The `href` of an atomic operation (contract section 17): which resource, and which record of it, a path
 * below the API base names, as the single write's URL does (its query, `locale`, included). Pure.
 */
import { errorObject, type ErrorObject } from '../http/errors';
import { splitPath } from '../http/router';
import { echo } from '../values/echo';

/** The resource an operation writes: a native one by slug, or a CMS one by its website and collection. */
export type ResourceName = { source: 'native'; slug: string } | { source: 'cms'; website: string; collection: string };

export type Href = { resource: ResourceName; record: string | null; query: URLSearchParams };

/**
 * An href: a path below the API base (`/events/jazz-night`, `/cms/city-guide/pages?locale=de`), or the
 * absolute URL of one (as `links.self` and `Location` give them). Null, with a problem, otherwise.
 */
export const parseHref = (href: unknown, baseUrl: string, problems: ErrorObject[]): Href | null => {
  const at = '/href';
  const invalid = (detail: string) => errorObject(400, detail, { source: { pointer: at }, reason: 'href_invalid' });
  const shape =
    'An `href` names a resource or record as its path below the API base: `/{slug}[/{record}]` or `/cms/{website}/{collection}[/{record}]`.';
  if (typeof href !== 'string' || href === '') {
    problems.push(invalid(shape));
    return null;
  }
  const base = `${baseUrl}/`;
  const relative = href.startsWith(base) ? href.slice(baseUrl.length) : href;
  if (!relative.startsWith('/') || relative.startsWith('//')) {
    problems.push(invalid(`${shape} ${echo(href)} is neither.`));
    return null;
  }
  const url = new URL(relative, 'http://href.invalid');
  const segments = url.hash ? null : splitPath(url.pathname);
  if (segments === null || segments.length === 0) {
    problems.push(invalid(`${shape} ${echo(href)} is neither.`));
    return null;
  }
  const query = url.searchParams;
  if (segments[0] === 'cms') {
    if (segments.length === 3 || segments.length === 4) {
      return { resource: { source: 'cms', website: segments[1]!, collection: segments[2]! }, record: segments[3] ?? null, query };
    }
  } else if (segments.length <= 2) {
    return { resource: { source: 'native', slug: segments[0]! }, record: segments[1] ?? null, query };
  }
  problems.push(invalid(`${shape} ${echo(href)} is neither.`));
  return null;
};

/**
 * Where a resource lives below the API base (`/events`, `/cms/city-guide/pages`): the one rule that the
 * resource index, the links of written records, the OpenAPI document and the admin's summaries share. Pure.
 */
import type { Resource } from './types';

export const resourcePath = (resource: Resource): string => {
  if (resource.sourceType === 'native') return `/${resource.slug}`;
  // A CMS resource exists only as a publication of a website: without one it has no path at all.
  if (!resource.website) throw new Error(`${resource.id}: a CMS resource without its website has no path.`);
  return `/cms/${resource.website.slug}/${resource.slug}`;
};

/**
 * A resource as lists outside the grant matrix name it: a website's publication with its website
 * ("City guide: Pages"), since every website may publish its own "Pages"; a native module by its name. Pure.
 */
import type { ResourceSummary } from '../../../shared/contracts/registry';

export const resourceLabel = (resource: Pick<ResourceSummary, 'name' | 'website'>): string =>
  resource.website ? `${resource.website.name}: ${resource.name}` : resource.name;

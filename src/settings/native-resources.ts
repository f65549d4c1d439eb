/**
 * The content types this application serves as the public-api plugin's native resources: the
 * specification's five built-in modules and how each deletes (jobs are archived: unpublished, kept for
 * the applications that name them). Read by config/plugins.ts; any collection or single type may be
 * listed (docs/api.md, "Native resources").
 */
export const NATIVE_RESOURCES = [
  { slug: 'buildings', uid: 'api::building.building', deleteMode: 'remove' },
  { slug: 'events', uid: 'api::event.event', deleteMode: 'remove' },
  { slug: 'festivals', uid: 'api::festival.festival', deleteMode: 'remove' },
  { slug: 'jobs', uid: 'api::job.job', deleteMode: 'archive' },
  { slug: 'products', uid: 'api::product.product', deleteMode: 'remove' },
] as const;

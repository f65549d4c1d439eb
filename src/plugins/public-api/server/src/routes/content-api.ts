/**
 * The endpoints of /api/v2, as data. Paths are relative to the API base.
 */
import type { Handler, PublicHandler } from '../http/request';
import type { RouteDefinition } from '../http/router';
import { asset } from '../controllers/assets';
import { cmsCollection, cmsRecord, nativeCollection, nativeRecord } from '../controllers/read';
import { openApiDocument } from '../controllers/openapi';
import { commandSchema, runCommand } from '../controllers/commands';
import { resourceIndex } from '../controllers/resource-index';
import {
  cmsCreate,
  cmsDelete,
  cmsResourceDelete,
  cmsSingletonUpdate,
  cmsUpdate,
  nativeCreate,
  nativeDelete,
  nativeUpdate,
} from '../controllers/write';

/** Handlers of routes that require an API key. */
export const handlers = {
  'resource-index': resourceIndex,
  openapi: openApiDocument,
  'native-collection': nativeCollection,
  'native-record': nativeRecord,
  'native-create': nativeCreate,
  'native-update': nativeUpdate,
  'native-delete': nativeDelete,
  'cms-collection': cmsCollection,
  'cms-record': cmsRecord,
  'cms-create': cmsCreate,
  'cms-singleton-update': cmsSingletonUpdate,
  'cms-resource-delete': cmsResourceDelete,
  'cms-update': cmsUpdate,
  'cms-delete': cmsDelete,
  'command-schema': commandSchema,
  'command-run': runCommand,
} satisfies Record<string, Handler>;

/** Handlers of routes that need no key: the URL itself is the capability. */
export const publicHandlers = {
  asset,
} satisfies Record<string, PublicHandler>;

export type RouteName = keyof typeof handlers | keyof typeof publicHandlers;

export const isPublicRoute = (name: RouteName): name is keyof typeof publicHandlers => Object.hasOwn(publicHandlers, name);

// Native resources are all collections, so `/:resource` has no PATCH or DELETE (405 from the router).
// A CMS resource is a collection or a singleton; its handlers answer 405 with the Allow of its mode.
export const contentApiRoutes: RouteDefinition<RouteName>[] = [
  { method: 'GET', path: '/', name: 'resource-index' },
  { method: 'GET', path: '/schema', name: 'openapi', media: 'openapi' },
  { method: 'GET', path: '/openapi', name: 'openapi', media: 'openapi' },
  { method: 'GET', path: '/openapi.json', name: 'openapi', media: 'openapi' },
  { method: 'GET', path: '/:resource', name: 'native-collection' },
  { method: 'POST', path: '/:resource', name: 'native-create' },
  { method: 'GET', path: '/:resource/:record', name: 'native-record' },
  { method: 'PATCH', path: '/:resource/:record', name: 'native-update' },
  { method: 'DELETE', path: '/:resource/:record', name: 'native-delete' },
  { method: 'GET', path: '/cms/:website/:collection', name: 'cms-collection' },
  { method: 'POST', path: '/cms/:website/:collection', name: 'cms-create' },
  { method: 'PATCH', path: '/cms/:website/:collection', name: 'cms-singleton-update' },
  { method: 'DELETE', path: '/cms/:website/:collection', name: 'cms-resource-delete' },
  { method: 'GET', path: '/cms/:website/:collection/:record', name: 'cms-record' },
  { method: 'PATCH', path: '/cms/:website/:collection/:record', name: 'cms-update' },
  { method: 'DELETE', path: '/cms/:website/:collection/:record', name: 'cms-delete' },
  { method: 'GET', path: '/assets/:token/:fileName', name: 'asset' },
  { method: 'GET', path: '/commands/schema', name: 'command-schema' },
  { method: 'POST', path: '/commands/:command', name: 'command-run' },
];

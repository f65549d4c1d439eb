/**
 * The endpoints of /api/v2, as data. Paths are relative to the API base.
 */
import type { Handler, PublicHandler } from '../http/request';
import { apiError } from '../http/errors';
import { ATOMIC_EXTENSION } from '../http/media-types';
import { methodNotAllowed, type Method, type RouteDefinition, type RouteMatch } from '../http/router';
import type { Resource } from '../registry/types';
import { getService } from '../utils/get-service';
import { asset } from '../handlers/assets';
import { cmsCollection, cmsRecord, nativeCollection, nativeRecord } from '../handlers/reads';
import { openApiDocument } from '../handlers/openapi';
import { commandSchema, runCommand } from '../handlers/commands';
import { resourceIndex } from '../handlers/resource-index';
import { runOperations } from '../handlers/atomic-operations';
import { sync } from '../handlers/sync';
import {
  cmsCreate,
  cmsDelete,
  cmsSingletonUpdate,
  cmsUpdate,
  nativeCreate,
  nativeDelete,
  nativeSingletonUpdate,
  nativeUpdate,
} from '../handlers/writes';

/** Handlers of routes that require an API key. */
export const handlers = {
  'resource-index': resourceIndex,
  openapi: openApiDocument,
  'native-collection': nativeCollection,
  'native-record': nativeRecord,
  'native-create': nativeCreate,
  'native-singleton-update': nativeSingletonUpdate,
  'native-update': nativeUpdate,
  'native-delete': nativeDelete,
  'cms-collection': cmsCollection,
  'cms-record': cmsRecord,
  'cms-create': cmsCreate,
  'cms-singleton-update': cmsSingletonUpdate,
  'cms-update': cmsUpdate,
  'cms-delete': cmsDelete,
  'command-schema': commandSchema,
  'command-run': runCommand,
  operations: runOperations,
  sync,
} satisfies Record<string, Handler>;

/** Handlers of routes that need no key: the URL itself is the capability. */
export const publicHandlers = {
  asset,
} satisfies Record<string, PublicHandler>;

export type KeyedRouteName = keyof typeof handlers;
export type PublicRouteName = keyof typeof publicHandlers;
export type RouteName = KeyedRouteName | PublicRouteName;

export const isPublicRoute = (name: RouteName): name is PublicRouteName => Object.hasOwn(publicHandlers, name);

export const publicHandlerOf = (name: RouteName): PublicHandler | null => (isPublicRoute(name) ? publicHandlers[name] : null);
export const handlerOf = (name: RouteName): Handler | null => (isPublicRoute(name) ? null : handlers[name]);

// A path that names a resource has the methods of the routes that serve its mode: collections are
// posted to and have records below them; a singleton's own path is patched and has nothing below it.
// Those routes are the one source of 405's Allow, OPTIONS' Allow and the CORS preflight (http/router.ts).
// A route that supports a JSON:API extension lists it (`extensions: [ATOMIC_EXTENSION]`, http/media-types.ts).
const COLLECTION = ['collection'] as const;
const SINGLETON = ['singleton'] as const;

export const contentApiRoutes: RouteDefinition<RouteName>[] = [
  { method: 'GET', path: '/', name: 'resource-index' },
  { method: 'GET', path: '/schema', name: 'openapi', media: 'openapi' },
  { method: 'GET', path: '/openapi', name: 'openapi', media: 'openapi' },
  { method: 'GET', path: '/openapi.json', name: 'openapi', media: 'openapi' },
  { method: 'GET', path: '/:resource', name: 'native-collection' },
  { method: 'POST', path: '/:resource', name: 'native-create', modes: COLLECTION },
  { method: 'PATCH', path: '/:resource', name: 'native-singleton-update', modes: SINGLETON },
  { method: 'GET', path: '/:resource/:record', name: 'native-record', modes: COLLECTION },
  { method: 'PATCH', path: '/:resource/:record', name: 'native-update', modes: COLLECTION },
  { method: 'DELETE', path: '/:resource/:record', name: 'native-delete', modes: COLLECTION },
  { method: 'GET', path: '/cms/:website/:collection', name: 'cms-collection' },
  { method: 'POST', path: '/cms/:website/:collection', name: 'cms-create', modes: COLLECTION },
  { method: 'PATCH', path: '/cms/:website/:collection', name: 'cms-singleton-update', modes: SINGLETON },
  { method: 'GET', path: '/cms/:website/:collection/:record', name: 'cms-record', modes: COLLECTION },
  { method: 'PATCH', path: '/cms/:website/:collection/:record', name: 'cms-update', modes: COLLECTION },
  { method: 'DELETE', path: '/cms/:website/:collection/:record', name: 'cms-delete', modes: COLLECTION },
  { method: 'GET', path: '/assets/:token/:fileName', name: 'asset' },
  { method: 'GET', path: '/commands/schema', name: 'command-schema' },
  { method: 'POST', path: '/commands/:command', name: 'command-run' },
  { method: 'POST', path: '/operations', name: 'operations', extensions: [ATOMIC_EXTENSION] },
  { method: 'GET', path: '/sync', name: 'sync' },
];

/** The resource a matched path names (native `/:resource...`, CMS `/cms/:website/:collection...`), or null when none exists. */
export const locateResource = async (params: Record<string, string>): Promise<Resource | null> => {
  const registry = getService('resources');
  if (params.website !== undefined && params.collection !== undefined) return registry.findCms(params.website, params.collection);
  if (params.resource !== undefined) return registry.findNative(params.resource);
  return null;
};

/**
 * Whether the path has `method` for this resource, from the routes above: 404 when it has nothing at
 * all for the resource's mode (the path below a singleton), 405 with the path's Allow without the method.
 */
export const assertMethodOf = (match: RouteMatch<RouteName>, method: string, resource: Resource): void => {
  const allow = match.allow(resource.mode);
  if (allow.every((candidate) => candidate === 'OPTIONS')) {
    throw apiError(404, 'A singleton has no records below it.', { reason: 'record_not_found' });
  }
  if (!allow.includes(method as Method)) throw methodNotAllowed(method, allow);
};

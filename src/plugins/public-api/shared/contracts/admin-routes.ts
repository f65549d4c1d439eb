/**
 * Every admin route of the plugin (`/public-api/...`) in one table: its method and path, and the types of
 * its path parameters, query, body and response (from the contracts beside this file). The admin's one
 * client (admin/src/api) is built from it; test/unit/admin-routes.test.ts holds it to the server's routes.
 */
import type { ListAuditLog } from './audit';
import type { GetKeyAccess } from './content-manager-access';
import type { CreateKey, DeleteKey, GetKey, ListKeys, RegenerateKey, RevokeKey, UpdateKey } from './keys';
import type { PreviewKey } from './preview';
import type { GetContentTypes, GetRegistry } from './registry';
import type { GetKeyUsage, UsageWindow } from './usage';
import type {
  CreateWebhookEndpoint,
  DeleteWebhookEndpoint,
  ListWebhookDeliveries,
  ListWebhookEndpoints,
  RedeliverWebhook,
  RotateWebhookSecret,
  UpdateWebhookEndpoint,
} from './webhooks';
import type { CreateWebsite, DeleteWebsite, GetWebsite, ListWebsites, UpdateWebsite } from './websites';

export type AdminRouteMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Method and path (below `/public-api`; `:name` is a path parameter) of each admin route, by name. */
export const ADMIN_ROUTES = {
  getRegistry: { method: 'GET', path: '/registry' },
  getContentTypes: { method: 'GET', path: '/content-types' },
  previewKey: { method: 'POST', path: '/preview' },

  listKeys: { method: 'GET', path: '/keys' },
  createKey: { method: 'POST', path: '/keys' },
  getKey: { method: 'GET', path: '/keys/:id' },
  getKeyAccess: { method: 'GET', path: '/keys/:id/access' },
  updateKey: { method: 'PUT', path: '/keys/:id' },
  revokeKey: { method: 'POST', path: '/keys/:id/revoke' },
  regenerateKey: { method: 'POST', path: '/keys/:id/regenerate' },
  deleteKey: { method: 'DELETE', path: '/keys/:id' },
  getKeyUsage: { method: 'GET', path: '/keys/:id/usage' },
  listAuditLog: { method: 'GET', path: '/audit-log' },

  listWebhookEndpoints: { method: 'GET', path: '/keys/:id/webhooks' },
  createWebhookEndpoint: { method: 'POST', path: '/keys/:id/webhooks' },
  updateWebhookEndpoint: { method: 'PUT', path: '/webhooks/:id' },
  rotateWebhookSecret: { method: 'POST', path: '/webhooks/:id/rotate' },
  deleteWebhookEndpoint: { method: 'DELETE', path: '/webhooks/:id' },
  listWebhookDeliveries: { method: 'GET', path: '/webhooks/:id/deliveries' },
  redeliverWebhook: { method: 'POST', path: '/webhooks/:id/deliveries/:delivery/redeliver' },

  listWebsites: { method: 'GET', path: '/websites' },
  createWebsite: { method: 'POST', path: '/websites' },
  getWebsite: { method: 'GET', path: '/websites/:id' },
  updateWebsite: { method: 'PUT', path: '/websites/:id' },
  deleteWebsite: { method: 'DELETE', path: '/websites/:id' },
} as const satisfies Record<string, { method: AdminRouteMethod; path: string }>;

export type AdminRouteName = keyof typeof ADMIN_ROUTES;

/** A record's id in a path: the number, or its text as a page's address holds it. */
type Id = { id: number | string };

/** What each route takes (`params`, `query`, `body`: absent when it takes none) and answers (`response`). */
export interface AdminRouteTypes {
  getRegistry: { response: GetRegistry.Response };
  getContentTypes: { response: GetContentTypes.Response };
  previewKey: { body: PreviewKey.Request['body']; response: PreviewKey.Response };

  listKeys: { response: ListKeys.Response };
  createKey: { body: CreateKey.Request['body']; response: CreateKey.Response };
  getKey: { params: Id; response: GetKey.Response };
  getKeyAccess: { params: Id; response: GetKeyAccess.Response };
  updateKey: { params: Id; body: UpdateKey.Request['body']; response: UpdateKey.Response };
  revokeKey: { params: Id; response: RevokeKey.Response };
  regenerateKey: { params: Id; response: RegenerateKey.Response };
  deleteKey: { params: Id; response: DeleteKey.Response };
  getKeyUsage: { params: Id; query: { window: UsageWindow }; response: GetKeyUsage.Response };
  listAuditLog: { query: ListAuditLog.Query; response: ListAuditLog.Response };

  listWebhookEndpoints: { params: Id; response: ListWebhookEndpoints.Response };
  createWebhookEndpoint: { params: Id; body: CreateWebhookEndpoint.Request['body']; response: CreateWebhookEndpoint.Response };
  updateWebhookEndpoint: { params: Id; body: UpdateWebhookEndpoint.Request['body']; response: UpdateWebhookEndpoint.Response };
  rotateWebhookSecret: { params: Id; response: RotateWebhookSecret.Response };
  deleteWebhookEndpoint: { params: Id; response: DeleteWebhookEndpoint.Response };
  /** `before`: the `meta.next` of the previous page. */
  listWebhookDeliveries: { params: Id; query: { before?: number }; response: ListWebhookDeliveries.Response };
  redeliverWebhook: { params: Id & { delivery: number | string }; response: RedeliverWebhook.Response };

  listWebsites: { response: ListWebsites.Response };
  createWebsite: { body: CreateWebsite.Request['body']; response: CreateWebsite.Response };
  getWebsite: { params: Id; response: GetWebsite.Response };
  updateWebsite: { params: Id; body: UpdateWebsite.Request['body']; response: UpdateWebsite.Response };
  deleteWebsite: { params: Id; response: DeleteWebsite.Response };
}

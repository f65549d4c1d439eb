/**
 * The admin panel's routes (`/public-api/...`, type `admin`): every one needs an authenticated admin
 * and one of the plugin's RBAC actions (rbac.ts).
 */
import type { PermissionAction } from '../../../shared/contracts/permissions';
import { requires } from '../rbac';
import { auditMiddlewares } from '../controllers/admin/audited';

type AdminRoute = { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string; handler: string; action: PermissionAction };

const routes: AdminRoute[] = [
  { method: 'GET', path: '/registry', handler: 'admin-registry.registry', action: 'read' },
  { method: 'GET', path: '/content-types', handler: 'admin-registry.contentTypes', action: 'read' },
  { method: 'POST', path: '/preview', handler: 'admin-preview.preview', action: 'read' },

  { method: 'GET', path: '/keys', handler: 'admin-keys.list', action: 'read' },
  { method: 'POST', path: '/keys', handler: 'admin-keys.create', action: 'create' },
  { method: 'GET', path: '/keys/:id', handler: 'admin-keys.findOne', action: 'read' },
  { method: 'GET', path: '/keys/:id/access', handler: 'admin-keys.access', action: 'read' },
  { method: 'PUT', path: '/keys/:id', handler: 'admin-keys.update', action: 'update' },
  { method: 'POST', path: '/keys/:id/revoke', handler: 'admin-keys.revoke', action: 'update' },
  { method: 'POST', path: '/keys/:id/regenerate', handler: 'admin-keys.regenerate', action: 'regenerate' },
  { method: 'DELETE', path: '/keys/:id', handler: 'admin-keys.remove', action: 'delete' },
  { method: 'GET', path: '/keys/:id/usage', handler: 'admin-usage.find', action: 'read' },
  { method: 'GET', path: '/audit-log', handler: 'admin-audit-log.list', action: 'read' },

  // A key's webhooks are part of its settings: changing them is an update of the key, a new secret a regeneration.
  { method: 'GET', path: '/keys/:id/webhooks', handler: 'admin-webhooks.list', action: 'read' },
  { method: 'POST', path: '/keys/:id/webhooks', handler: 'admin-webhooks.create', action: 'update' },
  { method: 'PUT', path: '/webhooks/:id', handler: 'admin-webhooks.update', action: 'update' },
  { method: 'POST', path: '/webhooks/:id/rotate', handler: 'admin-webhooks.rotate', action: 'regenerate' },
  { method: 'DELETE', path: '/webhooks/:id', handler: 'admin-webhooks.remove', action: 'update' },
  { method: 'GET', path: '/webhooks/:id/deliveries', handler: 'admin-webhooks.deliveries', action: 'read' },
  { method: 'POST', path: '/webhooks/:id/deliveries/:delivery/redeliver', handler: 'admin-webhooks.redeliver', action: 'update' },

  { method: 'GET', path: '/websites', handler: 'admin-websites.list', action: 'read' },
  { method: 'POST', path: '/websites', handler: 'admin-websites.create', action: 'create' },
  { method: 'GET', path: '/websites/:id', handler: 'admin-websites.findOne', action: 'read' },
  { method: 'PUT', path: '/websites/:id', handler: 'admin-websites.update', action: 'update' },
  { method: 'DELETE', path: '/websites/:id', handler: 'admin-websites.remove', action: 'delete' },
];

export default {
  type: 'admin' as const,
  routes: routes.map(({ action, ...route }) => ({
    ...route,
    config: { policies: requires(action), middlewares: auditMiddlewares(route.handler) },
  })),
};

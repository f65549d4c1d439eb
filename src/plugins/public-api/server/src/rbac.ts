/**
 * The plugin's RBAC actions. Super admins hold every action; other roles get them in
 * Settings > Roles > Plugins ("Public Data API"). Every admin route checks one of them.
 */
import type { Core } from '@strapi/strapi';
import { PERMISSION_ACTIONS, permissionActionId, permissionUid, type PermissionAction } from '../../shared/contracts/permissions';
import { PLUGIN_ID } from './config';

// Revoking is an update of the key; regenerating has its own action because it issues a new secret.
const DISPLAY_NAMES: Record<PermissionAction, string> = {
  read: 'Read',
  create: 'Create',
  update: 'Update (and revoke)',
  delete: 'Delete',
  regenerate: 'Regenerate',
};

export const rbacActions = PERMISSION_ACTIONS.map((action) => ({
  section: 'settings' as const,
  category: 'Public Data API',
  subCategory: 'Keys and websites',
  displayName: DISPLAY_NAMES[action],
  uid: permissionUid(action),
  pluginName: PLUGIN_ID,
}));

type ActionProvider = { registerMany: (actions: typeof rbacActions) => Promise<unknown> };

export const registerRbacActions = async (strapi: Core.Strapi): Promise<void> => {
  const { actionProvider } = strapi.service('admin::permission') as unknown as { actionProvider: ActionProvider };
  await actionProvider.registerMany(rbacActions);
};

/** The policy config of an admin route that needs `action`. */
export const requires = (action: PermissionAction) => [
  'admin::isAuthenticatedAdmin',
  { name: 'admin::hasPermissions', config: { actions: [permissionActionId(action)] } },
];

/**
 * The plugin's RBAC actions: what a role may do in the "Public Data API" settings section. The server
 * registers them and checks them on every admin route; the admin panel hides what a user may not do.
 */
export const PERMISSION_ACTIONS = ['read', 'create', 'update', 'delete', 'regenerate'] as const;

export type PermissionAction = (typeof PERMISSION_ACTIONS)[number];

/** The uid an action is registered under, relative to the plugin (`settings.read`). */
export const permissionUid = (action: PermissionAction) => `settings.${action}` as const;

/** The full action id Strapi knows it by (`plugin::public-api.settings.read`). */
export const permissionActionId = (action: PermissionAction) => `plugin::public-api.${permissionUid(action)}` as const;

/** Permission lists in the shape the admin's `Page.Protect` and `useRBAC` take. */
export const PERMISSIONS: Record<PermissionAction, { action: string; subject: null }[]> = {
  read: [{ action: permissionActionId('read'), subject: null }],
  create: [{ action: permissionActionId('create'), subject: null }],
  update: [{ action: permissionActionId('update'), subject: null }],
  delete: [{ action: permissionActionId('delete'), subject: null }],
  regenerate: [{ action: permissionActionId('regenerate'), subject: null }],
};

/**
 * Admin users for tests of the plugin's admin routes: a super admin, and users whose role holds only
 * some of the plugin's RBAC actions. They log in through /admin/login like the admin panel does.
 */
import type { Core } from '@strapi/strapi';
import { PERMISSION_ACTIONS, permissionActionId, type PermissionAction } from '../../src/plugins/public-api/shared/contracts/permissions';
import type { TestApp } from './app';

export const ADMIN_PASSWORD = 'Test-password-1234';

type RolePermission = {
  action: string;
  subject: string | null;
  properties?: { fields?: string[]; locales?: string[] | null };
  conditions: string[];
};

type RoleService = {
  getSuperAdmin: () => Promise<{ id: number } | undefined>;
  create: (attributes: { name: string; description: string }) => Promise<{ id: number }>;
  assignPermissions: (roleId: number, permissions: RolePermission[]) => Promise<unknown>;
};

type UserService = {
  create: (attributes: Record<string, unknown>) => Promise<{ id: number }>;
};

const roles = (strapi: Core.Strapi) => strapi.service('admin::role') as unknown as RoleService;
const users = (strapi: Core.Strapi) => strapi.service('admin::user') as unknown as UserService;

let counter = 0;

export type AdminSession = { email: string; token: string; auth: string };

export const login = async (app: TestApp, email: string, password = ADMIN_PASSWORD): Promise<AdminSession> => {
  const res = await app.http().post('/admin/login').send({ email, password });
  if (res.status !== 200) throw new Error(`Admin login failed for ${email}: ${res.status} ${JSON.stringify(res.body)}`);
  const token = res.body.data.token as string;
  return { email, token, auth: `Bearer ${token}` };
};

export const createAdminUser = async (app: TestApp, roleId: number, label = 'user'): Promise<string> => {
  counter += 1;
  const email = `${label}-${counter}-${process.pid}@example.test`;
  await users(app.strapi).create({
    email,
    firstname: 'Test',
    lastname: label,
    password: ADMIN_PASSWORD,
    isActive: true,
    registrationToken: null,
    roles: [roleId],
  });
  return email;
};

/** A super admin, logged in: holds every action, the plugin's included. */
export const superAdmin = async (app: TestApp): Promise<AdminSession> => {
  const role = await roles(app.strapi).getSuperAdmin();
  if (!role) throw new Error('The super admin role does not exist.');
  return login(app, await createAdminUser(app, role.id, 'super'));
};

/**
 * A Content Manager permission as Settings > Roles sets one: an action on a content type, for some of
 * its fields (default: every field path, as the role editor lists them), with conditions
 * (`admin::is-creator`) and, for a localized type, some locales (default null: every locale).
 */
export type ContentManagerPermission = {
  action: 'read' | 'create' | 'update' | 'delete' | 'publish';
  subject: string;
  fields?: string[];
  conditions?: string[];
  locales?: string[] | null;
};

/** Every field path of a content type the role editor offers (components as their inner paths). */
export const contentManagerFields = (strapi: Core.Strapi, uid: string): string[] =>
  (
    strapi.service('admin::content-type') as unknown as { getNestedFields: (model: unknown, options: { components: unknown }) => string[] }
  ).getNestedFields(strapi.contentTypes[uid as keyof typeof strapi.contentTypes], { components: strapi.components });

const contentManagerPermission = (strapi: Core.Strapi, permission: ContentManagerPermission): RolePermission => {
  const localized = Boolean(
    (strapi.contentTypes[permission.subject as keyof typeof strapi.contentTypes] as { pluginOptions?: { i18n?: { localized?: boolean } } })
      ?.pluginOptions?.i18n?.localized,
  );
  const fieldsApply = permission.action !== 'delete' && permission.action !== 'publish';
  return {
    action: `plugin::content-manager.explorer.${permission.action}`,
    subject: permission.subject,
    properties: {
      ...(fieldsApply ? { fields: permission.fields ?? contentManagerFields(strapi, permission.subject) } : {}),
      ...(localized ? { locales: permission.locales === undefined ? null : permission.locales } : {}),
    },
    conditions: permission.conditions ?? [],
  };
};

/** A role holding exactly these plugin actions and these Content Manager permissions (and nothing else). */
export const createRole = async (
  app: TestApp,
  actions: readonly PermissionAction[],
  contentManager: readonly ContentManagerPermission[] = [],
): Promise<number> => {
  counter += 1;
  const role = await roles(app.strapi).create({ name: `Public API ${actions.join('+') || 'none'} ${counter}`, description: 'test role' });
  await roles(app.strapi).assignPermissions(role.id, [
    ...actions.map((action) => ({ action: permissionActionId(action), subject: null, conditions: [] })),
    ...contentManager.map((permission) => contentManagerPermission(app.strapi, permission)),
  ]);
  return role.id;
};

/** A logged-in admin whose role holds exactly these plugin actions (and these Content Manager permissions). */
export const adminWith = async (
  app: TestApp,
  actions: readonly PermissionAction[],
  contentManager: readonly ContentManagerPermission[] = [],
): Promise<AdminSession> =>
  login(app, await createAdminUser(app, await createRole(app, actions, contentManager), actions.join('-') || 'none'));

/** Every plugin action but one. */
export const allActionsBut = (missing: PermissionAction): PermissionAction[] => PERMISSION_ACTIONS.filter((action) => action !== missing);

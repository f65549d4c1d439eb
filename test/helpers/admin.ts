/**
 * Admin users for tests of the plugin's admin routes: a super admin, and users whose role holds only
 * some of the plugin's RBAC actions. They log in through /admin/login like the admin panel does.
 */
import type { Core } from '@strapi/strapi';
import { PERMISSION_ACTIONS, permissionActionId, type PermissionAction } from '../../src/plugins/public-api/shared/contracts/permissions';
import type { TestApp } from './app';

export const ADMIN_PASSWORD = 'Test-password-1234';

type RoleService = {
  getSuperAdmin: () => Promise<{ id: number } | undefined>;
  create: (attributes: { name: string; description: string }) => Promise<{ id: number }>;
  assignPermissions: (roleId: number, permissions: { action: string; subject: null; conditions: string[] }[]) => Promise<unknown>;
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

/** A role holding exactly these plugin actions (and nothing else). */
export const createRole = async (app: TestApp, actions: readonly PermissionAction[]): Promise<number> => {
  counter += 1;
  const role = await roles(app.strapi).create({ name: `Public API ${actions.join('+') || 'none'} ${counter}`, description: 'test role' });
  await roles(app.strapi).assignPermissions(
    role.id,
    actions.map((action) => ({ action: permissionActionId(action), subject: null, conditions: [] })),
  );
  return role.id;
};

/** A logged-in admin whose role holds exactly these plugin actions. */
export const adminWith = async (app: TestApp, actions: readonly PermissionAction[]): Promise<AdminSession> =>
  login(app, await createAdminUser(app, await createRole(app, actions), actions.join('-') || 'none'));

/** Every plugin action but one. */
export const allActionsBut = (missing: PermissionAction): PermissionAction[] => PERMISSION_ACTIONS.filter((action) => action !== missing);

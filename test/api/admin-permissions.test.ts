/**
 * Every admin route of the plugin needs an authenticated admin and its own RBAC action: a role that
 * holds every other action of the plugin is refused, a role holding just that action gets through.
 */
import { bootApp, type TestApp } from '../helpers/app';
import { adminWith, allActionsBut, superAdmin, type AdminSession } from '../helpers/admin';
import { createKey } from '../helpers/keys';
import type { PermissionAction } from '../../src/plugins/public-api/shared/contracts/permissions';

let app: TestApp;
let keyId: number;
let websiteId: number;

beforeAll(async () => {
  app = await bootApp();
  const key = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: ['title'] } } });
  keyId = key.id;
  const admin = await superAdmin(app);
  const website = await app
    .http()
    .post('/public-api/websites')
    .set('Authorization', admin.auth)
    .send({ name: 'Permission site', publications: [] });
  expect(website.status).toBe(201);
  websiteId = website.body.data.id;
});
afterAll(async () => {
  await app?.close();
});

/**
 * `:key` and `:website` stand for a key and a website that exist. `allowed` is the status with the
 * permission: invalid bodies and unknown ids keep these requests from changing anything.
 */
type Route = { method: 'get' | 'post' | 'put' | 'delete'; path: string; action: PermissionAction; body?: unknown; allowed: number };

const ROUTES: Route[] = [
  { method: 'get', path: '/public-api/registry', action: 'read', allowed: 200 },
  { method: 'get', path: '/public-api/content-types', action: 'read', allowed: 200 },
  { method: 'post', path: '/public-api/preview', action: 'read', body: { grants: {} }, allowed: 200 },
  { method: 'get', path: '/public-api/keys', action: 'read', allowed: 200 },
  { method: 'get', path: '/public-api/keys/:key', action: 'read', allowed: 200 },
  { method: 'get', path: '/public-api/keys/:key/access', action: 'read', allowed: 200 },
  { method: 'post', path: '/public-api/keys', action: 'create', body: { name: '' }, allowed: 400 },
  { method: 'put', path: '/public-api/keys/:key', action: 'update', body: { name: '' }, allowed: 400 },
  { method: 'post', path: '/public-api/keys/999999/revoke', action: 'update', allowed: 404 },
  { method: 'post', path: '/public-api/keys/999999/regenerate', action: 'regenerate', allowed: 404 },
  { method: 'delete', path: '/public-api/keys/999999', action: 'delete', allowed: 404 },
  { method: 'get', path: '/public-api/websites', action: 'read', allowed: 200 },
  { method: 'get', path: '/public-api/websites/:website', action: 'read', allowed: 200 },
  { method: 'post', path: '/public-api/websites', action: 'create', body: { name: '' }, allowed: 400 },
  { method: 'put', path: '/public-api/websites/:website', action: 'update', body: { name: '' }, allowed: 400 },
  { method: 'delete', path: '/public-api/websites/999999', action: 'delete', allowed: 404 },
];

const call = (route: Route, session?: AdminSession) => {
  const path = route.path.replace(':key', String(keyId)).replace(':website', String(websiteId));
  const request = app.http()[route.method](path);
  if (session) request.set('Authorization', session.auth);
  return route.body === undefined ? request : request.send(route.body as object);
};

const sessions = new Map<string, AdminSession>();
const sessionWith = async (actions: PermissionAction[]) => {
  const id = actions.join(',');
  if (!sessions.has(id)) sessions.set(id, await adminWith(app, actions));
  return sessions.get(id)!;
};

describe.each(ROUTES)('$method $path', (route) => {
  test('401 without an admin session', async () => {
    const res = await call(route);
    expect(res.status).toBe(401);
  });

  test(`refused (403) to a role with every plugin action but '${route.action}'`, async () => {
    const res = await call(route, await sessionWith(allActionsBut(route.action)));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      data: null,
      error: expect.objectContaining({ status: 403, name: 'PolicyError' }),
    });
  });

  test(`answered (not refused) for a role with only '${route.action}'`, async () => {
    const res = await call(route, await sessionWith([route.action]));
    expect(res.status).toBe(route.allowed);
  });
});

test('a role without any plugin action is refused everywhere, and the plugin registers its five actions', async () => {
  const nobody = await adminWith(app, []);
  for (const route of ROUTES) expect((await call(route, nobody)).status).toBe(403);
  const admin = await superAdmin(app);
  const res = await app.http().get('/admin/permissions').set('Authorization', admin.auth);
  expect(res.status).toBe(200);
  const settings = res.body.data.sections.settings as { action: string; category: string; subCategory: string; displayName: string }[];
  expect(settings.filter((action) => action.action.startsWith('plugin::public-api.'))).toEqual([
    expect.objectContaining({ action: 'plugin::public-api.settings.read', category: 'Public Data API', subCategory: 'Keys and websites' }),
    expect.objectContaining({ action: 'plugin::public-api.settings.create' }),
    expect.objectContaining({ action: 'plugin::public-api.settings.update' }),
    expect.objectContaining({ action: 'plugin::public-api.settings.delete' }),
    expect.objectContaining({ action: 'plugin::public-api.settings.regenerate' }),
  ]);
});

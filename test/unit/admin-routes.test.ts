/**
 * The admin's one client is built from the contracts' route table (shared/contracts/admin-routes.ts): the
 * table is the server's admin routes, no more, no fewer, and a call's request is made from it as the route
 * asks (path parameters filled in and encoded, absent query values left out).
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { ADMIN_ROUTES } from '../../src/plugins/public-api/shared/contracts/admin-routes';
import { adminRequest, fillPath } from '../../src/plugins/public-api/admin/src/api/request';

/**
 * The server's admin routes as its route file lists them, one `{ method, path, handler, action }` a line. Read
 * as text: importing the file would load the server's controllers into a unit test.
 */
const serverRoutes = (): string[] => {
  const file = path.resolve(__dirname, '../../src/plugins/public-api/server/src/routes/admin.ts');
  const text = fs.readFileSync(file, 'utf8');
  const routes = [...text.matchAll(/\{ method: '(GET|POST|PUT|DELETE)', path: '([^']+)', handler: '[^']+', action: '[^']+' \}/g)];
  // Every route line of the file is read: as many as it names handlers.
  expect(routes).toHaveLength([...text.matchAll(/handler: '/g)].length);
  return routes.map(([, method, route]) => `${method} ${route}`);
};

test("the contracts' table holds every admin route of the server, and only those", () => {
  const table = Object.values(ADMIN_ROUTES).map(({ method, path: route }) => `${method} ${route}`);
  expect(table.sort()).toEqual(serverRoutes().sort());
});

test('a request is the route with its path parameters filled in, its set query values and its body', () => {
  expect(adminRequest('listKeys')).toEqual({ method: 'GET', url: '/public-api/keys' });
  expect(adminRequest('getKey', { params: { id: 'a b/c' } })).toEqual({ method: 'GET', url: '/public-api/keys/a%20b%2Fc' });
  expect(adminRequest('redeliverWebhook', { params: { id: 4, delivery: 19 } })).toEqual({
    method: 'POST',
    url: '/public-api/webhooks/4/deliveries/19/redeliver',
  });
  expect(adminRequest('getKeyUsage', { params: { id: 7 }, query: { window: '7d' } })).toEqual({
    method: 'GET',
    url: '/public-api/keys/7/usage',
    params: { window: '7d' },
  });
  // Absent values are not sent as `undefined`; a query with none set sends no query at all.
  expect(adminRequest('listAuditLog', { query: { subjectType: 'key', subjectId: 3, before: undefined, limit: undefined } })).toEqual({
    method: 'GET',
    url: '/public-api/audit-log',
    params: { subjectType: 'key', subjectId: 3 },
  });
  expect(adminRequest('listWebhookDeliveries', { params: { id: 2 }, query: {} })).toEqual({
    method: 'GET',
    url: '/public-api/webhooks/2/deliveries',
  });
  const body = { name: 'Shop', publications: [] };
  expect(adminRequest('createWebsite', { body })).toEqual({ method: 'POST', url: '/public-api/websites', body });
});

test('a path parameter left out or empty is refused before anything is sent', () => {
  expect(() => fillPath('/keys/:id', {})).toThrow('The path /keys/:id needs its parameter id.');
  expect(() => fillPath('/keys/:id', { id: '' })).toThrow('needs its parameter id');
  expect(() => adminRequest('redeliverWebhook', { params: { id: 1 } } as never)).toThrow('needs its parameter delivery');
});

test('property: any id stays one path segment, and decodes back to itself', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }), (id) => {
      const url = adminRequest('getWebsite', { params: { id } }).url;
      const segments = url.split('/');
      expect(segments.slice(0, 3)).toEqual(['', 'public-api', 'websites']);
      expect(segments).toHaveLength(4);
      expect(segments[3]).not.toMatch(/[?#]/);
      expect(decodeURIComponent(segments[3])).toBe(id);
    }),
  );
});

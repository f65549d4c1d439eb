/**
 * Contract section 4, origin rules: a browser origin must be on the key's list; CORS echoes only
 * allowed origins. Origin rules are not authentication.
 */
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';

let app: TestApp;
let shop: Awaited<ReturnType<typeof createKey>>;
let noOrigins: Awaited<ReturnType<typeof createKey>>;

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  const resources = { 'native:events': { actions: ['read'], read: ['title'] } };
  shop = await createKey(app.strapi, { resources, origins: ['https://shop.example', 'https://*.brand.example', 'http://localhost:3000'] });
  noOrigins = await createKey(app.strapi, { resources, origins: [] });
});
afterAll(async () => {
  await app?.close();
});

const get = (key: { auth: string }, origin?: string) => {
  const req = app.http().get('/api/v2/').set('Authorization', key.auth);
  return origin ? req.set('Origin', origin) : req;
};

test('no Origin header: no origin rule applies and no CORS header is sent', async () => {
  const res = await get(noOrigins);
  expect(res.status).toBe(200);
  expect(res.headers['access-control-allow-origin']).toBeUndefined();
});

test.each([
  'https://shop.example',
  'https://SHOP.example',
  'https://a.brand.example',
  'https://deep.sub.brand.example',
  'http://localhost:3000',
])('allowed origin %s is echoed', async (origin) => {
  const res = await get(shop, origin);
  expect(res.status).toBe(200);
  expect(res.headers['access-control-allow-origin']).toBe(origin);
  expect(res.headers.vary).toMatch(/Origin/);
});

test.each([
  'https://evil.example',
  'http://shop.example', // other scheme
  'https://shop.example:8443', // other port
  'https://brand.example', // the wildcard needs a subdomain
  'https://brand.example.evil', // suffix trick
  'https://xbrand.example', // label boundary
  'http://localhost:3001',
  'null',
  'not an origin',
])('origin %s not on the list is 403 without CORS headers', async (origin) => {
  const res = await get(shop, origin);
  expect(res.status).toBe(403);
  expectValidJsonApi(res.body);
  expect(res.body.errors[0]).toMatchObject({ code: 'forbidden', source: { header: 'Origin' }, meta: { reason: 'origin_not_allowed' } });
  expect(res.headers['access-control-allow-origin']).toBeUndefined();
});

test('an empty list allows no browser origin', async () => {
  const res = await get(noOrigins, 'https://shop.example');
  expect(res.status).toBe(403);
});

test('origin rules are not authentication: an allowed origin without a key is 401', async () => {
  const res = await app.http().get('/api/v2/').set('Origin', 'https://shop.example');
  expect(res.status).toBe(401);
  // The browser may read the 401 because some key allows this origin.
  expect(res.headers['access-control-allow-origin']).toBe('https://shop.example');
  const other = await app.http().get('/api/v2/').set('Origin', 'https://evil.example');
  expect(other.status).toBe(401);
  expect(other.headers['access-control-allow-origin']).toBeUndefined();
});

describe('preflight', () => {
  const preflight = (origin: string, path = '/api/v2/') =>
    app
      .http()
      .options(path)
      .set('Origin', origin)
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'authorization');

  test('an origin some key allows gets the CORS answer', async () => {
    const res = await preflight('https://a.brand.example');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://a.brand.example');
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expect(res.headers['access-control-allow-headers']).toMatch(/Authorization/);
    expect(res.headers['access-control-allow-headers']).toMatch(/Idempotency-Key/);
  });

  test('an origin no key allows is refused', async () => {
    const res = await preflight('https://evil.example');
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expectValidJsonApi(res.body);
  });

  test('a preflight to an unknown path is 404', async () => {
    const res = await preflight('https://shop.example', '/api/v2/a/b/c/d');
    expect(res.status).toBe(404);
  });

  test('Strapi’s own CORS middleware never answers for /api/v2', async () => {
    const res = await app.http().get('/api/v2/').set('Authorization', noOrigins.auth).set('Origin', 'https://evil.example');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });
});

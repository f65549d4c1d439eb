/**
 * Contract section 4, origin rules: a browser origin must be on the key's list; CORS echoes only
 * serialized origins, with the full answer when allowed and on the refusal alone otherwise (issue 33).
 * Origin rules are not authentication.
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
  ['https://shop.example', 'https://shop.example'],
  ['https://SHOP.example', 'https://shop.example'],
  ['https://a.brand.example', 'https://a.brand.example'],
  ['https://deep.sub.brand.example', 'https://deep.sub.brand.example'],
  ['http://localhost:3000', 'http://localhost:3000'],
])('allowed origin %s is echoed as %s', async (origin, echoed) => {
  const res = await get(shop, origin);
  expect(res.status).toBe(200);
  expect(res.headers['access-control-allow-origin']).toBe(echoed);
  expect(res.headers['access-control-expose-headers']).toMatch(/ETag/);
  expect(res.headers.vary).toMatch(/Origin/);
});

const expectRefusal = (res: { status: number; body: any }) => {
  expect(res.status).toBe(403);
  expectValidJsonApi(res.body);
  expect(res.body.errors).toEqual([
    {
      status: '403',
      code: 'forbidden',
      title: 'Forbidden',
      detail: 'This key does not allow requests from this browser origin.',
      source: { header: 'Origin' },
      meta: { reason: 'origin_not_allowed' },
    },
  ]);
};

test.each([
  'https://evil.example',
  'http://shop.example', // other scheme
  'https://shop.example:8443', // other port
  'https://brand.example', // the wildcard needs a subdomain
  'https://brand.example.evil', // suffix trick
  'https://xbrand.example', // label boundary
  'http://localhost:3001',
])('origin %s not on the list is 403, readable by that page and granting nothing', async (origin) => {
  const res = await get(shop, origin);
  expectRefusal(res);
  // The page may read the refusal (issue 33, item 12), and only it: no exposed header, no credentials.
  expect(res.headers['access-control-allow-origin']).toBe(origin);
  expect(res.headers.vary).toMatch(/Origin/);
  expect(res.headers['access-control-expose-headers']).toBeUndefined();
  expect(res.headers['access-control-allow-credentials']).toBeUndefined();
});

test.each([
  'null',
  'not an origin',
  // Not serialized origins, though a URL parser finds an allowed origin in each (issue 33).
  'https://shop.example/path',
  'https://shop.example/',
  'https://shop.example?x=1',
  'https://user@shop.example',
  'https://shop.example:443',
  'https://a.brand.example/',
])('Origin %s, no serialized origin, is 403 without any CORS header', async (origin) => {
  const res = await get(shop, origin);
  expectRefusal(res);
  expect(res.headers['access-control-allow-origin']).toBeUndefined();
  expect(res.headers['access-control-expose-headers']).toBeUndefined();
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

  test('an origin no key allows may send, and its request is refused readably (issue 33, item 12)', async () => {
    const res = await preflight('https://evil.example');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://evil.example');
    expect(res.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    const request = await get(shop, 'https://evil.example');
    expectRefusal(request);
    expect(request.headers['access-control-allow-origin']).toBe('https://evil.example');
    // The refusal comes before any record is read: the body holds the error alone.
    expect(Object.keys(request.body).sort()).toEqual(['errors', 'jsonapi']);
  });

  test.each(['null', 'https://shop.example/path', 'https://user@shop.example', 'file://'])(
    'a preflight from %s, no serialized origin, is refused without CORS headers',
    async (origin) => {
      const res = await preflight(origin);
      expect(res.status).toBe(403);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expectValidJsonApi(res.body);
      expect(res.body.errors[0]).toMatchObject({ source: { header: 'Origin' }, meta: { reason: 'origin_not_allowed' } });
    },
  );

  test('a preflight to an unknown path is 404', async () => {
    const res = await preflight('https://shop.example', '/api/v2/a/b/c/d');
    expect(res.status).toBe(404);
  });

  test('Strapi’s own CORS middleware never answers for /api/v2', async () => {
    const res = await app.http().get('/api/v2/').set('Authorization', noOrigins.auth).set('Origin', 'https://evil.example');
    // Only the plugin's readable refusal: Strapi's middleware would add its methods, headers and credentials.
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBe('https://evil.example');
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    const preflight = await app
      .http()
      .options('/api/v2/')
      .set('Origin', 'https://evil.example')
      .set('Access-Control-Request-Method', 'GET');
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
  });
});

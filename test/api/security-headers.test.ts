/**
 * /api/v2 sits before Strapi's `strapi::security` middleware (config/middlewares.ts) and sets the headers
 * that middleware would have set, taken once from it (middlewares/security-headers.ts). Every answer, a
 * document, an error or an asset, carries exactly the security headers Strapi gives its own routes.
 */
import { bootApp, type TestApp } from '../helpers/app';
import { publish } from '../helpers/fixtures';
import { createKey } from '../helpers/keys';

/** The headers helmet, with Strapi's defaults, sets on a response. */
const HELMET = [
  'content-security-policy',
  'referrer-policy',
  'strict-transport-security',
  'x-content-type-options',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
];

let app: TestApp;
let auth: string;

beforeAll(async () => {
  app = await bootApp();
  await publish(app.strapi, 'api::event.event', {
    title: 'Talk',
    slug: 'talk',
    startsAt: '2027-07-01T10:00:00.000Z',
    category: 'talk',
  });
  ({ auth } = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: '*' } } }));
});
afterAll(() => app?.close());

const securityOf = (headers: Record<string, string | string[] | undefined>) =>
  Object.fromEntries(HELMET.map((name) => [name, headers[name]]));

test("Strapi's own routes carry helmet's headers (the reference the rest of this suite compares with)", async () => {
  const strapiRoute = await app.http().get('/_health');
  for (const name of HELMET) expect(strapiRoute.headers[name]).toEqual(expect.any(String));
});

test.each([
  ['a document', '/api/v2/events', true, 200],
  ['a record', '/api/v2/events/talk', true, 200],
  ['a 401', '/api/v2/events', false, 401],
  ['a 404', '/api/v2/nothing-here', true, 404],
  ['a 400', '/api/v2/events?limit=0', true, 400],
  ['the OpenAPI document', '/api/v2/openapi.json', true, 200],
])('%s under /api/v2 carries the same security headers as Strapi routes', async (_, path, keyed, status) => {
  const reference = securityOf((await app.http().get('/_health')).headers);
  const request = app.http().get(path);
  const res = await (keyed ? request.set('Authorization', auth) : request);
  expect(res.status).toBe(status);
  expect(securityOf(res.headers)).toEqual(reference);
  // Set once, not twice (a repeated header would be joined with a comma).
  expect(String(res.headers['strict-transport-security'])).not.toContain(',');
});

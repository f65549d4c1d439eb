/**
 * Contract sections 8 and 12: one error document for everything under /api/v2, negotiation, and no
 * internals in a 500.
 */
import { winston } from '@strapi/logger';
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';

let app: TestApp;
let auth: string;
/** What the console transport was given to write: the logger's own level rules applied. */
type LogEntry = Record<symbol, string> & { message?: unknown };
let logged: LogEntry[];
/** The uncoloured level of a log entry (the format colours `level`). */
const LEVEL = Symbol.for('level');

beforeAll(async () => {
  // The default log level (LOG_LEVEL unset), as operators run it. Every console transport's output is
  // recorded instead of printed, from the boot on: what passes the logger's level rules reaches `log`.
  logged = [];
  jest.spyOn(winston.transports.Console.prototype, 'log').mockImplementation(((info: LogEntry, done?: () => void) => {
    logged.push(info);
    done?.();
  }) as never);
  app = await checkResponses(await bootApp({ LOG_LEVEL: '' }));
  auth = (await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: ['title'] } } })).auth;
});
afterAll(async () => {
  await app?.close();
});

const expectError = (
  res: { status: number; headers: Record<string, string>; body: { errors: unknown[] } },
  status: number,
  code: string,
) => {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/vnd.api+json');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expectValidJsonApi(res.body);
  expect(res.body.errors[0]).toMatchObject({ status: String(status), code });
};

test.each(['/api/v2/a/b/c/d', '/api/v2/a//b', '/api/v2/%E0%A4%A', '/api/v2/cms/only-website'])('unknown path %s is 404', async (path) => {
  const res = await app.http().get(path).set('Authorization', auth);
  expectError(res, 404, 'not_found');
});

test('a wrong method is 405 with Allow', async () => {
  for (const method of ['post', 'put', 'patch', 'delete'] as const) {
    const res = await app.http()[method]('/api/v2/').set('Authorization', auth);
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  }
});

test('HEAD answers like GET without a body', async () => {
  const res = await app.http().head('/api/v2/').set('Authorization', auth);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('application/vnd.api+json');
  expect(res.text ?? '').toBe('');
});

describe('Accept negotiation', () => {
  test.each([
    'application/vnd.api+json',
    '*/*',
    'application/*',
    'application/json, application/vnd.api+json;q=0.5',
    'application/vnd.api+json; ext="https://example.com/ext", application/vnd.api+json',
    'application/vnd.api+json; profile="https://example.com/p"',
    'text/html, */*;q=0.1',
  ])('%s is acceptable', async (accept) => {
    const res = await app.http().get('/api/v2/').set('Authorization', auth).set('Accept', accept);
    expect(res.status).toBe(200);
  });

  test.each(['text/html', 'application/json', 'application/xml, text/plain', 'application/vnd.api+json;q=0', '*/*;q=0'])(
    '%s is 406',
    async (accept) => {
      const res = await app.http().get('/api/v2/').set('Authorization', auth).set('Accept', accept);
      expectError(res, 406, 'not_acceptable');
      expect(res.body.errors[0].source).toEqual({ header: 'Accept' });
    },
  );

  test('JSON:API asking only for an extension the endpoint does not support is 406 (JSON:API 1.1)', async () => {
    const res = await app
      .http()
      .get('/api/v2/')
      .set('Authorization', auth)
      .set('Accept', 'application/vnd.api+json; ext="https://example.com/ext"');
    expectError(res, 406, 'not_acceptable');
    expect(res.body.errors[0].meta).toEqual({ reason: 'extension_unsupported' });
  });

  test('JSON:API with a parameter other than ext or profile is 406', async () => {
    const res = await app.http().get('/api/v2/').set('Authorization', auth).set('Accept', 'application/vnd.api+json; charset=utf-8');
    expectError(res, 406, 'not_acceptable');
    expect(res.body.errors[0].meta).toEqual({ reason: 'media_type_parameters' });
  });
});

test('a crash inside a handler is a 500 with no internals', async () => {
  // A key of its own, with grants no other key here has: the resource index is kept per grants (handlers/
  // resource-index.ts), and one kept for the suite's key would be answered without reaching the registry.
  const crashing = (await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: ['title', 'slug'] } } })).auth;
  const registry = app.strapi.plugin('public-api').service('resources') as { native: () => unknown };
  const original = registry.native;
  registry.native = () => {
    throw new Error('SELECT * FROM secret_table at /srv/app/internal/path.ts:42');
  };
  try {
    logged.length = 0;
    const res = await app.http().get('/api/v2/').set('Authorization', crashing);
    expectError(res, 500, 'internal_error');
    // Logged with its stack at the default level, as the body promises; never sent. (Only the request's
    // error: a background turn of the webhook dispatcher that reads the registry meanwhile logs its own.)
    const errors = logged.filter((entry) => entry[LEVEL] === 'error' && String(entry.message).includes('GET /api/v2/ failed'));
    expect(errors).toHaveLength(1);
    expect(String(errors[0]!.message)).toContain('SELECT * FROM secret_table at /srv/app/internal/path.ts:42');
    expect(String(errors[0]!.message)).toMatch(/\n\s+at /);
    expect(res.text).not.toMatch(/secret_table|internal\/path|SELECT|at \//);
    expect(res.body.errors).toEqual([
      {
        status: '500',
        code: 'internal_error',
        title: 'Internal Server Error',
        detail: 'The server could not complete the request. It has been logged.',
      },
    ]);
  } finally {
    registry.native = original;
  }
});

test('paths that merely start with /api/v2 are not ours', async () => {
  const res = await app.http().get('/api/v2x').set('Authorization', auth);
  expect(res.headers['content-type'] ?? '').not.toBe('application/vnd.api+json');
});

test('Strapi’s own REST API is untouched', async () => {
  const res = await app.http().get('/api/events');
  expect([401, 403]).toContain(res.status);
  expect(res.headers['content-type']).toMatch(/application\/json/);
});

/**
 * Every way a write is refused before anything is written (contract sections 4, 7 and 8): media types,
 * sizes, malformed documents, mismatched type or id, grants, resources and records that are not there,
 * methods a resource never supports, and query parameters.
 */
import http from 'node:http';
import type { Core } from '@strapi/strapi';
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey } from '../helpers/keys';
import { draft, publish, website } from '../helpers/fixtures';
import { listenOnce, resourceDocument, tableSnapshot, writer } from '../helpers/writes';
import { expectValidJsonApi } from '../helpers/jsonapi';

const EVENT = 'api::event.event';
const UIDS = [EVENT, 'api::page.page', 'api::setting.setting', 'api::job.job'];

let app: TestApp;
let s: Core.Strapi;
let api: ReturnType<typeof writer>;
let editor: { auth: string };
let reader: { auth: string };
const ids: Record<string, string> = {};

const VALID_EVENT = { title: 'Refusals', category: 'talk', startsAt: '2027-01-01T10:00:00Z' };

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  s = app.strapi;
  api = writer(app);
  await listenOnce(app);
  ids.talk = (await publish(s, EVENT, { title: 'Talk', slug: 'talk', category: 'talk', startsAt: '2027-01-01T10:00:00Z' })).documentId;
  ids.other = (await publish(s, EVENT, { title: 'Other', slug: 'other', category: 'talk', startsAt: '2027-01-01T10:00:00Z' })).documentId;
  ids.hidden = (await draft(s, EVENT, { title: 'Hidden', slug: 'hidden', category: 'talk', startsAt: '2027-01-01T10:00:00Z' })).documentId;
  const site = await website(s, 'site-a', [
    { collection: 'pages', contentType: 'api::page.page', mode: 'collection' },
    { collection: 'settings', contentType: 'api::setting.setting', mode: 'singleton' },
  ]);
  await publish(s, 'api::setting.setting', { siteName: 'Site A', website: site.documentId });
  editor = await createKey(s, {
    resources: {
      'native:events': { actions: ['read', 'create', 'update', 'delete'], read: '*', write: '*' },
      'cms:site-a/pages': { actions: ['read', 'create', 'update', 'delete'], read: '*', write: '*' },
      'cms:site-a/settings': { actions: ['read', 'update'], read: '*', write: '*' },
    },
  });
  reader = await createKey(s, { resources: { 'native:events': { actions: ['read'], read: ['title'] } } });
});
afterAll(async () => {
  await app?.close();
});

const expectError = (res: { status: number; body: any }, status: number, match: Record<string, unknown>) => {
  expect(res.status).toBe(status);
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0]).toMatchObject({ status: String(status), ...match });
};

/** Raw HTTP, for what supertest does not send: chunked bodies, bodies without a media type. */
const raw = (method: string, path: string, headers: Record<string, string>, write: (req: http.ClientRequest) => void) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }>((resolve, reject) => {
    const address = s.server.httpServer.address() as { port: number };
    const req = http.request({ host: '127.0.0.1', port: address.port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    write(req);
  });

describe('bodies', () => {
  let before: unknown;
  beforeEach(async () => {
    before = await tableSnapshot(s, UIDS);
  });
  afterEach(async () => {
    expect(await tableSnapshot(s, UIDS)).toEqual(before);
  });

  test.each([
    ['text/plain', { reason: 'unsupported_media_type' }],
    ['application/x-www-form-urlencoded', { reason: 'unsupported_media_type' }],
    ['application/vnd.api+json; charset=utf-8', { reason: 'media_type_parameters' }],
  ])('Content-Type %s is 415', async (contentType, meta) => {
    const res = await api.post('/api/v2/events', editor.auth, resourceDocument('events', VALID_EVENT), { 'Content-Type': contentType });
    expectError(res, 415, { code: 'unsupported_media_type', source: { header: 'Content-Type' }, meta });
  });

  test('a body without Content-Type is 415', async () => {
    const res = await raw('POST', '/api/v2/events', { Authorization: editor.auth, 'Content-Length': '2' }, (req) => req.end('{}'));
    expectValidJsonApi(res.body);
    expectError(res, 415, { source: { header: 'Content-Type' } });
  });

  test('over 1 MiB is 413, whether declared or streamed; exactly 1 MiB is read', async () => {
    const sized = (bytes: number) => {
      const skeleton = JSON.stringify(resourceDocument('events', { ...VALID_EVENT, summary: '' }));
      return skeleton.replace('"summary":""', `"summary":"${'x'.repeat(bytes - skeleton.length)}"`);
    };
    const limit = 1024 * 1024;
    expect(Buffer.byteLength(sized(limit))).toBe(limit);
    const atLimit = await api.post('/api/v2/events', editor.auth, sized(limit));
    // Read and judged: the summary is longer than the schema allows.
    expectError(atLimit, 422, { source: { pointer: '/data/attributes/summary' } });
    const over = await api.post('/api/v2/events', editor.auth, sized(limit + 1));
    expectError(over, 413, { code: 'payload_too_large', meta: { reason: 'body_too_large' } });

    const chunked = await raw(
      'POST',
      '/api/v2/events',
      { Authorization: editor.auth, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      (req) => {
        const chunk = 'x'.repeat(64 * 1024);
        for (let i = 0; i < 20; i += 1) req.write(chunk);
        req.end();
      },
    );
    expectValidJsonApi(chunked.body);
    expectError(chunked, 413, { meta: { reason: 'body_too_large' } });
    expect(chunked.headers.connection).toBe('close');
  });

  test.each([
    ['no body', undefined, { reason: 'body_missing' }],
    ['an empty body', '', { reason: 'body_missing' }],
    ['malformed JSON', '{"data": ', { reason: 'body_malformed' }],
    ['JSON that is not a document', '[1, 2]', { reason: 'document_invalid' }],
    ['a document without data', '{"meta": {}}', { reason: 'document_invalid' }],
    [
      'relationships',
      JSON.stringify({ data: { type: 'events', relationships: { venue: { data: null } } } }),
      { reason: 'document_invalid' },
    ],
    ['a type that is not a string', JSON.stringify({ data: { type: 5, attributes: {} } }), { reason: 'document_invalid' }],
  ])('%s is 400', async (_name, body, meta) => {
    const res =
      body === undefined
        ? await api.send('post', '/api/v2/events', editor.auth)
        : await api.post('/api/v2/events', editor.auth, body, { 'Content-Type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'bad_request', meta });
  });

  test('relationships are pointed at', async () => {
    const res = await api.post('/api/v2/events', editor.auth, { data: { type: 'events', relationships: {} } });
    expect(res.body.errors[0].source).toEqual({ pointer: '/data/relationships' });
  });

  test('a DELETE with a body is 400 and deletes nothing', async () => {
    const res = await api.send('delete', '/api/v2/events/talk', editor.auth, { data: null });
    expectError(res, 400, { meta: { reason: 'body_not_allowed' } });
  });

  test('type and id that do not match the path are 409; a POST that brings its own id is 403 (JSON:API)', async () => {
    expectError(await api.post('/api/v2/events', editor.auth, resourceDocument('jobs', VALID_EVENT)), 409, {
      code: 'conflict',
      source: { pointer: '/data/type' },
      meta: { reason: 'type_mismatch' },
    });
    expectError(await api.post('/api/v2/events', editor.auth, resourceDocument('events', VALID_EVENT, 'my-own-id')), 403, {
      code: 'forbidden',
      source: { pointer: '/data/id' },
      meta: { reason: 'client_id_not_supported' },
    });
    expectError(await api.patch('/api/v2/events/talk', editor.auth, resourceDocument('events', { title: 'x' }, ids.other)), 409, {
      source: { pointer: '/data/id' },
      meta: { reason: 'id_mismatch' },
    });
    // The id is the record's id, not its slug.
    expectError(await api.patch('/api/v2/events/talk', editor.auth, resourceDocument('events', { title: 'x' }, 'talk')), 409, {
      meta: { reason: 'id_mismatch' },
    });
    expectError(await api.patch('/api/v2/cms/site-a/settings', editor.auth, resourceDocument('pages', { siteName: 'x' })), 409, {
      meta: { reason: 'type_mismatch' },
    });
  });

  test('unknown and ungranted fields: one 422 each, the same answer, nothing else of the write applied', async () => {
    const key = await createKey(s, {
      resources: {
        'native:events': { actions: ['read', 'create', 'update'], read: ['title', 'summary'], write: ['title', 'category', 'startsAt'] },
      },
    });
    const res = await api.patch(
      '/api/v2/events/talk',
      key.auth,
      resourceDocument('events', { title: 'Changed', summary: 'x', price: 3, doesNotExist: true }),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(
      ['summary', 'price', 'doesNotExist'].map((name) => ({
        status: '422',
        code: 'unprocessable_entity',
        title: 'Unprocessable Entity',
        detail: `Field '${name}' is not writable with this key.`,
        source: { pointer: `/data/attributes/${name}` },
        meta: { reason: 'field_not_writable' },
      })),
    );
  });
});

describe('resources, records, grants and methods', () => {
  test('403 for a resource the key may not write, before the body is looked at', async () => {
    for (const [method, path] of [
      ['post', '/api/v2/events'],
      ['patch', '/api/v2/events/talk'],
    ] as const) {
      const res = await api[method](path, reader.auth, 'not json', { 'Content-Type': 'text/plain' });
      expectError(res, 403, { code: 'forbidden', meta: { reason: 'action_not_granted' } });
    }
    expectError(await api.del('/api/v2/events/talk', reader.auth), 403, { meta: { reason: 'action_not_granted' } });
    const createOnly = await createKey(s, { resources: { 'native:events': { actions: ['create'], write: ['title'] } } });
    expectError(await api.patch('/api/v2/events/talk', createOnly.auth, resourceDocument('events', { title: 'x' })), 403, {
      detail: 'This key may not update records of native:events.',
    });
    expectError(await api.post('/api/v2/cms/site-a/pages', reader.auth, resourceDocument('pages', { title: 'x' })), 403, {
      code: 'forbidden',
    });
  });

  test('404 for resources that do not exist and records not visible to the key', async () => {
    expectError(await api.post('/api/v2/spaceships', editor.auth, resourceDocument('spaceships', {})), 404, {
      meta: { reason: 'resource_not_found' },
    });
    expectError(await api.post('/api/v2/cms/no-site/pages', editor.auth, resourceDocument('pages', {})), 404, {
      meta: { reason: 'resource_not_found' },
    });
    for (const path of ['/api/v2/events/nope', '/api/v2/events/hidden', `/api/v2/events/${ids.hidden}`, '/api/v2/cms/site-a/pages/nope']) {
      expectError(await api.patch(path, editor.auth, resourceDocument('events', { title: 'x' })), 404, {
        meta: { reason: 'record_not_found' },
      });
      expectError(await api.del(path, editor.auth), 404, { meta: { reason: 'record_not_found' } });
    }
    // A singleton has no records below it.
    expectError(await api.patch('/api/v2/cms/site-a/settings/anything', editor.auth, resourceDocument('settings', {})), 404, {
      meta: { reason: 'record_not_found' },
    });
    expect((await s.db.query(EVENT as never).findMany({ where: { documentId: ids.hidden } })).map((row: any) => row.title)).toEqual([
      'Hidden',
    ]);
  });

  test('405 with the Allow of the resource for what it never supports, whatever the key', async () => {
    for (const auth of [editor.auth, reader.auth]) {
      const post = await api.post('/api/v2/cms/site-a/settings', auth, resourceDocument('settings', { siteName: 'x' }));
      expectError(post, 405, { code: 'method_not_allowed', meta: { reason: 'method_not_allowed' } });
      expect(post.headers.allow).toBe('GET, HEAD, PATCH, OPTIONS');
      const del = await api.del('/api/v2/cms/site-a/settings', auth);
      expectError(del, 405, { code: 'method_not_allowed' });
      expect(del.headers.allow).toBe('GET, HEAD, PATCH, OPTIONS');
      const patch = await api.patch('/api/v2/cms/site-a/pages', auth, resourceDocument('pages', {}));
      expectError(patch, 405, { code: 'method_not_allowed' });
      expect(patch.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
      const delCollection = await api.del('/api/v2/cms/site-a/pages', auth);
      expect(delCollection.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
    }
    // Native resources are collections: the router knows.
    const patchNative = await api.patch('/api/v2/events', editor.auth, resourceDocument('events', {}));
    expectError(patchNative, 405, { code: 'method_not_allowed' });
    expect(patchNative.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
    const put = await app.http().put('/api/v2/events/talk').set('Authorization', editor.auth);
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, HEAD, PATCH, DELETE, OPTIONS');
  });

  test('a preflight lists the write methods of a path', async () => {
    const res = await app.http().options('/api/v2/events/talk');
    expect(res.status).toBe(204);
    expect(res.headers.allow).toBe('GET, HEAD, PATCH, DELETE, OPTIONS');
    expect((await app.http().options('/api/v2/events')).headers.allow).toBe('GET, HEAD, POST, OPTIONS');
  });

  test('a write takes only the locale parameter: anything else is 400 naming it', async () => {
    const res = await api.post('/api/v2/events?include=venue&foo=1', editor.auth, resourceDocument('events', VALID_EVENT));
    expect(res.status).toBe(400);
    expect(res.body.errors.map((error: { source: unknown }) => error.source)).toEqual([{ parameter: 'include' }, { parameter: 'foo' }]);
    const twice = await api.patch('/api/v2/events/talk?locale=en&locale=en', editor.auth, resourceDocument('events', { title: 'x' }));
    expectError(twice, 400, { source: { parameter: 'locale' }, meta: { reason: 'parameter_repeated' } });
    expectError(await api.del('/api/v2/events/talk?cursor=x', editor.auth), 400, { source: { parameter: 'cursor' } });
  });
});

/**
 * /public-api/keys as the admin panel uses it: the plaintext appears once, grants are validated on
 * the server with errors per field, and every change applies to /api/v2 on the next request.
 */
import { bootApp, type TestApp } from '../helpers/app';
import { superAdmin, type AdminSession } from '../helpers/admin';

let app: TestApp;
let admin: AdminSession;

beforeAll(async () => {
  app = await bootApp();
  admin = await superAdmin(app);
});
afterAll(async () => {
  await app?.close();
});

const api = () => ({
  get: (path: string) => app.http().get(`/public-api${path}`).set('Authorization', admin.auth),
  post: (path: string, body?: object) =>
    app
      .http()
      .post(`/public-api${path}`)
      .set('Authorization', admin.auth)
      .send(body ?? {}),
  put: (path: string, body: object) => app.http().put(`/public-api${path}`).set('Authorization', admin.auth).send(body),
  del: (path: string) => app.http().delete(`/public-api${path}`).set('Authorization', admin.auth),
});

const v2 = (path: string, key: string) => app.http().get(`/api/v2${path}`).set('Authorization', `Bearer ${key}`);

const EVENTS_TITLE = {
  resources: { 'native:events': { actions: ['read'], read: ['title', 'summary'], write: [] } },
  commands: [],
  origins: [],
};

const validationError = (errors: { path: string[]; message: string | RegExp }[]) => ({
  data: null,
  error: {
    status: 400,
    name: 'ValidationError',
    message: expect.any(String),
    details: {
      errors: errors.map(({ path, message }) => ({
        path,
        message: typeof message === 'string' ? message : expect.stringMatching(message),
        name: 'ValidationError',
      })),
    },
  },
});

describe('create', () => {
  test('answers the key with its plaintext once; the key works at once; listing never shows it again', async () => {
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const created = await api().post('/keys', { name: '  Website  ', description: 'The public site', expiresAt, grants: EVENTS_TITLE });
    expect(created.status).toBe(201);
    const plaintext: string = created.body.meta.plaintext;
    expect(plaintext).toMatch(/^pdk_[0-9A-Za-z]{12}_[0-9A-Za-z]{32,}$/);
    expect(created.body).toEqual({
      data: {
        id: expect.any(Number),
        documentId: expect.any(String),
        name: 'Website',
        description: 'The public site',
        prefix: plaintext.slice(0, 16),
        lastFour: plaintext.slice(-4),
        grants: { resources: { 'native:events': { actions: ['read'], read: ['title', 'summary'], write: [] } }, commands: [], origins: [] },
        limits: null,
        cache: null,
        preview: false,
        expiresAt,
        revoked: false,
        lastUsedAt: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
      meta: { plaintext },
    });

    const index = await v2('/', plaintext);
    expect(index.status).toBe(200);
    expect(index.body.data.map((entry: { id: string }) => entry.id)).toEqual(['native:events']);

    const list = await api().get('/keys');
    expect(list.status).toBe(200);
    const text = JSON.stringify(list.body);
    expect(text).not.toContain(plaintext.slice(16));
    expect(text).not.toMatch(/secretHash|keyId/);
    expect(list.body.data).toContainEqual(
      expect.objectContaining({ id: created.body.data.id, name: 'Website', lastFour: plaintext.slice(-4) }),
    );

    await app.flushKeyUse();
    const one = await api().get(`/keys/${created.body.data.id}`);
    expect(one.status).toBe(200);
    // The key was used above: the admin shows when.
    expect(one.body).toEqual({ data: { ...created.body.data, lastUsedAt: expect.any(String) } });
  });

  test('a key without grants and without expiry', async () => {
    const created = await api().post('/keys', { name: 'Empty' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ expiresAt: null, grants: { resources: {}, commands: [], origins: [] } });
    const index = await v2('/', created.body.meta.plaintext);
    expect(index.status).toBe(200);
    expect(index.body.data).toEqual([]);
  });

  test('`*` field lists become every field that exists now', async () => {
    const created = await api().post('/keys', {
      name: 'All fields',
      grants: { resources: { 'native:festivals': { actions: ['read'], read: '*', write: [] } }, commands: [], origins: [] },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.grants.resources['native:festivals'].read).toEqual(
      expect.arrayContaining(['name', 'slug', 'startsOn', 'endsOn', 'description', 'website', 'poster', 'events']),
    );
  });

  test('every issue of the details and of the grants comes back at once, with the field it belongs to', async () => {
    const res = await api().post('/keys', {
      name: ' ',
      description: 'x'.repeat(2001),
      expiresAt: '2001-01-01T00:00:00.000Z',
      grants: {
        resources: {
          'native:events': { actions: ['read'], read: ['title', 'nope'], write: [] },
          'native:nothing': { actions: ['read'], read: [], write: [] },
        },
        commands: ['launch-rocket'],
        origins: ['https://ok.example', 'ftp://bad.example/path'],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      validationError([
        { path: ['name'], message: 'A key needs a name of 1 to 120 characters.' },
        { path: ['description'], message: 'The description is text of at most 2000 characters.' },
        { path: ['expiresAt'], message: 'The expiry must be in the future.' },
        { path: ['resources', 'native:events', 'read'], message: "Unknown field of native:events: 'nope'." },
        { path: ['resources', 'native:nothing'], message: "Unknown resource 'native:nothing'." },
        { path: ['commands'], message: "Unknown command: 'launch-rocket'." },
        { path: ['origins', '1'], message: /^'ftp:\/\/bad\.example\/path': An origin is scheme:\/\/host/ },
      ]),
    );
    expect((await api().get('/keys')).body.data.map((key: { name: string }) => key.name)).not.toContain(' ');
  });

  test('a singleton supports read and update only', async () => {
    const website = await api().post('/websites', {
      name: 'Single',
      publications: [{ collection: 'settings', contentType: 'api::setting.setting', mode: 'singleton' }],
    });
    expect(website.status).toBe(201);
    const res = await api().post('/keys', {
      name: 'Bad actions',
      grants: {
        resources: { 'cms:single/settings': { actions: ['read', 'create', 'delete'], read: [], write: [] } },
        commands: [],
        origins: [],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      validationError([
        {
          path: ['resources', 'cms:single/settings', 'actions'],
          message: 'cms:single/settings is a singleton: it supports read and update only, not create, delete.',
        },
      ]),
    );
  });

  test('a body of the wrong shape is refused member by member', async () => {
    const res = await api().post('/keys', { name: 42, expiresAt: 7, secret: 'mine' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      validationError([
        { path: ['name'], message: 'A key needs a name.' },
        { path: ['expiresAt'], message: 'The expiry is a date-time or null.' },
        { path: [], message: 'Unknown member: secret.' },
      ]),
    );
    const grants = await api().post('/keys', {
      name: 'Grants shape',
      grants: { resources: { 'native:events': { actions: ['fly'] } }, extra: 1 },
    });
    expect(grants.status).toBe(400);
    expect(grants.body.error.details.errors).toEqual([
      expect.objectContaining({ path: ['resources', 'native:events', 'actions', '0'] }),
      expect.objectContaining({ path: [] }),
    ]);
  });
});

describe('change', () => {
  test('grants, origins and details change; the API applies them on the next request', async () => {
    const created = await api().post('/keys', { name: 'Changing', grants: EVENTS_TITLE });
    const { id } = created.body.data;
    const plaintext: string = created.body.meta.plaintext;
    expect((await v2('/', plaintext)).body.data.map((entry: { id: string }) => entry.id)).toEqual(['native:events']);

    const updated = await api().put(`/keys/${id}`, {
      name: 'Changed',
      description: null,
      grants: {
        resources: { 'native:jobs': { actions: ['read', 'delete'], read: ['title'], write: [] } },
        commands: [],
        origins: ['https://*.Example.org/', 'http://localhost:3000'],
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({
      name: 'Changed',
      description: null,
      grants: {
        resources: { 'native:jobs': { actions: ['read', 'delete'], read: ['title'], write: [] } },
        commands: [],
        origins: ['https://*.example.org', 'http://localhost:3000'],
      },
    });
    expect((await v2('/', plaintext)).body.data.map((entry: { id: string }) => entry.id)).toEqual(['native:jobs']);
    const fromOrigin = await app
      .http()
      .get('/api/v2/')
      .set('Authorization', `Bearer ${plaintext}`)
      .set('Origin', 'https://shop.example.org');
    expect(fromOrigin.status).toBe(200);
    const otherOrigin = await app
      .http()
      .get('/api/v2/')
      .set('Authorization', `Bearer ${plaintext}`)
      .set('Origin', 'https://shop.example.com');
    expect(otherOrigin.status).toBe(403);
  });

  test('only the details that are sent change; a refused change changes nothing', async () => {
    const created = await api().post('/keys', { name: 'Partial', description: 'kept', grants: EVENTS_TITLE });
    const { id } = created.body.data;
    const renamed = await api().put(`/keys/${id}`, { name: 'Partial 2' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'Partial 2', description: 'kept', grants: created.body.data.grants });

    const refused = await api().put(`/keys/${id}`, { name: 'Not applied', grants: { resources: {}, commands: [], origins: ['nope'] } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(validationError([{ path: ['origins', '0'], message: /^'nope': An origin is/ }]));
    expect((await api().get(`/keys/${id}`)).body.data).toMatchObject({ name: 'Partial 2', grants: created.body.data.grants });
  });

  test('a rate limit is set, changed and cleared; the API applies it on the next request; bad ones are named', async () => {
    const created = await api().post('/keys', { name: 'Limited', grants: EVENTS_TITLE, limits: { requests: 50, window: 10 } });
    expect(created.status).toBe(201);
    expect(created.body.data.limits).toEqual({ requests: 50, window: 10 });
    const plaintext: string = created.body.meta.plaintext;
    expect((await v2('/', plaintext)).headers['ratelimit-policy']).toBe('"key";q=50;w=10');

    const changed = await api().put(`/keys/${created.body.data.id}`, { limits: { requests: 7, window: 60 } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.limits).toEqual({ requests: 7, window: 60 });
    expect((await v2('/', plaintext)).headers['ratelimit-policy']).toBe('"key";q=7;w=60');

    const refused = await api().put(`/keys/${created.body.data.id}`, { limits: { requests: 1.5, window: 0, burst: 2 } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(
      validationError([
        { path: ['limits', 'requests'], message: 'The number of cost units per window is a whole number from 1 to 1000000.' },
        { path: ['limits', 'window'], message: 'The rate limit window is a whole number of seconds from 1 to 86400.' },
        { path: ['limits', 'burst'], message: "A limit has no field 'burst': only requests and window." },
      ]),
    );
    expect((await api().get(`/keys/${created.body.data.id}`)).body.data.limits).toEqual({ requests: 7, window: 60 });

    const cleared = await api().put(`/keys/${created.body.data.id}`, { limits: null });
    expect(cleared.body.data.limits).toBeNull();
    // The test environment's default.
    expect((await v2('/', plaintext)).headers['ratelimit-policy']).toBe('"key";q=1000000;w=60');
  });

  test('a cache policy is set, changed and cleared; the API applies it on the next request; bad ones are named', async () => {
    const created = await api().post('/keys', { name: 'Cacheable', grants: EVENTS_TITLE, cache: { sharedMaxAge: 120 } });
    expect(created.status).toBe(201);
    expect(created.body.data.cache).toEqual({ sharedMaxAge: 120 });
    const plaintext: string = created.body.meta.plaintext;
    expect((await v2('/', plaintext)).headers['cache-control']).toBe('public, s-maxage=120, stale-while-revalidate=120');

    const changed = await api().put(`/keys/${created.body.data.id}`, { cache: { sharedMaxAge: 5 } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.cache).toEqual({ sharedMaxAge: 5 });
    expect((await v2('/', plaintext)).headers['cache-control']).toBe('public, s-maxage=5, stale-while-revalidate=5');

    const refused = await api().put(`/keys/${created.body.data.id}`, { cache: { sharedMaxAge: -1, maxAge: 3 } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(
      validationError([
        { path: ['cache', 'sharedMaxAge'], message: 'The shared cache max age is a whole number of seconds from 1 to 31536000.' },
        { path: ['cache', 'maxAge'], message: "A cache policy has no field 'maxAge': only sharedMaxAge." },
      ]),
    );
    expect((await api().get(`/keys/${created.body.data.id}`)).body.data.cache).toEqual({ sharedMaxAge: 5 });

    const cleared = await api().put(`/keys/${created.body.data.id}`, { cache: null });
    expect(cleared.body.data.cache).toBeNull();
    expect((await v2('/', plaintext)).headers['cache-control']).toBe('private, no-cache');
  });

  test('the preview flag is set and cleared; the API applies it on the next request; a flag that is not a boolean is named', async () => {
    const created = await api().post('/keys', { name: 'Preview site', grants: EVENTS_TITLE, preview: true });
    expect(created.status).toBe(201);
    expect(created.body.data.preview).toBe(true);
    const plaintext: string = created.body.meta.plaintext;
    const draft = await v2('/events?status=draft', plaintext);
    expect(draft.status).toBe(200);
    expect(draft.headers['cache-control']).toBe('no-store');

    const refused = await api().put(`/keys/${created.body.data.id}`, { preview: 'yes' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(validationError([{ path: ['preview'], message: 'Preview is on or off (true or false).' }]));
    expect((await api().get(`/keys/${created.body.data.id}`)).body.data.preview).toBe(true);

    const cleared = await api().put(`/keys/${created.body.data.id}`, { preview: false });
    expect(cleared.body.data.preview).toBe(false);
    const now = await v2('/events?status=draft', plaintext);
    expect(now.status).toBe(403);
    expect(now.body.errors[0].meta.reason).toBe('preview_not_granted');
  });

  test('unknown keys are 404', async () => {
    const res = await api().put('/keys/999999', { name: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ data: null, error: expect.objectContaining({ status: 404, name: 'NotFoundError' }) });
    expect((await api().get('/keys/999999')).status).toBe(404);
  });
});

describe('revoke, regenerate, delete', () => {
  test('revoking stops the key on the next request', async () => {
    const created = await api().post('/keys', { name: 'To revoke', grants: EVENTS_TITLE });
    const plaintext: string = created.body.meta.plaintext;
    expect((await v2('/', plaintext)).status).toBe(200);
    const revoked = await api().post(`/keys/${created.body.data.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: created.body.data.id, revoked: true });
    expect(revoked.body.meta).toBeUndefined();
    const refused = await v2('/', plaintext);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  test('regenerating answers a new plaintext once; the old one stops at once', async () => {
    const created = await api().post('/keys', { name: 'To regenerate', grants: EVENTS_TITLE });
    const old: string = created.body.meta.plaintext;
    const regenerated = await api().post(`/keys/${created.body.data.id}/regenerate`);
    expect(regenerated.status).toBe(200);
    const fresh: string = regenerated.body.meta.plaintext;
    expect(fresh).not.toBe(old);
    expect(fresh.slice(0, 16)).toBe(old.slice(0, 16));
    expect(regenerated.body.data).toMatchObject({
      id: created.body.data.id,
      prefix: old.slice(0, 16),
      lastFour: fresh.slice(-4),
      grants: created.body.data.grants,
    });
    expect((await v2('/', old)).status).toBe(401);
    expect((await v2('/', fresh)).status).toBe(200);
  });

  test('deleting removes the key and stops it', async () => {
    const created = await api().post('/keys', { name: 'To delete', grants: EVENTS_TITLE });
    const removed = await api().del(`/keys/${created.body.data.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ id: created.body.data.id, name: 'To delete' });
    expect((await api().get(`/keys/${created.body.data.id}`)).status).toBe(404);
    expect((await v2('/', created.body.meta.plaintext)).status).toBe(401);
    expect((await api().del(`/keys/${created.body.data.id}`)).status).toBe(404);
  });
});

describe('names', () => {
  const taken = (name: string) => ({
    data: null,
    error: {
      status: 409,
      name: 'ConflictError',
      message: `A key named '${name}' exists already: give this key another name.`,
      details: { errors: [{ path: ['name'], message: `A key named '${name}' exists already: give this key another name.` }] },
    },
  });

  test('a second key with a name taken (trimmed, in any case) is refused with 409 under `name`, and nothing is created', async () => {
    const first = await api().post('/keys', { name: 'Kiosk Ärger', grants: EVENTS_TITLE });
    expect(first.status).toBe(201);
    const before = (await api().get('/keys')).body.data.length;
    for (const name of ['Kiosk Ärger', '  kiosk ärger ', 'KIOSK ÄRGER', 'Kiosk A\u0308rger']) {
      const refused = await api().post('/keys', { name, grants: EVENTS_TITLE });
      expect({ name, status: refused.status, body: refused.body }).toEqual({ name, status: 409, body: taken('Kiosk Ärger') });
    }
    expect((await api().get('/keys')).body.data).toHaveLength(before);
    // A name that only contains the other is another name.
    expect((await api().post('/keys', { name: 'Kiosk Ärger 2', grants: EVENTS_TITLE })).status).toBe(201);
  });

  test('renaming to another key’s name is refused with 409 and changes nothing; a key keeps or recases its own name', async () => {
    await api().post('/keys', { name: 'Mobile app', grants: EVENTS_TITLE });
    const other = await api().post('/keys', { name: 'Tablet app', grants: EVENTS_TITLE });
    const id = other.body.data.id;
    const refused = await api().put(`/keys/${id}`, { name: ' MOBILE APP', description: 'not applied' });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual(taken('Mobile app'));
    expect((await api().get(`/keys/${id}`)).body.data).toMatchObject({ name: 'Tablet app', description: null });
    // Saving a key with its own name (as the form does with other changes) or recased is no conflict.
    expect((await api().put(`/keys/${id}`, { name: 'Tablet app', description: 'kept' })).status).toBe(200);
    const recased = await api().put(`/keys/${id}`, { name: 'TABLET app' });
    expect(recased.status).toBe(200);
    expect(recased.body.data).toMatchObject({ name: 'TABLET app', description: 'kept' });
    // A rename of an unknown key is still 404, not a conflict.
    expect((await api().put('/keys/999999', { name: 'Mobile app' })).status).toBe(404);
  });

  test('a revoked key’s name stays taken: the audit log and webhooks still name it', async () => {
    const created = await api().post('/keys', { name: 'Retired kiosk', grants: EVENTS_TITLE });
    await api().post(`/keys/${created.body.data.id}/revoke`);
    expect((await api().post('/keys', { name: 'retired kiosk', grants: EVENTS_TITLE })).body).toEqual(taken('Retired kiosk'));
    // Deleted, the name is free again.
    await api().del(`/keys/${created.body.data.id}`);
    expect((await api().post('/keys', { name: 'retired kiosk', grants: EVENTS_TITLE })).status).toBe(201);
  });
});

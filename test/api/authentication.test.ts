/**
 * Contract section 4: every way a key can fail gives the same 401 document and WWW-Authenticate.
 */
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey, keysService } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';

let app: TestApp;
const EVENTS_READ = { resources: { 'native:events': { actions: ['read'], read: ['title'] } } };

beforeAll(async () => {
  app = await checkResponses(await bootApp());
});
afterAll(async () => {
  await app?.close();
});

const index = (authorization?: string, path = '/api/v2/') => {
  const req = app.http().get(path);
  return authorization === undefined ? req : req.set('Authorization', authorization);
};

const expectUnauthorized = (res: { status: number; headers: Record<string, string>; body: unknown; text: string }) => {
  expect(res.status).toBe(401);
  expect(res.headers['content-type']).toBe('application/vnd.api+json');
  expect(res.headers['www-authenticate']).toBe('Bearer realm="public-data-api"');
  expectValidJsonApi(res.body);
  return res.text;
};

describe('401 unauthorized', () => {
  let valid: Awaited<ReturnType<typeof createKey>>;
  let bodies: string[];

  beforeAll(async () => {
    valid = await createKey(app.strapi, EVENTS_READ);
    const expired = await createKey(app.strapi, EVENTS_READ, { expiresAt: new Date(Date.now() + 1500).toISOString() });
    const revoked = await createKey(app.strapi, EVENTS_READ);
    await keysService(app.strapi).revoke(revoked.keyId);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const [, keyId, secret] = valid.token.split('_');
    const cases: (string | undefined)[] = [
      undefined, // no header
      '', // empty header
      'Bearer', // scheme without a key
      'Bearer ', // scheme with blank key
      `Basic ${Buffer.from(`user:${valid.token}`).toString('base64')}`, // another scheme
      `Token ${valid.token}`,
      'Bearer not-a-key', // malformed
      `Bearer pdk_${keyId}`, // truncated
      `Bearer pdk_${keyId}_short`, // secret too short
      // Wrong secret, known key id (the last character changed: one secret in 62 already ends in X).
      `Bearer pdk_${keyId}_${secret!.slice(0, -1)}${secret!.endsWith('X') ? 'Y' : 'X'}`,
      `Bearer pdk_ZZZZZZZZZZZZ_${secret}`, // unknown key id
      `Bearer ${valid.token} extra`, // trailing garbage
      `Bearer ${expired.auth.slice(7)}`, // expired
      revoked.auth, // revoked
    ];
    bodies = [];
    for (const authorization of cases) bodies.push(expectUnauthorized(await index(authorization)));
  });

  test('every failure gives one identical body', () => {
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]!)).toEqual({
      jsonapi: { version: '1.1' },
      errors: [
        {
          status: '401',
          code: 'unauthorized',
          title: 'Unauthorized',
          detail: 'A valid API key is required: send it as `Authorization: Bearer <key>`.',
        },
      ],
    });
  });

  test('the valid key itself is accepted, with a case-insensitive scheme', async () => {
    expect((await index(valid.auth)).status).toBe(200);
    expect((await index(`bearer ${valid.token}`)).status).toBe(200);
  });

  test('a key in the query string is never accepted', async () => {
    for (const name of ['api_key', 'key', 'access_token', 'token']) {
      expectUnauthorized(await index(undefined, `/api/v2/?${name}=${encodeURIComponent(valid.token)}`));
    }
  });

  test('401 is answered before anything about the path or parameters', async () => {
    expectUnauthorized(await index(undefined, '/api/v2/?unknown=1'));
  });
});

describe('key lifecycle takes effect on the next request', () => {
  test('revoking stops a key', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    expect((await index(key.auth)).status).toBe(200);
    await keysService(app.strapi).revoke(key.keyId);
    expectUnauthorized(await index(key.auth));
  });

  test('regenerating stops the old key and the new one works', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    const { plaintext } = await keysService(app.strapi).regenerate(key.keyId);
    expect(plaintext).not.toBe(key.token);
    expect(plaintext.startsWith(`pdk_${key.keyId}_`)).toBe(true);
    expectUnauthorized(await index(key.auth));
    expect((await index(`Bearer ${plaintext}`)).status).toBe(200);
  });

  test('deleting stops a key', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    await keysService(app.strapi).remove(key.keyId);
    expectUnauthorized(await index(key.auth));
  });

  test('changing grants changes the next answer', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    expect((await index(key.auth)).body.data.map((r: { id: string }) => r.id)).toEqual(['native:events']);
    await keysService(app.strapi).update(key.keyId, {
      grants: { resources: { 'native:jobs': { actions: ['read'], read: '*' } } },
    });
    expect((await index(key.auth)).body.data.map((r: { id: string }) => r.id)).toEqual(['native:jobs']);
  });
});

describe('storage', () => {
  test('only an HMAC of the key is stored, never the plaintext', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    const row = await app.strapi.db.query('plugin::public-api.api-key').findOne({ where: { keyId: key.keyId } });
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(key.token);
    expect(stored).not.toContain(key.token.split('_')[2]);
    expect(row.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.lastFour).toBe(key.token.slice(-4));
  });

  test('keys are pdk_<12 base62>_<at least 32 base62>', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    expect(key.token).toMatch(/^pdk_[0-9A-Za-z]{12}_[0-9A-Za-z]{32,}$/);
  });

  test('last use is recorded after a request, off the request path', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    await index(key.auth);
    await app.flushKeyUse();
    const row = await app.strapi.db.query('plugin::public-api.api-key').findOne({ where: { keyId: key.keyId } });
    expect(row.lastUsedAt).not.toBeNull();
    const first = new Date(row.lastUsedAt).getTime();
    await index(key.auth);
    await app.flushKeyUse();
    const again = await app.strapi.db.query('plugin::public-api.api-key').findOne({ where: { keyId: key.keyId } });
    // At most once a minute: the second request inside the minute writes nothing.
    expect(new Date(again.lastUsedAt).getTime()).toBe(first);
  });
});

describe('key updates validate before anything is written', () => {
  test('a name that is not a string is a validation error, and nothing changes', async () => {
    const key = await createKey(app.strapi, EVENTS_READ, { name: 'before' });
    await expect(keysService(app.strapi).update(key.keyId, { name: 42 as unknown as string })).rejects.toMatchObject({
      name: 'ValidationError',
    });
    await expect(
      keysService(app.strapi).update(key.keyId, { name: 'x', grants: { resources: { 'native:nope': { actions: ['read'] } } } }),
    ).rejects.toMatchObject({
      name: 'ValidationError',
    });
    const row = await app.strapi.db.query('plugin::public-api.api-key').findOne({ where: { keyId: key.keyId } });
    expect(row.name).toBe('before');
  });
});

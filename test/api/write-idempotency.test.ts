/**
 * Idempotency-Key on writes (contract section 7), in one process: replays byte for byte, reuse with
 * another request, requests in flight, what is and is not stored, released claims, expiry.
 * (Two processes on one PostgreSQL database: write-idempotency-processes.test.ts.)
 */
import type { Core } from '@strapi/strapi';
import { bootApp, type TestApp } from '../helpers/app';
import { checkResponses } from '../helpers/openapi';
import { createKey, keysService } from '../helpers/keys';
import { listenOnce, resourceDocument, writer } from '../helpers/writes';
import { grantsFingerprint, requestFingerprint, IDEMPOTENCY_TTL_MS } from '../../src/plugins/public-api/server/src/idempotency/request';
import { IDEMPOTENCY_HEARTBEAT_MS, IDEMPOTENCY_LEASE_MS } from '../../src/plugins/public-api/server/src/idempotency/claim';

const EVENT = 'api::event.event';
const TABLE = 'public_api_idempotency_records';

let app: TestApp;
let s: Core.Strapi;
let api: ReturnType<typeof writer>;
let editor: Awaited<ReturnType<typeof createKey>>;

const GRANTS = {
  resources: { 'native:events': { actions: ['read', 'create', 'update', 'delete'], read: ['title', 'category'], write: '*' } },
};

type IdempotencyService = {
  claim: (request: Record<string, unknown>, now?: number) => Promise<{ kind: string; claim?: { scope: string; token: string } }>;
  release: (claim: { scope: string; token: string }) => Promise<void>;
  hold: (claim: { scope: string; token: string }) => () => void;
  renewLeases: () => Promise<number>;
  purgeExpired: (now?: number) => Promise<number>;
};

const idempotency = () => s.plugin('public-api').service('idempotency') as IdempotencyService;
const table = () => (s.db.connection as any)(TABLE);

beforeAll(async () => {
  app = await checkResponses(await bootApp());
  s = app.strapi;
  api = writer(app);
  await listenOnce(app);
  editor = await createKey(s, GRANTS);
});
afterAll(async () => {
  await app?.close();
});

let counter = 0;
const event = (title = `Event ${++counter}`, extra: Record<string, unknown> = {}) =>
  resourceDocument('events', { title, category: 'talk', startsAt: '2027-01-01T10:00:00Z', ...extra });

const countEvents = (title: string) => s.db.query(EVENT as never).count({ where: { title, publishedAt: { $notNull: true } } });

const post = (body: unknown, idempotencyKey?: string, auth = editor.auth, path = '/api/v2/events') =>
  api.post(path, auth, body, idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey });

describe('replays', () => {
  test('a retry replays status, headers and body byte for byte, marked Idempotent-Replayed; one record exists', async () => {
    const body = event('Replayed');
    const first = await post(body, 'key-replay-1');
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    for (let i = 0; i < 3; i += 1) {
      const again = await post(body, 'key-replay-1');
      expect(again.status).toBe(201);
      expect(again.text).toBe(first.text);
      expect(again.headers.location).toBe(first.headers.location);
      expect(again.headers['content-type']).toBe('application/vnd.api+json');
      expect(again.headers['idempotent-replayed']).toBe('true');
    }
    expect(await countEvents('Replayed')).toBe(1);
  });

  test('spacing and member order do not make another request; quoted and bare keys are one key', async () => {
    const first = await post(event('Reordered'), '"key-reorder"');
    const reordered = JSON.stringify(
      { data: { attributes: { startsAt: '2027-01-01T10:00:00Z', category: 'talk', title: 'Reordered' }, type: 'events' } },
      null,
      2,
    );
    const again = await post(reordered, 'key-reorder');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await countEvents('Reordered')).toBe(1);
  });

  test('a PATCH is replayed as it was answered, even after the record changed', async () => {
    await post(event('Patched'));
    const first = await api.patch('/api/v2/events/patched', editor.auth, resourceDocument('events', { category: 'film' }), {
      'Idempotency-Key': 'key-patch',
    });
    expect(first.status).toBe(200);
    await api.patch('/api/v2/events/patched', editor.auth, resourceDocument('events', { category: 'concert' }));
    const again = await api.patch('/api/v2/events/patched', editor.auth, resourceDocument('events', { category: 'film' }), {
      'Idempotency-Key': 'key-patch',
    });
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect((await api.get('/api/v2/events/patched', editor.auth)).body.data.attributes.category).toBe('concert');
  });

  test('a refusal of the request itself (422, 409) is kept and replayed too', async () => {
    const invalid = event('Invalid', { endsAt: '2026-01-01T00:00:00Z' });
    const first = await post(invalid, 'key-422');
    expect(first.status).toBe(422);
    const again = await post(invalid, 'key-422');
    expect(again.status).toBe(422);
    expect(again.text).toBe(first.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
    // Kept means kept: the same key with a corrected body is another request.
    const corrected = await post(event('Invalid'), 'key-422');
    expect(corrected.status).toBe(422);
    expect(corrected.body.errors[0]).toMatchObject({ source: { header: 'Idempotency-Key' }, meta: { reason: 'idempotency_key_reused' } });
    expect(await countEvents('Invalid')).toBe(0);

    await post(event('Taken', { slug: 'taken' }));
    const conflict = await post(event('Taken again', { slug: 'taken' }), 'key-409');
    expect(conflict.status).toBe(409);
    expect((await post(event('Taken again', { slug: 'taken' }), 'key-409')).headers['idempotent-replayed']).toBe('true');
  });
});

describe('grants', () => {
  test("an answer is not replayed once the key's grants changed (it may show what the key can no longer read)", async () => {
    const key = await createKey(s, GRANTS);
    const body = event('Regranted');
    const first = await post(body, 'key-grants', key.auth);
    expect(first.status).toBe(201);
    expect(first.body.data.attributes).toEqual({ title: 'Regranted', category: 'talk' });
    await keysService(s).update(key.id, {
      grants: { resources: { 'native:events': { actions: ['read', 'create'], read: ['title'], write: '*' } } },
    });
    const res = await post(body, 'key-grants', key.auth);
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ source: { header: 'Idempotency-Key' }, meta: { reason: 'idempotency_grants_changed' } }),
    ]);
    expect(res.text).not.toContain('talk');
    expect(await countEvents('Regranted')).toBe(1);
  });
});

describe('the key is bound to one request', () => {
  test('another body, query or method with the same key is 422; the first answer stays', async () => {
    await post(event('Bound'), 'key-bound');
    for (const [body, path] of [
      [event('Bound', { summary: 'more' }), '/api/v2/events'],
      [event('Bound'), '/api/v2/events?locale=en'],
    ] as const) {
      const res = await post(body, 'key-bound', editor.auth, path);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([
        {
          status: '422',
          code: 'unprocessable_entity',
          title: 'Unprocessable Entity',
          detail: 'This Idempotency-Key was already used for a different request (method, path, query or body); use a new key.',
          source: { header: 'Idempotency-Key' },
          meta: { reason: 'idempotency_key_reused' },
        },
      ]);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect((await post(event('Bound'), 'key-bound')).headers['idempotent-replayed']).toBe('true');
    expect(await countEvents('Bound')).toBe(1);
  });

  test('keys are per API key and per path: the same value elsewhere is a request of its own', async () => {
    const other = await createKey(s, GRANTS);
    await post(event('Scoped'), 'key-scope');
    const second = await post(event('Scoped'), 'key-scope', other.auth);
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    const patch = await api.patch('/api/v2/events/scoped', editor.auth, resourceDocument('events', { category: 'film' }), {
      'Idempotency-Key': 'key-scope',
    });
    expect(patch.status).toBe(200);
    expect(patch.headers['idempotent-replayed']).toBeUndefined();
  });

  test.each([
    ['empty', ''],
    ['empty in quotes', '""'],
    ['256 characters', 'x'.repeat(256)],
    ['not ASCII', 'ä'],
  ])('an Idempotency-Key that is %s is 400 and nothing runs', async (_name, value) => {
    const res = await app
      .http()
      .post('/api/v2/events')
      .set('Authorization', editor.auth)
      .set('Content-Type', 'application/json')
      .set('Idempotency-Key', value)
      .send(JSON.stringify(event('Bad key')));
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ source: { header: 'Idempotency-Key' }, meta: { reason: 'idempotency_key_invalid' } });
    expect(await countEvents('Bad key')).toBe(0);
  });

  test('two Idempotency-Key headers are 400 and nothing runs, even with the same value', async () => {
    for (const values of [
      ['key-twice-a', 'key-twice-b'],
      ['key-twice', 'key-twice'],
    ]) {
      const res = await app
        .http()
        .post('/api/v2/events')
        .set('Authorization', editor.auth)
        .set('Content-Type', 'application/json')
        // superagent sends an array as one header line per value (its types only say so for Cookie).
        .set('Idempotency-Key', values as unknown as string)
        .send(JSON.stringify(event('Two keys')));
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ source: { header: 'Idempotency-Key' }, meta: { reason: 'idempotency_key_invalid' } });
    }
    expect(await countEvents('Two keys')).toBe(0);
    expect(await table().where({ idempotency_key: 'key-twice-a, key-twice-b' }).first()).toBeUndefined();
  });

  test('a key may hold double quotes (printable ASCII): bare `a"b` and quoted `"a"b"` are one key', async () => {
    const first = await post(event('Quoted inside'), 'key-"quoted"-inside');
    expect(first.status).toBe(201);
    const again = await post(event('Quoted inside'), '"key-"quoted"-inside"');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    const lone = await post(event('Lone quote'), '"');
    expect(lone.status).toBe(201);
    expect(await countEvents('Quoted inside')).toBe(1);
  });

  test('DELETE does not take the header (it is idempotent by itself): a second DELETE finds nothing', async () => {
    await post(event('Deleted once'));
    expect((await api.del('/api/v2/events/deleted-once', editor.auth, { 'Idempotency-Key': 'key-delete' })).status).toBe(204);
    expect((await api.del('/api/v2/events/deleted-once', editor.auth, { 'Idempotency-Key': 'key-delete' })).status).toBe(404);
  });
});

describe('what is not stored', () => {
  test('refusals before the handler (400, 403, 404, 413, 415) are not stored: a good retry with the key runs', async () => {
    const key = 'key-pre-handler';
    expect((await post('{ broken', key)).status).toBe(400);
    expect(
      (await api.post('/api/v2/events', editor.auth, event('Pre'), { 'Idempotency-Key': key, 'Content-Type': 'text/plain' })).status,
    ).toBe(415);
    expect((await post(JSON.stringify(event('Pre', { summary: 'x'.repeat(1024 * 1024) })), key)).status).toBe(413);
    await keysService(s).update(editor.id, { grants: { resources: { 'native:events': { actions: ['read'], read: ['title'] } } } });
    try {
      expect((await post(event('Pre'), key)).status).toBe(403);
    } finally {
      await keysService(s).update(editor.id, { grants: GRANTS });
    }
    const good = await post(event('Pre'), key);
    expect(good.status).toBe(201);
    expect(good.headers['idempotent-replayed']).toBeUndefined();

    const missing = await api.patch('/api/v2/events/later', editor.auth, resourceDocument('events', { category: 'film' }), {
      'Idempotency-Key': 'key-404',
    });
    expect(missing.status).toBe(404);
    await post(event('Later'));
    const found = await api.patch('/api/v2/events/later', editor.auth, resourceDocument('events', { category: 'film' }), {
      'Idempotency-Key': 'key-404',
    });
    expect(found.status).toBe(200);
  });

  test('401 is not stored', async () => {
    const res = await app
      .http()
      .post('/api/v2/events')
      .set('Idempotency-Key', 'key-401')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(event('Anonymous')));
    expect(res.status).toBe(401);
    expect(await table().where({ idempotency_key: 'key-401' })).toEqual([]);
  });

  test('a server error releases the claim: the retry runs afresh', async () => {
    const writes = s.plugin('public-api').service('writes') as { create: (...args: unknown[]) => Promise<string> };
    const original = writes.create;
    writes.create = async () => {
      throw new Error('the database went away');
    };
    try {
      expect((await post(event('After failure'), 'key-500')).status).toBe(500);
    } finally {
      writes.create = original;
    }
    expect(await table().where({ idempotency_key: 'key-500' })).toEqual([]);
    const retry = await post(event('After failure'), 'key-500');
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await countEvents('After failure')).toBe(1);
  });
});

describe('claims', () => {
  const claimFor = (body: unknown, idempotencyKey: string, now?: number) =>
    idempotency().claim(
      {
        apiKey: editor.id,
        method: 'POST',
        path: '/events',
        idempotencyKey,
        fingerprint: requestFingerprint({ method: 'POST', path: '/events', query: new URLSearchParams(), body }),
        grantsFingerprint: grantsFingerprint({}),
      },
      now,
    );

  test('while the first request runs, a retry is 409; once it gave up, the retry runs', async () => {
    const body = event('In flight');
    const held = await claimFor(body, 'key-flight');
    expect(held.kind).toBe('claimed');
    const res = await post(body, 'key-flight');
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ code: 'conflict', source: { header: 'Idempotency-Key' }, meta: { reason: 'idempotency_in_progress' } }),
    ]);
    // Another body with that key is still another request.
    expect((await post(event('In flight', { summary: 'x' }), 'key-flight')).status).toBe(422);
    await idempotency().release(held.claim!);
    expect((await post(body, 'key-flight')).status).toBe(201);
    expect(await countEvents('In flight')).toBe(1);
  });

  test('a claim whose request never finished is taken over after its lease', async () => {
    const body = event('Abandoned');
    expect((await claimFor(body, 'key-abandoned', Date.now() - IDEMPOTENCY_LEASE_MS - 1000)).kind).toBe('claimed');
    const res = await post(body, 'key-abandoned');
    expect(res.status).toBe(201);
    expect((await post(body, 'key-abandoned')).headers['idempotent-replayed']).toBe('true');
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const leaseOf = async (idempotencyKey: string) =>
    Number((await table().where({ idempotency_key: idempotencyKey }).first()).lease_expires_at);

  test('a running request keeps its claim past the lease it started with: its heartbeat renews it', async () => {
    const body = event('Kept alive');
    // Claimed a lease ago, a moment before the lease runs out.
    const held = await claimFor(body, 'key-alive', Date.now() - IDEMPOTENCY_LEASE_MS + 300);
    const release = idempotency().hold(held.claim!);
    try {
      const before = await leaseOf('key-alive');
      expect(await idempotency().renewLeases()).toBe(1);
      expect(await leaseOf('key-alive')).toBeGreaterThan(before);
      await sleep(400);
      // Past the first lease: the owner is alive, so the retry is still 409.
      const res = await post(body, 'key-alive');
      expect(res.status).toBe(409);
      expect(res.body.errors[0].meta).toEqual({ reason: 'idempotency_in_progress' });
    } finally {
      release();
    }
    // Once the request has ended, its claim is renewed no more.
    expect(await idempotency().renewLeases()).toBe(0);
    await idempotency().release(held.claim!);
  });

  test('the same claim, not held by a running request (its process died), is taken over once the lease ran out', async () => {
    const body = event('Died');
    await claimFor(body, 'key-died', Date.now() - IDEMPOTENCY_LEASE_MS + 300);
    expect((await post(body, 'key-died')).status).toBe(409);
    await sleep(400);
    const res = await post(body, 'key-died');
    expect(res.status).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await countEvents('Died')).toBe(1);
  });

  test('of many retries at once after the lease ran out, exactly one takes the claim over', async () => {
    const body = event('Taken once');
    await claimFor(body, 'key-taken-once', Date.now() - IDEMPOTENCY_LEASE_MS - 1000);
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(body, 'key-taken-once')));
    const originals = answers.filter((res) => res.status === 201 && res.headers['idempotent-replayed'] === undefined);
    expect(originals).toHaveLength(1);
    for (const res of answers.filter((answer) => answer !== originals[0])) {
      expect([201, 409]).toContain(res.status);
      if (res.status === 201) expect(res.text).toBe(originals[0]!.text);
      else expect(res.body.errors[0].meta).toEqual({ reason: 'idempotency_in_progress' });
    }
    expect(await countEvents('Taken once')).toBe(1);
  });

  test('the heartbeat renews the leases of running requests by itself', async () => {
    const held = await claimFor(event('Heartbeat'), 'key-heartbeat');
    const before = await leaseOf('key-heartbeat');
    const release = idempotency().hold(held.claim!);
    try {
      await sleep(IDEMPOTENCY_HEARTBEAT_MS + 1000);
      expect(await leaseOf('key-heartbeat')).toBeGreaterThan(before);
    } finally {
      release();
      await idempotency().release(held.claim!);
    }
  }, 30_000);

  test('a request that loses its claim while running keeps nothing of its write', async () => {
    const writes = s.plugin('public-api').service('writes') as { create: (...args: unknown[]) => Promise<string> };
    const original = writes.create;
    writes.create = async (...args: unknown[]) => {
      const id = await original.apply(writes, args);
      // As if another instance had taken the claim over meanwhile (same transaction: no lock waits).
      await s.db
        .query('plugin::public-api.idempotency-record' as never)
        .updateMany({ where: { idempotencyKey: 'key-lost' }, data: { token: 'someone-else' } as never });
      return id;
    };
    try {
      const res = await post(event('Lost claim'), 'key-lost');
      expect(res.status).toBe(409);
      expect(res.body.errors[0].meta).toEqual({ reason: 'idempotency_superseded' });
    } finally {
      writes.create = original;
    }
    expect(await countEvents('Lost claim')).toBe(0);
  });

  test('answers expire after 24 hours: then the key is free again; clean-up deletes them', async () => {
    const body = event('Expiring');
    await post(body, 'key-expiry');
    const [row] = await table().where({ idempotency_key: 'key-expiry' });
    expect(row).toMatchObject({ state: 'complete', status: 201, method: 'POST', path: '/events', api_key: editor.id });
    expect(Number(row.expires_at) - Number(row.claimed_at)).toBe(IDEMPOTENCY_TTL_MS);
    expect(JSON.parse(row.headers)).toEqual({ Location: expect.stringMatching(/\/events\/expiring$/) });
    // Not the API key, not its secret: a hash of the scope and the answer.
    expect(JSON.stringify(row)).not.toContain(editor.token);

    await table()
      .where({ idempotency_key: 'key-expiry' })
      .update({ expires_at: Date.now() - 1 });
    const afterExpiry = await post(body, 'key-expiry');
    expect(afterExpiry.status).toBe(201);
    expect(afterExpiry.headers['idempotent-replayed']).toBeUndefined();
    expect(afterExpiry.body.data.meta.slug).toBe('expiring-1');

    const before = Number((await table().count({ n: '*' }))[0].n);
    expect(await idempotency().purgeExpired(Date.now() + IDEMPOTENCY_TTL_MS + 1)).toBe(before);
    expect(Number((await table().count({ n: '*' }))[0].n)).toBe(0);
  });
});

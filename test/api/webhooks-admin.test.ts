/**
 * /public-api/keys/:id/webhooks and /public-api/webhooks/:id (contract section 16): endpoints per key,
 * the signing secret shown once (create, rotate) and never again, the rules on URLs, events and
 * resources with an error per field, the plugin's permissions, and the delivery log with Redeliver.
 */
import { Webhook } from 'standardwebhooks';
import { adminWith, superAdmin, type AdminSession } from '../helpers/admin';
import { bootApp, type TestApp } from '../helpers/app';
import { createKey } from '../helpers/keys';
import { FAST_WEBHOOKS_ENV, eventually, startReceiver, webhookService, type Receiver } from '../helpers/webhooks';

let app: TestApp;
let admin: AdminSession;
let receiver: Receiver;
let keyId: number;

const EVENTS_TITLE = { resources: { 'native:events': { actions: ['read'], read: ['title'], write: [] } } };

beforeAll(async () => {
  app = await bootApp(FAST_WEBHOOKS_ENV);
  admin = await superAdmin(app);
  receiver = await startReceiver();
  keyId = (await createKey(app.strapi, EVENTS_TITLE)).id;
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

const as = (session: AdminSession) => ({
  get: (path: string) => app.http().get(`/public-api${path}`).set('Authorization', session.auth),
  post: (path: string, body?: object) =>
    app
      .http()
      .post(`/public-api${path}`)
      .set('Authorization', session.auth)
      .send(body ?? {}),
  put: (path: string, body: unknown) =>
    app
      .http()
      .put(`/public-api${path}`)
      .set('Authorization', session.auth)
      .send(body as object),
  del: (path: string) => app.http().delete(`/public-api${path}`).set('Authorization', session.auth),
});
const api = () => as(admin);

const issues = (res: {
  status: number;
  body: { error?: { name: string; details?: { errors?: { path: string[]; message: string }[] } } };
}) => {
  expect(res.status).toBe(400);
  expect(res.body.error?.name).toBe('ValidationError');
  return (res.body.error?.details?.errors ?? []).map((issue) => [issue.path.join('.'), issue.message]);
};

describe('endpoints', () => {
  test('created with a whsec_ secret shown once; never again in any answer', async () => {
    const created = await api().post(`/keys/${keyId}/webhooks`, { url: receiver.url('/once'), description: 'Site rebuild' });
    expect(created.status).toBe(201);
    const secret = created.body.meta.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body.data).toEqual({
      id: expect.any(Number),
      keyId,
      url: receiver.url('/once'),
      description: 'Site rebuild',
      events: ['record.published', 'record.updated', 'record.unpublished', 'record.deleted'],
      resources: [],
      secretHint: secret.slice(-4),
      previousSecretUntil: null,
      enabled: true,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = created.body.data.id as number;
    const secretBody = secret.slice('whsec_'.length);
    const answers = [
      await api().get(`/keys/${keyId}/webhooks`),
      await api().put(`/webhooks/${id}`, { description: 'Renamed' }),
      await api().get(`/webhooks/${id}/deliveries`),
      await api().get(`/keys/${keyId}`),
      await api().get('/keys'),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain(secretBody);
      expect(answer.text).not.toMatch(/secretSealed|whsec_/);
    }
    expect(answers[0]!.body.data).toEqual([expect.objectContaining({ id, url: receiver.url('/once'), secretHint: secret.slice(-4) })]);
    // Stored sealed: not the secret, not its base64 body.
    const row = (await app.strapi.db.query('plugin::public-api.webhook-endpoint' as never).findOne({ where: { id } })) as Record<
      string,
      string
    >;
    expect(row.secretSealed).not.toContain(secretBody);
    expect(row.secretSealed).toMatch(/^v1\./);
    await api().del(`/webhooks/${id}`);
  });

  test('rotate: a new secret shown once, the previous one signs beside it for 24 hours', async () => {
    const created = await api().post(`/keys/${keyId}/webhooks`, { url: receiver.url('/rotate') });
    const id = created.body.data.id as number;
    const first = created.body.meta.secret as string;
    const rotated = await api().post(`/webhooks/${id}/rotate`);
    expect(rotated.status).toBe(200);
    const second = rotated.body.meta.secret as string;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    expect(rotated.body.data.secretHint).toBe(second.slice(-4));
    expect(rotated.body.data.previousSecretUntil).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    const row = await webhookService<{ requireRow: (id: number) => Promise<unknown> }>(app.strapi, 'webhook-endpoints').requireRow(id);
    const secrets = webhookService<{ signingSecrets: (row: unknown) => string[] }>(app.strapi, 'webhook-endpoints').signingSecrets(row);
    expect(secrets).toEqual([second, first]);
    // After the 24 hours only the new one signs.
    expect(
      webhookService<{ signingSecrets: (row: unknown, now: number) => string[] }>(app.strapi, 'webhook-endpoints').signingSecrets(
        row,
        Date.now() + 25 * 3_600_000,
      ),
    ).toEqual([second]);
    await api().del(`/webhooks/${id}`);
  });

  test('bad settings: every issue, per field, and nothing stored', async () => {
    const before = (await api().get(`/keys/${keyId}/webhooks`)).body.data.length;
    expect(
      issues(await api().post(`/keys/${keyId}/webhooks`, { url: 'https://10.0.0.7/hook', events: [], resources: ['native:jobs'] })),
    ).toEqual([
      ['url', "The URL's address is not public (private)."],
      ['events', 'Choose at least one event.'],
    ]);
    expect(issues(await api().post(`/keys/${keyId}/webhooks`, { url: 'https://hooks.example.com/h', resources: ['native:jobs'] }))).toEqual(
      [['resources.0', "The key may not read 'native:jobs'."]],
    );
    expect(issues(await api().post(`/keys/${keyId}/webhooks`, { url: 'http://hooks.example.com/h' }))).toEqual([
      [
        'url',
        'The URL must use https (plain http only to this machine, with PUBLIC_API_WEBHOOKS_ALLOW_HTTP_LOOPBACK=true in development).',
      ],
    ]);
    expect(issues(await api().post(`/keys/${keyId}/webhooks`, { url: 'https://169.254.169.254/latest' }))).toEqual([
      ['url', "The URL's address is not public (link-local)."],
    ]);
    expect(issues(await api().post(`/keys/${keyId}/webhooks`, { url: 'https://[::ffff:10.0.0.1]/' }))).toEqual([
      ['url', "The URL's address is not public (private)."],
    ]);
    expect(
      issues(await api().post(`/keys/${keyId}/webhooks`, { url: 'https://a.example.com', secret: 'mine', events: ['record.created'] })),
    ).toEqual([
      ['events.0', expect.stringContaining('An event is one of record.published')],
      ['', 'Unknown member: secret.'],
    ]);
    expect(issues(await api().post(`/keys/${keyId}/webhooks`, {}))).toEqual([['url', 'The URL is text.']]);
    expect((await api().get(`/keys/${keyId}/webhooks`)).body.data).toHaveLength(before);
  });

  test('change, turn off and on; a change is checked like a creation', async () => {
    const id = (await api().post(`/keys/${keyId}/webhooks`, { url: receiver.url('/change') })).body.data.id as number;
    const changed = await api().put(`/webhooks/${id}`, { events: ['record.deleted', 'record.published'], resources: ['native:events'] });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ events: ['record.published', 'record.deleted'], resources: ['native:events'] });
    const off = await api().put(`/webhooks/${id}`, { enabled: false });
    expect(off.body.data).toMatchObject({ enabled: false, disabledReason: 'Disabled by an admin.', disabledAt: expect.any(Number) });
    const on = await api().put(`/webhooks/${id}`, { enabled: true });
    expect(on.body.data).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null, failingSince: null });
    expect(issues(await api().put(`/webhooks/${id}`, { url: 'ftp://a.example.com' }))).toEqual([['url', 'The URL must use https.']]);
    expect(issues(await api().put(`/webhooks/${id}`, { resources: ['cms:nowhere/pages'] }))).toEqual([
      ['resources.0', "The key may not read 'cms:nowhere/pages'."],
    ]);
    expect(issues(await api().put(`/webhooks/${id}`, { enabled: 'yes' }))).toEqual([['enabled', 'Enabled is true or false.']]);
    expect(issues(await api().put(`/webhooks/${id}`, ['x']))).toHaveLength(1);
    const deleted = await api().del(`/webhooks/${id}`);
    expect(deleted.status).toBe(200);
    expect((await api().put(`/webhooks/${id}`, { enabled: true })).status).toBe(404);
  });

  test('unknown keys, endpoints and deliveries are 404; a bad page is 400', async () => {
    expect((await api().get('/keys/999999/webhooks')).status).toBe(404);
    expect((await api().post('/keys/999999/webhooks', { url: 'https://a.example.com' })).status).toBe(404);
    expect((await api().put('/webhooks/999999', { enabled: true })).status).toBe(404);
    expect((await api().put('/webhooks/abc', { enabled: true })).status).toBe(404);
    expect((await api().post('/webhooks/999999/rotate')).status).toBe(404);
    expect((await api().del('/webhooks/999999')).status).toBe(404);
    expect((await api().get('/webhooks/999999/deliveries')).status).toBe(404);
    const id = (await api().post(`/keys/${keyId}/webhooks`, { url: receiver.url('/404') })).body.data.id as number;
    expect((await api().post(`/webhooks/${id}/deliveries/999999/redeliver`)).status).toBe(404);
    expect((await api().post(`/webhooks/${id}/deliveries/x/redeliver`)).status).toBe(404);
    expect((await api().get(`/webhooks/${id}/deliveries?before=-1`)).status).toBe(400);
    expect((await api().get(`/webhooks/${id}/deliveries?before=1&before=2`)).status).toBe(400);
    await api().del(`/webhooks/${id}`);
  });

  test('at most 10 endpoints per key', async () => {
    const other = (await createKey(app.strapi, EVENTS_TITLE)).id;
    for (let i = 0; i < 10; i += 1)
      expect((await api().post(`/keys/${other}/webhooks`, { url: receiver.url(`/many/${i}`) })).status).toBe(201);
    expect(issues(await api().post(`/keys/${other}/webhooks`, { url: receiver.url('/many/11') }))).toEqual([
      ['', 'A key has at most 10 webhook endpoints.'],
    ]);
  });

  test("the plugin's permissions: reading needs read, changing needs update, a new secret needs regenerate", async () => {
    const id = (await api().post(`/keys/${keyId}/webhooks`, { url: receiver.url('/rbac') })).body.data.id as number;
    const reader = as(await adminWith(app, ['read']));
    expect((await reader.get(`/keys/${keyId}/webhooks`)).status).toBe(200);
    expect((await reader.get(`/webhooks/${id}/deliveries`)).status).toBe(200);
    expect((await reader.post(`/keys/${keyId}/webhooks`, { url: receiver.url('/x') })).status).toBe(403);
    expect((await reader.put(`/webhooks/${id}`, { enabled: false })).status).toBe(403);
    expect((await reader.post(`/webhooks/${id}/rotate`)).status).toBe(403);
    expect((await reader.del(`/webhooks/${id}`)).status).toBe(403);
    const updater = as(await adminWith(app, ['read', 'update']));
    expect((await updater.put(`/webhooks/${id}`, { description: 'ok' })).status).toBe(200);
    expect((await updater.post(`/webhooks/${id}/rotate`)).status).toBe(403);
    const regenerator = as(await adminWith(app, ['regenerate']));
    expect((await regenerator.post(`/webhooks/${id}/rotate`)).status).toBe(200);
    expect((await app.http().get(`/public-api/keys/${keyId}/webhooks`)).status).toBe(401);
    await api().del(`/webhooks/${id}`);
  });
});

describe('the delivery log', () => {
  type Deliveries = { enqueue: (trx: unknown, rows: unknown[]) => Promise<void> };

  test('deliveries with status, code, duration and attempts, newest first, paged; Redeliver sends the same event again', async () => {
    const created = await api().post(`/keys/${keyId}/webhooks`, { url: receiver.url('/log') });
    const id = created.body.data.id as number;
    const secret = created.body.meta.secret as string;
    const body = (n: number) =>
      JSON.stringify({ type: 'record.updated', timestamp: new Date().toISOString(), data: { type: 'events', id: `e${n}` } });
    await webhookService<Deliveries>(app.strapi, 'webhook-deliveries').enqueue(
      app.strapi.db.connection,
      Array.from({ length: 55 }, (_, n) => ({
        endpoint: id,
        eventId: `msg_log_${n}`,
        event: 'record.updated',
        resource: 'native:events',
        recordId: `e${n}`,
        seq: n,
        occurredAt: Date.now(),
        payload: body(n),
      })),
    );
    receiver.answer([500]);
    await receiver.waitFor(56, (request) => request.path === '/log');
    const first = await api().get(`/webhooks/${id}/deliveries`);
    await eventually(async () => {
      const page = await api().get(`/webhooks/${id}/deliveries`);
      return page.body.data.every((delivery: { status: string }) => delivery.status === 'delivered');
    });
    expect(first.status).toBe(200);
    const page1 = (await api().get(`/webhooks/${id}/deliveries`)).body;
    expect(page1.data).toHaveLength(50);
    expect(page1.data[0]).toEqual({
      id: expect.any(Number),
      eventId: 'msg_log_54',
      event: 'record.updated',
      resource: 'native:events',
      recordId: 'e54',
      status: 'delivered',
      attempts: expect.any(Number),
      responseStatus: 204,
      durationMs: expect.any(Number),
      lastError: null,
      occurredAt: expect.any(Number),
      firstAttemptAt: expect.any(Number),
      nextAttemptAt: null,
      finishedAt: expect.any(Number),
      redeliveryOf: null,
      createdAt: expect.any(String),
    });
    const ids = page1.data.map((delivery: { id: number }) => delivery.id);
    expect([...ids].sort((a: number, b: number) => b - a)).toEqual(ids);
    const page2 = (await api().get(`/webhooks/${id}/deliveries?before=${page1.meta.next}`)).body;
    expect(page2.data).toHaveLength(5);
    expect(page2.meta.next).toBeNull();
    // The one answered 500 was tried again: two attempts.
    const all = [...page1.data, ...page2.data] as { attempts: number }[];
    expect(all.filter((delivery) => delivery.attempts === 2)).toHaveLength(1);
    expect(all.filter((delivery) => delivery.attempts === 1)).toHaveLength(54);

    const original = page1.data[3] as { id: number; eventId: string };
    const count = receiver.received.length;
    const again = await api().post(`/webhooks/${id}/deliveries/${original.id}/redeliver`);
    expect(again.status).toBe(201);
    expect(again.body.data).toMatchObject({ eventId: original.eventId, status: 'pending', attempts: 0, redeliveryOf: original.id });
    const [resent] = (await receiver.waitFor(count + 1, () => true)).slice(count);
    expect(resent!.headers['webhook-id']).toBe(original.eventId);
    expect(new Webhook(secret).verify(resent!.body, resent!.headers)).toMatchObject({ data: { type: 'events' } });
  });
});

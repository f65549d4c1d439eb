/**
 * Sending webhooks (contract section 16): signed as Standard Webhooks (verified by the reference
 * library), retried with backoff against a receiver that fails N times, never following a redirect,
 * bounded in time, refused for addresses that are not public even when a name resolves to one only at
 * connect time (DNS rebinding), and the endpoint disabled with its reason after the retry window or
 * when its key stops working.
 */
import dns from 'node:dns';
import { Webhook } from 'standardwebhooks';
import { sendWebhook, type Resolve } from '../../src/plugins/public-api/server/src/services/webhooks/client';
import { bootApp, type TestApp } from '../helpers/app';
import { createKey, keysService } from '../helpers/keys';
import { FAST_WEBHOOKS_ENV, eventually, startReceiver, webhookService, type Receiver } from '../helpers/webhooks';

let app: TestApp;
let receiver: Receiver;
let keyId: number;

// A short retry window (2 s) so that giving up and disabling can be seen.
const WINDOW_MS = 2_000;

beforeAll(async () => {
  // The time limit is what one test here is about: 1 s, so that a receiver that never answers is cut off soon.
  app = await bootApp({
    ...FAST_WEBHOOKS_ENV,
    PUBLIC_API_WEBHOOKS_TIMEOUT_MS: '1000',
    PUBLIC_API_WEBHOOKS_RETRY_WINDOW_MS: String(WINDOW_MS),
  });
  receiver = await startReceiver();
  keyId = (await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: ['title'], write: [] } } })).id;
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

type EndpointsService = {
  create: (key: number, body: unknown) => Promise<{ endpoint: { id: number }; secret: string }>;
  findOne: (id: number) => Promise<{ enabled: boolean; disabledReason: string | null; failingSince: number | null }>;
};
type DeliveriesService = {
  enqueue: (trx: unknown, rows: unknown[]) => Promise<void>;
  list: (
    endpoint: number,
    before: number | null,
  ) => Promise<{
    data: {
      status: string;
      attempts: number;
      responseStatus: number | null;
      lastError: string | null;
      firstAttemptAt: number | null;
      finishedAt: number | null;
    }[];
  }>;
};
const endpoints = () => webhookService<EndpointsService>(app.strapi, 'webhook-endpoints');
const deliveries = () => webhookService<DeliveriesService>(app.strapi, 'webhook-deliveries');

let sequence = 0;
const enqueue = async (endpoint: number, count = 1) => {
  const rows = Array.from({ length: count }, () => {
    sequence += 1;
    return {
      endpoint,
      eventId: `msg_${endpoint}_${sequence}`,
      event: 'record.published',
      resource: 'native:events',
      recordId: `r${sequence}`,
      seq: sequence,
      occurredAt: Date.now(),
      payload: JSON.stringify({
        type: 'record.published',
        timestamp: new Date().toISOString(),
        data: { type: 'events', id: `r${sequence}`, attributes: { title: 'T' } },
      }),
    };
  });
  await deliveries().enqueue(app.strapi.db.connection, rows);
  return rows;
};

const endpointAt = async (path: string) => endpoints().create(keyId, { url: receiver.url(path) });

test('signed as Standard Webhooks: the reference library verifies every request', async () => {
  const { endpoint, secret } = await endpointAt('/signed');
  const [row] = await enqueue(endpoint.id);
  const [request] = await receiver.waitFor(1, (r) => r.path === '/signed');
  expect(request!.headers['content-type']).toBe('application/json');
  expect(request!.headers['webhook-id']).toBe(row!.eventId);
  expect(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
  expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  expect(new Webhook(secret).verify(request!.body, request!.headers)).toEqual(JSON.parse(row!.payload));
  expect(request!.body).toBe(row!.payload);
  await eventually(async () => (await deliveries().list(endpoint.id, null)).data[0]?.status === 'delivered');
});

test('a receiver that fails 3 times gets the event a 4th time, with backoff between; the log counts 4 attempts', async () => {
  const { endpoint, secret } = await endpointAt('/flaky');
  receiver.answer([500, 503, 429]);
  await enqueue(endpoint.id);
  const requests = await receiver.waitFor(4, (r) => r.path === '/flaky');
  expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
  for (const request of requests) expect(() => new Webhook(secret).verify(request.body, request.headers)).not.toThrow();
  // Waits of at least the base (50 ms) between attempts.
  for (let i = 1; i < requests.length; i += 1) expect(requests[i]!.at - requests[i - 1]!.at).toBeGreaterThanOrEqual(45);
  await eventually(async () => (await deliveries().list(endpoint.id, null)).data[0]?.status === 'delivered');
  expect((await deliveries().list(endpoint.id, null)).data[0]).toMatchObject({
    status: 'delivered',
    attempts: 4,
    responseStatus: 204,
    lastError: null,
  });
  // A success ends the failure streak.
  expect((await endpoints().findOne(endpoint.id)).failingSince).toBeNull();
});

test('a redirect is not followed: the attempt fails and is retried', async () => {
  const { endpoint } = await endpointAt('/moved');
  receiver.redirect('/moved', receiver.url('/target'));
  await enqueue(endpoint.id);
  await receiver.waitFor(2, (r) => r.path === '/moved');
  expect(receiver.received.filter((r) => r.path === '/target')).toHaveLength(0);
  const [logged] = (await deliveries().list(endpoint.id, null)).data;
  expect(logged).toMatchObject({ responseStatus: 307, lastError: 'redirect not followed' });
});

test('a receiver that never answers is cut off at the time limit, and the endpoint is disabled after the retry window', async () => {
  const { endpoint } = await endpointAt('/silent');
  receiver.hang('/silent');
  await enqueue(endpoint.id);
  await receiver.waitFor(1, (r) => r.path === '/silent');
  await eventually(async () => (await deliveries().list(endpoint.id, null)).data[0]?.lastError !== null, 5_000, 'the time limit');
  expect((await deliveries().list(endpoint.id, null)).data[0]!.lastError).toBe('no answer within 1000 ms');
  // Failing for the window (2 s here, 24 h by default): given up, and the endpoint turned off with the reason.
  await eventually(async () => !(await endpoints().findOne(endpoint.id)).enabled, 15_000, 'the endpoint to be disabled');
  expect((await endpoints().findOne(endpoint.id)).disabledReason).toMatch(
    /^Event msg_\d+_\d+ was given up after \d+ attempts from \S+ to \S+; the last: no answer within 1000 ms\.$/,
  );
  await eventually(
    async () => (await deliveries().list(endpoint.id, null)).data[0]?.status === 'failed',
    15_000,
    'the delivery to be given up',
  );
  const [failed] = (await deliveries().list(endpoint.id, null)).data;
  expect(failed!.finishedAt! - failed!.firstAttemptAt!).toBeLessThanOrEqual(WINDOW_MS + 1_500);
  // A disabled endpoint is sent nothing more.
  const before = receiver.received.filter((r) => r.path === '/silent').length;
  await enqueue(endpoint.id);
  await new Promise((resolve) => setTimeout(resolve, 600));
  expect(receiver.received.filter((r) => r.path === '/silent')).toHaveLength(before);
});

test('a revoked key is sent nothing: its endpoint is disabled with the reason', async () => {
  const key = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: ['title'], write: [] } } });
  const { endpoint } = await endpoints().create(key.id, { url: receiver.url('/revoked') });
  await keysService(app.strapi).revoke(String(key.id));
  await enqueue(endpoint.id);
  await eventually(async () => !(await endpoints().findOne(endpoint.id)).enabled, 5_000, 'the endpoint to be disabled');
  expect((await endpoints().findOne(endpoint.id)).disabledReason).toBe('The key was revoked.');
  expect(receiver.received.filter((r) => r.path === '/revoked')).toHaveLength(0);
});

describe('addresses that are not public are refused at connect time', () => {
  const options = { timeoutMs: 1_000, responseBytes: 1024, allowHttpLoopback: false };

  test('a name that resolves to a private address (or to one only when connecting: DNS rebinding) is never connected to', async () => {
    let calls = 0;
    // A DNS server that answers with a public address first and an internal one after.
    const rebinding: Resolve = (_name, _options, callback) => {
      calls += 1;
      callback(null, [{ address: calls === 1 ? '93.184.216.34' : '10.0.0.5', family: 4 }]);
    };
    rebinding('hooks.example.com', { all: true }, () => undefined);
    const result = await sendWebhook('https://hooks.example.com/in', {}, '{}', { ...options, resolve: rebinding });
    expect(result).toMatchObject({ ok: false, status: null, error: 'hooks.example.com resolves to a refused address (private)' });
    expect(calls).toBe(2);
    const metadata: Resolve = (_name, _options, callback) => callback(null, [{ address: '169.254.169.254', family: 4 }]);
    expect((await sendWebhook('https://metadata.example.com/', {}, '{}', { ...options, resolve: metadata })).error).toContain(
      '(link-local)',
    );
    const mapped: Resolve = (_name, _options, callback) => callback(null, [{ address: '::ffff:127.0.0.1', family: 6 }]);
    expect((await sendWebhook('https://mapped.example.com/', {}, '{}', { ...options, resolve: mapped })).error).toContain('(loopback)');
  });

  test('the system resolver: localhost is refused without the development flag, whatever the scheme', async () => {
    const real: Resolve = (name, opts, callback) => dns.lookup(name, opts, callback);
    const port = new URL(receiver.url()).port;
    const before = receiver.received.length;
    expect((await sendWebhook(`http://localhost:${port}/x`, {}, '{}', { ...options, resolve: real })).error).toContain('https');
    expect((await sendWebhook(`https://127.0.0.1:${port}/x`, {}, '{}', options)).error).toContain('loopback');
    expect((await sendWebhook(`https://[::1]:${port}/x`, {}, '{}', options)).error).toContain('loopback');
    expect(receiver.received.length).toBe(before);
  });

  test('a literal private address is refused before connecting, with or without the flag', async () => {
    for (const allowHttpLoopback of [false, true]) {
      const result = await sendWebhook('https://10.1.2.3/in', {}, '{}', { ...options, allowHttpLoopback });
      expect(result).toMatchObject({ ok: false, status: null });
      expect(result.error).toContain('private');
    }
  });
});

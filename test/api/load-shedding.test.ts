/**
 * Load shedding (contract section 13): at most PUBLIC_API_REQUESTS_IN_FLIGHT keyed requests run at once;
 * one over the bound waits up to PUBLIC_API_REQUEST_WAIT_MS while fewer than PUBLIC_API_REQUESTS_WAITING
 * wait, and is otherwise answered 503 `overloaded` with Retry-After. Refused requests (401) and
 * preflights never take a turn.
 *
 * Turns are held by writes whose bodies never finish arriving: a handler holds its turn while it reads
 * the body, so these stand for requests still at work.
 */
import http from 'node:http';
import { bootApp, type TestApp } from '../helpers/app';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { createKey } from '../helpers/keys';
import { portOf } from '../helpers/raw-http';
import { turnsOf, untilTurns } from '../helpers/turns';
import { OVERLOADED_RETRY_AFTER_SECONDS } from '../../src/plugins/public-api/server/src/config';

const WAIT_MS = 1_000;
const METRICS_TOKEN = 'metrics-token-for-load-shedding-0123';

let app: TestApp;
let port: number;
let auth: string;

beforeAll(async () => {
  app = await bootApp({
    PUBLIC_API_REQUESTS_IN_FLIGHT: '2',
    PUBLIC_API_REQUESTS_WAITING: '1',
    PUBLIC_API_REQUEST_WAIT_MS: String(WAIT_MS),
    // One key holds every turn here (the per-key share is load-gate.test.ts's and the abuse bench's).
    PUBLIC_API_REQUESTS_PER_KEY: '10',
    METRICS_TOKEN,
  });
  auth = (await createKey(app.strapi, { resources: { 'native:events': { actions: ['read', 'create'], read: '*', write: '*' } } })).auth;
  port = await portOf(app);
});
afterAll(async () => {
  await app?.close();
});

/** A create that declares a body and sends only its first bytes, until destroyed. */
const hold = () => {
  const req = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/v2/events',
    headers: { Authorization: auth, 'Content-Type': 'application/vnd.api+json', 'Content-Length': '200' },
  });
  req.on('error', () => undefined);
  req.write('{"data":');
  return req;
};

const get = () => app.http().get('/api/v2/events').set('Authorization', auth);

const timed = async <T>(work: Promise<T>): Promise<{ result: T; ms: number }> => {
  const started = Date.now();
  const result = await work;
  return { result, ms: Date.now() - started };
};

const expectOverloaded = (res: { status: number; headers: Record<string, string>; body: unknown }) => {
  expect(res.status).toBe(503);
  expect(res.headers['retry-after']).toBe(String(OVERLOADED_RETRY_AFTER_SECONDS));
  expect(res.headers['content-type']).toBe('application/vnd.api+json');
  expectValidJsonApi(res.body);
  expect((res.body as { errors: unknown[] }).errors).toEqual([
    expect.objectContaining({ status: '503', code: 'service_unavailable', meta: { reason: 'overloaded' } }),
  ]);
};

/** Waits until both turns are held: a read then waits its full time and is shed. */
const untilFull = async () => {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const res = await get();
    if (res.status === 503) return;
    expect(res.status).toBe(200);
  }
  throw new Error('the held writes never took both turns');
};

test('over the bound a request waits, then gets 503 overloaded with Retry-After; past the queue at once', async () => {
  const held = [hold(), hold()];
  try {
    await untilFull();
    const waiting = timed(get());
    let waitedOut = false;
    void waiting.then(() => (waitedOut = true));
    await untilTurns(app, METRICS_TOKEN, 2, 1);
    // The one place in the queue is taken: the next request is shed without waiting, while the one in
    // the queue still waits.
    const shedAtOnce = await timed(get());
    expectOverloaded(shedAtOnce.result);
    expect(waitedOut).toBe(false);
    const waited = await waiting;
    expectOverloaded(waited.result);
    expect(waited.ms).toBeGreaterThanOrEqual(WAIT_MS - 50);

    // Refused requests and preflights take no turn: they are answered while every turn is taken (one
    // that waited for a turn would be shed, 503, as the queue's place is free but no turn comes back).
    expect((await app.http().get('/api/v2/events').set('Authorization', 'Bearer pda_nonsense')).status).toBe(401);
    expect((await app.http().options('/api/v2/events')).status).toBe(204);
    expect(await turnsOf(app, METRICS_TOKEN)).toEqual({ running: 2, waiting: 0 });

    // A turn given back goes to the request waiting for it.
    const next = get();
    await new Promise((resolve) => setTimeout(resolve, 100));
    held.shift()!.destroy();
    expect((await next).status).toBe(200);
  } finally {
    for (const req of held) req.destroy();
  }
  // Every turn comes back: requests run again.
  for (let attempt = 0; attempt < 3; attempt += 1) expect((await get()).status).toBe(200);
});

test('requests within the bound run side by side and are never shed', async () => {
  const answers = await Promise.all([get(), get(), get()]);
  for (const res of answers) expect(res.status).toBe(200);
});

/**
 * Running many instances (issue 20; docs/deployment.md): the request id, the per-request log line, the
 * health endpoints, the protected Prometheus metrics, and the drain's first steps (readiness 503, then the
 * listener closes while a request in flight still finishes). The SIGTERM of a real process, and the same
 * behind HAProxy, are in cluster.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { winston } from '@strapi/logger';
import { bootApp, type TestApp } from '../helpers/app';
import { createKey } from '../helpers/keys';
import { STRAPI_BIN, runNode } from '../helpers/processes';
import { listenOnce } from '../helpers/writes';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
const EVENTS_READ = { resources: { 'native:events': { actions: ['read'], read: ['title'] } } };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let app: TestApp;

/** The captured entries once one matches (the line is written when the response has left). */
const loggedEntry = async (matches: (entry: (typeof logged)[number]) => boolean) => {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const found = logged.find(matches);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return undefined;
};
const logged: Array<{ level: string; message: string; [field: string]: unknown }> = [];

beforeAll(async () => {
  app = await bootApp({ METRICS_TOKEN, SHUTDOWN_DRAIN_DELAY_MS: '300', SHUTDOWN_TIMEOUT_MS: '5000' });
  // What the logger's transports receive, fields included (the console transport is at LOG_LEVEL=error).
  const stream = new Writable({
    objectMode: true,
    write(entry: { level: string; message: string; [level: symbol]: string }, _encoding, done) {
      // The console transport colours `level` in place; the symbol keeps the plain one.
      logged.push({ ...entry, level: entry[Symbol.for('level')]! });
      done();
    },
  });
  app.strapi.log.add(new winston.transports.Stream({ stream, level: 'silly' }));
});
afterAll(async () => {
  await app?.close();
  delete process.env.METRICS_TOKEN;
  delete process.env.SHUTDOWN_DRAIN_DELAY_MS;
  delete process.env.SHUTDOWN_TIMEOUT_MS;
});

describe('request ids', () => {
  test('every answer has a new X-Request-Id; one sent by a client is not kept when no proxy is trusted', async () => {
    const first = await app.http().get('/api/v2/');
    const second = await app.http().get('/api/v2/').set('X-Request-Id', 'chosen-by-the-client');
    const admin = await app.http().get('/no-such-page');
    for (const res of [first, second, admin]) expect(res.headers['x-request-id']).toMatch(UUID);
    expect(new Set([first, second, admin].map((res) => res.headers['x-request-id'])).size).toBe(3);
  });

  test('behind a trusted proxy, a sane incoming id is kept and an insane one replaced', async () => {
    app.strapi.server.app.proxy = true;
    try {
      const kept = await app.http().get('/api/v2/').set('X-Request-Id', 'haproxy-7f3a:9c21.42');
      expect(kept.headers['x-request-id']).toBe('haproxy-7f3a:9c21.42');
      for (const insane of ['has space', 'x'.repeat(65), 'semi;colon', '"quoted"']) {
        const res = await app.http().get('/api/v2/').set('X-Request-Id', insane);
        expect(res.headers['x-request-id']).toMatch(UUID);
      }
    } finally {
      app.strapi.server.app.proxy = false;
    }
  });
});

describe('the log line of a request', () => {
  test('names the request id, method, path, route template, status, duration and key id', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    logged.length = 0;
    const res = await app.http().get('/api/v2/events?limit=1').set('Authorization', key.auth);
    expect(res.status).toBe(200);
    const line = await loggedEntry((entry) => entry.requestId === res.headers['x-request-id'] && entry.level === 'http');
    expect(line).toMatchObject({
      method: 'GET',
      path: '/api/v2/events',
      route: 'v2:native-collection',
      status: 200,
      keyId: key.keyId,
    });
    expect(typeof line!.durationMs).toBe('number');
    // The query string (filters, cursors) is not logged; the path is.
    expect(JSON.stringify(line)).not.toContain('limit=1');
  });

  test('a request without a valid key is logged without one; its 401 keeps its route', async () => {
    logged.length = 0;
    const res = await app.http().get('/api/v2/events').set('Authorization', 'Bearer pdk_nope');
    expect(res.status).toBe(401);
    const line = await loggedEntry((entry) => entry.requestId === res.headers['x-request-id']);
    expect(line).toMatchObject({ status: 401, route: 'v2:native-collection', keyId: null });
  });

  test('an error logged while a request runs carries its request id', async () => {
    logged.length = 0;
    const key = await createKey(app.strapi, EVENTS_READ);
    const resources = app.strapi.plugin('public-api').service('resources') as { native: () => unknown };
    const native = resources.native;
    resources.native = () => {
      throw new Error('the registry broke (test)');
    };
    try {
      const res = await app.http().get('/api/v2/').set('Authorization', key.auth);
      expect(res.status).toBe(500);
      expect(res.text).not.toContain('the registry broke');
      const error = await loggedEntry((entry) => entry.level === 'error' && String(entry.message).includes('the registry broke'));
      expect(error?.requestId).toBe(res.headers['x-request-id']);
    } finally {
      resources.native = native;
    }
  });
});

describe('health endpoints', () => {
  test('/health/live and /health/ready answer 200 with the database up; no key, no cache', async () => {
    const live = await app.http().get('/health/live');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'live' });
    const ready = await app.http().get('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.headers['cache-control']).toBe('no-store');
    expect(ready.body).toEqual({ status: 'ready', checks: { database: { status: 'up' } } });
    expect((await app.http().head('/health/ready')).status).toBe(200);
  });

  test('other methods get 405 with Allow', async () => {
    const res = await app.http().post('/health/ready');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.body.errors[0].status).toBe('405');
  });
});

describe('metrics', () => {
  test('401 without the token or with another, 200 with it', async () => {
    const none = await app.http().get('/metrics');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(none.text).not.toContain('public_api_');
    expect((await app.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}x`)).status).toBe(401);
    expect((await app.http().get('/metrics').set('Authorization', METRICS_TOKEN)).status).toBe(401);
    const ok = await app.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(ok.headers['cache-control']).toBe('no-store');
  });

  test('404 when no token is configured', async () => {
    const config = app.strapi.config.get('plugin::public-api') as { metricsToken: string };
    config.metricsToken = '';
    try {
      const res = await app.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('public_api_');
    } finally {
      config.metricsToken = METRICS_TOKEN;
    }
  });

  test('requests by route, status and key; latency; rate-limit hits; pool, queue and process metrics', async () => {
    const key = await createKey(app.strapi, EVENTS_READ, { limits: { requests: 2, window: 60 } });
    for (let i = 0; i < 3; i += 1) await app.http().get('/api/v2/events').set('Authorization', key.auth);
    await app.http().get('/api/v2/events/nosuch').set('Authorization', key.auth);
    const text = (await app.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`)).text;
    const value = (series: string) => {
      const line = text.split('\n').find((entry) => entry.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    expect(value(`public_api_requests_total{route="v2:native-collection",method="GET",status="200",key="${key.keyId}"}`)).toBe(2);
    expect(value(`public_api_requests_total{route="v2:native-collection",method="GET",status="429",key="${key.keyId}"}`)).toBe(1);
    expect(value(`public_api_requests_total{route="v2:native-record",method="GET",status="429",key="${key.keyId}"}`)).toBe(1);
    expect(value('public_api_rate_limited_total{scope="key"}')).toBeGreaterThanOrEqual(2);
    expect(value('public_api_request_duration_seconds_count{route="v2:native-collection",method="GET"}')).toBeGreaterThanOrEqual(3);
    expect(text).toMatch(/^public_api_request_duration_seconds_bucket\{le="0\.005",route="v2:native-collection",method="GET"\} \d+$/m);
    expect(value('public_api_db_pool_connections{state="used"}')).toBeGreaterThanOrEqual(0);
    expect(value('public_api_db_pool_max')).toBeGreaterThanOrEqual(1);
    expect(value('public_api_transform_queue{state="waiting"}')).toBe(0);
    expect(value('public_api_requests_in_flight')).toBe(0);
    // The load gate's turns, registered with the /api/v2 limits on their first request: none held now.
    expect([value('public_api_request_turns{state="running"}'), value('public_api_request_turns{state="waiting"}')]).toEqual([0, 0]);
    expect(value('public_api_draining')).toBe(0);
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    // Paths never become labels: no record id, no query, no file name.
    expect(text).not.toContain('nosuch');
    // The webhook outbox registers its lag at bootstrap (the age of its oldest waiting delivery): none waits here.
    expect(value('public_api_webhook_outbox_lag_seconds')).toBe(0);
  });

  test('paths and methods no route has are counted under two bounded labels, and answered as before', async () => {
    const key = await createKey(app.strapi, EVENTS_READ);
    const unknown = ['/api/v2/a/b/c/d', '/api/v2/a//b', '/api/v2/%E0%A4%A'];
    for (const path of unknown) expect((await app.http().get(path).set('Authorization', key.auth)).status).toBe(404);
    expect((await app.http().delete('/api/v2/').set('Authorization', key.auth)).status).toBe(405);
    const text = (await app.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`)).text;
    expect(text).toMatch(/^public_api_requests_total\{route="v2:unmatched",method="GET",status="404",key=""\} 3$/m);
    expect(text).toMatch(/^public_api_requests_total\{route="v2:method-not-allowed",method="DELETE",status="405",key=""\} 1$/m);
    expect(text).not.toContain('a/b/c');
  });

  test('a registered outbox lag is read at every scrape', async () => {
    const metrics = app.strapi.plugin('public-api').service('metrics') as {
      observeWebhookOutboxLag: (lag: () => Promise<number>) => void;
    };
    let lag = 3;
    metrics.observeWebhookOutboxLag(async () => lag);
    const scrape = async () => (await app.http().get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`)).text;
    expect(await scrape()).toContain('public_api_webhook_outbox_lag_seconds 3');
    lag = 0;
    expect(await scrape()).toContain('public_api_webhook_outbox_lag_seconds 0');
  });
});

describe('drain', () => {
  test('readiness says 503 at once; the listener closes after the delay; a request in flight finishes', async () => {
    await listenOnce(app);
    const { port } = app.strapi.server.httpServer.address() as AddressInfo;
    const key = await createKey(app.strapi, { resources: { 'native:buildings': { actions: ['create', 'read'], read: '*', write: '*' } } });
    // A write whose body is still arriving when the drain starts.
    const body = JSON.stringify({ data: { type: 'buildings', attributes: { name: 'Drain Hall' } } });
    const inFlight = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = http.request(
        {
          port,
          host: '127.0.0.1',
          method: 'POST',
          path: '/api/v2/buildings',
          headers: { Authorization: key.auth, 'Content-Type': 'application/vnd.api+json', 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => req.end(body.slice(10)), 700);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const shutdown = app.strapi.plugin('public-api').service('graceful-shutdown') as { drain: () => Promise<{ finished: boolean }> };
    const drained = shutdown.drain();
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'draining' });
    // Still answering during the delay.
    expect((await fetch(`http://127.0.0.1:${port}/health/live`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 400));
    // The listener is closed: a new connection is refused.
    await expect(fetch(`http://127.0.0.1:${port}/health/live`)).rejects.toThrow();
    const answer = await inFlight;
    expect(answer.status).toBe(201);
    expect(answer.connection).toBe('close');
    expect(await drained).toEqual({ finished: true, leftInFlight: 0 });
  });
});

describe('settings of a deployment stop the start with one clear line', () => {
  test.each([
    [
      { UPLOAD_PROVIDER: 'aws-s3', AWS_REGION: 'eu-central-1', AWS_BUCKET: 'media' },
      'Invalid upload settings: UPLOAD_PROVIDER=aws-s3 needs the package @strapi/provider-upload-aws-s3, which is not installed',
    ],
    [{ UPLOAD_PROVIDER: 'gcs' }, "Invalid upload settings: UPLOAD_PROVIDER must be one of local, aws-s3, got 'gcs'."],
    [{ LOG_FORMAT: 'xml' }, "Invalid logger settings: LOG_FORMAT must be one of pretty, json, got 'xml'."],
    [{ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN must be 16 to 256 characters'],
  ])('%j', async (env, message) => {
    const result = await runNode([STRAPI_BIN, 'start'], env);
    expect(result.code).not.toBe(0);
    expect(result.stderr + result.stdout).toContain(message);
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});

/**
 * Contract section 13, "cost, not count" (issue 34): a key's budget is spent by what a request costs, one
 * unit per request plus records expanded by include (1 per started 50), atomic operations (1 each) and
 * uploaded bytes (1 per started MiB past the first), each charged before the work, with the same
 * RateLimit fields. A request the key cannot pay for is refused with 429 before anything is loaded or
 * written, and its further cost is not spent; one that costs more than the whole quota says so. A replay
 * of an Idempotency-Key costs its unit alone.
 *
 * The counters: in the database (SQLite, or PostgreSQL with TEST_DATABASE=postgres) for the whole suite;
 * in memory and in Redis (127.0.0.1:6379, under a prefix of this run's own) for the charges of atomic
 * requests, the same code on another store.
 */
import type { Core } from '@strapi/strapi';
import fs from 'node:fs';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { bootApp, type TestApp } from '../helpers/app';
import { createKey } from '../helpers/keys';
import { publish } from '../helpers/fixtures';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { minimalPdf } from '../helpers/files';
import { portOf } from '../helpers/raw-http';
import { listenOnce } from '../helpers/writes';

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
const EVENT = 'api::event.event';
const APPLICATION = 'api::job-application.job-application';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const MiB = 1024 * 1024;

const EVENTS_WRITE = { resources: { 'native:events': { actions: ['read', 'create'], read: '*', write: '*' } } };
const FESTIVAL_READ = {
  resources: {
    'native:festivals': { actions: ['read'], read: ['name', 'events'] },
    'native:events': { actions: ['read'], read: ['title'] },
  },
};

type Answer = { status: number; headers: Record<string, string>; body: any };

/** `r` of the RateLimit field: the units left. */
const remainingOf = (answer: { headers: Record<string, string | string[] | undefined> }) => {
  const match = /^"key";r=(\d+);t=(\d+)$/.exec(String(answer.headers.ratelimit ?? ''));
  if (!match) throw new Error(`RateLimit field '${String(answer.headers.ratelimit)}' is not "key";r=<n>;t=<n>`);
  return Number(match[1]);
};

const addEvents = (prefix: string, count: number) => ({
  'atomic:operations': Array.from({ length: count }, (_, index) => ({
    op: 'add',
    data: { type: 'events', attributes: { title: `${prefix} ${index}`, startsAt: '2027-06-01T19:00:00.000Z', category: 'concert' } },
  })),
});

const eventsTitled = async (s: Core.Strapi, prefix: string): Promise<number> =>
  // Published rows: a published record is two rows (its draft and its publication).
  s.db.query(EVENT as never).count({ where: { title: { $startsWith: `${prefix} ` }, publishedAt: { $notNull: true } } });

const atomic = async (app: TestApp, auth: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
  let req = app.http().post('/api/v2/operations').set('Authorization', auth).set('Content-Type', ATOMIC);
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  const res = await req.send(JSON.stringify(body));
  if (res.text) expectValidJsonApi(res.body);
  return { status: res.status, headers: res.headers as Record<string, string>, body: res.body };
};

/** What every store must do with atomic requests: charge them whole before the transaction, or not at all. */
const atomicCharges = (label: string, env: () => Record<string, string>) =>
  describe(`atomic requests, counters ${label}`, () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await bootApp(env());
    });
    afterAll(async () => {
      await app?.close();
    });

    test('each operation costs a unit, charged before the transaction; a request the rest cannot pay is refused whole and spends nothing more', async () => {
      // An hour's window: a slow database on a loaded machine must not see it renewed within the test.
      const key = await createKey(app.strapi, EVENTS_WRITE, { limits: { requests: 120, window: 3600 } });
      const prefix = `Cost ${randomUUID()}`;
      // 1 + 100 units: 19 left.
      const hundred = await atomic(app, key.auth, addEvents(`${prefix} a`, 100));
      expect(hundred.status).toBe(200);
      expect(hundred.headers['ratelimit-policy']).toBe('"key";q=120;w=3600');
      expect(remainingOf(hundred)).toBe(19);
      expect(await eventsTitled(app.strapi, `${prefix} a`)).toBe(100);
      // 1 + 20 units with 19 left: its unit is spent (18 left), its 20 are not, nothing is written.
      const twenty = await atomic(app, key.auth, addEvents(`${prefix} b`, 20));
      expect(twenty.status).toBe(429);
      expect(twenty.body.errors).toEqual([
        expect.objectContaining({
          status: '429',
          code: 'too_many_requests',
          detail:
            'This request costs 21 units (1 for the request, 20 for 20 atomic operations); this key has 18 of its 120 units of the 3600-second window left. Nothing of it was done; retry after the time in Retry-After.',
          meta: { reason: 'rate_limited' },
        }),
      ]);
      expect(remainingOf(twenty)).toBe(18);
      const retryAfter = Number(twenty.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      expect(await eventsTitled(app.strapi, `${prefix} b`)).toBe(0);
      // What was not spent is still there: 1 + 17 units fit exactly.
      const seventeen = await atomic(app, key.auth, addEvents(`${prefix} c`, 17));
      expect(seventeen.status).toBe(200);
      expect(remainingOf(seventeen)).toBe(0);
      expect(await eventsTitled(app.strapi, `${prefix} c`)).toBe(17);
      // Spent: the next request is refused at entry.
      expect((await atomic(app, key.auth, addEvents(`${prefix} d`, 1))).status).toBe(429);
    });
  });

describe('counters in the database', () => {
  let app: TestApp;
  let s: Core.Strapi;
  let port: number;
  let festival: string;

  beforeAll(async () => {
    // Not checkResponses: its OpenAPI document is fetched with each key, and would spend its units.
    app = await bootApp({ PUBLIC_API_RATE_LIMIT_REQUESTS: '600', PUBLIC_API_RATE_LIMIT_WINDOW: '60' });
    s = app.strapi;
    await listenOnce(app);
    port = await portOf(app);
    const fest = await publish(s, 'api::festival.festival', {
      name: 'Long fest',
      slug: 'long-fest',
      startsOn: '2027-06-01',
      endsOn: '2027-06-30',
    });
    festival = fest.documentId;
    for (let i = 0; i < 60; i += 1) {
      await publish(s, EVENT, {
        title: `Fest event ${i}`,
        slug: `fest-event-${i}`,
        startsAt: '2027-06-01T10:00:00.000Z',
        category: 'talk',
        festival: fest.documentId,
      });
    }
    const job = { department: 'engineering', employmentType: 'full-time' };
    await publish(s, 'api::job.job', { title: 'Open', slug: 'open', ...job });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  test('an atomic request of 100 adds with a quota of 3 is refused whole: 429 naming its cost and the quota, nothing written', async () => {
    const key = await createKey(s, EVENTS_WRITE, { limits: { requests: 3, window: 60 } });
    const prefix = `Flood ${randomUUID()}`;
    const refused = await atomic(app, key.auth, addEvents(prefix, 100));
    expect(refused.status).toBe(429);
    expect(refused.body.errors).toEqual([
      expect.objectContaining({
        status: '429',
        code: 'too_many_requests',
        detail:
          "This request costs 101 units (1 for the request, 100 for 100 atomic operations), more than this key's whole quota of 3 units per 60-second window: it can never be served under this limit. Ask for less (a smaller page `limit`, fewer include paths, fewer operations per request, a smaller file) or for a higher rate limit.",
        meta: { reason: 'cost_over_quota' },
      }),
    ]);
    // No wait helps: no Retry-After. The request's own unit is spent.
    expect(refused.headers['retry-after']).toBeUndefined();
    expect(refused.headers['ratelimit-policy']).toBe('"key";q=3;w=60');
    expect(remainingOf(refused)).toBe(2);
    expect(await eventsTitled(s, prefix)).toBe(0);
    // The testers' 300 records in a minute: two more tries, nothing more written, then refused at entry.
    expect((await atomic(app, key.auth, addEvents(prefix, 100))).status).toBe(429);
    expect((await atomic(app, key.auth, addEvents(prefix, 100))).status).toBe(429);
    const spent = await atomic(app, key.auth, addEvents(prefix, 1));
    expect(spent.status).toBe(429);
    expect(spent.body.errors[0].meta).toEqual({ reason: 'rate_limited' });
    expect(await eventsTitled(s, prefix)).toBe(0);
  });

  test('records expanded by include cost a unit per started 50, charged before they are loaded', async () => {
    const key = await createKey(s, FESTIVAL_READ, { limits: { requests: 10, window: 60 } });
    const read = (include?: string) =>
      app
        .http()
        .get(`/api/v2/festivals/long-fest${include ? `?include=${include}` : ''}`)
        .set('Authorization', key.auth);
    // No include: the request's unit alone.
    const plain = await read();
    expect(plain.status).toBe(200);
    expect(remainingOf(plain)).toBe(9);
    // 60 events expanded: 1 + 2 units.
    const expanded = await read('events');
    expect(expanded.status).toBe(200);
    expect(expanded.body.data.attributes.events).toHaveLength(60);
    expect(remainingOf(expanded)).toBe(6);
    // Twice more: 3 left, then 0.
    expect(remainingOf(await read('events'))).toBe(3);
    expect(remainingOf(await read('events'))).toBe(0);
    expect((await read()).status).toBe(429);

    // With 2 units left, the unit is spent and the 2 of the expansion are not: refused, nothing loaded,
    // and the unit left still pays for a read without include.
    const short = await createKey(s, FESTIVAL_READ, { limits: { requests: 4, window: 60 } });
    const readAs = (auth: string, include?: string) =>
      app
        .http()
        .get(`/api/v2/festivals/long-fest${include ? `?include=${include}` : ''}`)
        .set('Authorization', auth);
    expect(remainingOf(await readAs(short.auth))).toBe(3);
    expect(remainingOf(await readAs(short.auth))).toBe(2);
    const refused = await readAs(short.auth, 'events');
    expect(refused.status).toBe(429);
    expectValidJsonApi(refused.body);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors[0]).toMatchObject({
      code: 'too_many_requests',
      detail: expect.stringContaining(
        'This request costs 3 units (1 for the request, 2 for 60 expanded records); this key has 1 of its 4 units',
      ),
      meta: { reason: 'rate_limited' },
    });
    expect(remainingOf(refused)).toBe(1);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const last = await readAs(short.auth);
    expect(last.status).toBe(200);
    expect(remainingOf(last)).toBe(0);

    // A quota smaller than the expansion: never served, and said so.
    const tiny = await createKey(s, FESTIVAL_READ, { limits: { requests: 2, window: 60 } });
    const never = await readAs(tiny.auth, 'events');
    expect(never.status).toBe(429);
    expect(never.body.errors[0].meta).toEqual({ reason: 'cost_over_quota' });
    expect(never.body.errors[0].detail).toContain("more than this key's whole quota of 2 units per 60-second window");
    expect(never.headers['retry-after']).toBeUndefined();
  });

  test('one expanded record costs a whole unit; an include that expands nothing costs none', async () => {
    const key = await createKey(
      s,
      {
        resources: {
          'native:events': { actions: ['read'], read: ['title', 'festival'] },
          'native:festivals': { actions: ['read'], read: ['name'] },
        },
      },
      { limits: { requests: 10, window: 60 } },
    );
    const one = await app.http().get('/api/v2/events/fest-event-0?include=festival').set('Authorization', key.auth);
    expect(one.status).toBe(200);
    expect(one.body.data.attributes.festival.id).toBe(festival);
    expect(remainingOf(one)).toBe(8);
    const none = await app
      .http()
      .get('/api/v2/events?include=festival&filter[title]=nothing-is-called-this')
      .set('Authorization', key.auth);
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
    expect(remainingOf(none)).toBe(7);
  });

  test('an Idempotency-Key replay costs its unit alone; a refused charge keeps no claim, so the request runs once paid for', async () => {
    const key = await createKey(s, EVENTS_WRITE, { limits: { requests: 20, window: 60 } });
    const prefix = `Replay ${randomUUID()}`;
    const idempotency = { 'Idempotency-Key': `cost-${randomUUID()}` };
    const first = await atomic(app, key.auth, addEvents(prefix, 10), idempotency);
    expect(first.status).toBe(200);
    expect(remainingOf(first)).toBe(9);
    const replay = await atomic(app, key.auth, addEvents(prefix, 10), idempotency);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(remainingOf(replay)).toBe(8);
    expect(await eventsTitled(s, prefix)).toBe(10);

    // 1 + 10 units with 8 left: refused, and its Idempotency-Key is not taken by the refusal.
    const later = `${prefix} later`;
    const other = { 'Idempotency-Key': `cost-${randomUUID()}` };
    const refused = await atomic(app, key.auth, addEvents(later, 10), other);
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].meta).toEqual({ reason: 'rate_limited' });
    expect(remainingOf(refused)).toBe(7);
    expect(await eventsTitled(s, later)).toBe(0);
    // With a higher limit the same request runs (not a replay of the refusal) and is charged.
    await s
      .plugin('public-api')
      .service('keys')
      .update(key.keyId, { limits: { requests: 40, window: 60 } });
    const ran = await atomic(app, key.auth, addEvents(later, 10), other);
    expect(ran.status).toBe(200);
    expect(ran.headers['idempotent-replayed']).toBeUndefined();
    // 40 - (11 + 1 + 1 + 1 + 10): what the window counted so far, this one included.
    expect(remainingOf(ran)).toBe(16);
    expect(await eventsTitled(s, later)).toBe(10);
  });

  describe('uploads cost a unit per started MiB past the first', () => {
    const boundary = 'cost-accounting-boundary';
    /** A job application with a CV of `size` bytes, as multipart/form-data of a known length. */
    const application = (name: string, size: number): Buffer => {
      const pdf = minimalPdf();
      const cv = Buffer.concat([pdf, Buffer.alloc(size - pdf.length, 0x20)]);
      const document = JSON.stringify({
        data: { type: 'job-application', attributes: { job: 'open', name, email: 'a@example.com', consent: true } },
      });
      return Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="data"\r\n\r\n${document}\r\n`),
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="cv"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
        ),
        cv,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
    };
    /** POSTs the body with its Content-Length, or chunked (no length) in 64 KiB pieces. */
    const upload = (auth: string, body: Buffer, chunked: boolean, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/api/v2/commands/job-application',
            headers: {
              Authorization: auth,
              'Content-Type': `multipart/form-data; boundary=${boundary}`,
              Accept: 'application/vnd.api+json',
              ...(chunked ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': String(body.length) }),
              ...headers,
            },
            agent: false,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : null });
            });
            res.on('error', reject);
          },
        );
        // A refused body may be cut short by the server: that is no failure of the test.
        req.on('error', (error) => (error.message.includes('EPIPE') || error.message.includes('ECONNRESET') ? undefined : reject(error)));
        if (!chunked) {
          req.end(body);
          return;
        }
        for (let offset = 0; offset < body.length; offset += 64 * 1024) req.write(body.subarray(offset, offset + 64 * 1024));
        req.end();
      });
    const applications = async (name: string) => s.db.query(APPLICATION as never).count({ where: { name } });

    test('with Content-Length: a CV of 3 MiB costs 1 + 3 units, charged before a byte is read; one the rest cannot pay is refused whole, nothing stored', async () => {
      const key = await createKey(s, { commands: ['job-application'] }, { limits: { requests: 6, window: 60 } });
      const name = `Cost ${randomUUID().slice(0, 8)}`;
      // 3 MiB of CV and some hundred bytes of framing and document: 2 MiB and a bit past the first MiB.
      const accepted = await upload(key.auth, application(name, 3 * MiB), false);
      expect(accepted.status).toBe(201);
      expect(remainingOf(accepted as never)).toBe(2);
      expect(await applications(name)).toBe(1);
      // 1 + 3 units with 2 left: the unit is spent, the 3 are not; nothing is stored.
      const refusedName = `${name} again`;
      const refused = await upload(key.auth, application(refusedName, 3 * MiB), false);
      expect(refused.status).toBe(429);
      expect(refused.body.errors[0]).toMatchObject({
        code: 'too_many_requests',
        detail: expect.stringMatching(
          /^This request costs 4 units \(1 for the request, 3 for \d+ uploaded bytes\); this key has 1 of its 6 units/,
        ),
        meta: { reason: 'rate_limited' },
      });
      expect(remainingOf(refused as never)).toBe(1);
      expect(await applications(refusedName)).toBe(0);
      // A body under a MiB costs its unit alone.
      const small = await upload(key.auth, application(`${name} small`, 64 * 1024), false);
      expect(small.status).toBe(201);
      expect(remainingOf(small as never)).toBe(0);
    });

    test('chunked: each started MiB past the first is paid as it arrives; the body is refused at the MiB the key cannot pay, nothing stored, no claim held', async () => {
      const key = await createKey(s, { commands: ['job-application'] }, { limits: { requests: 7, window: 60 } });
      const name = `Chunked ${randomUUID().slice(0, 8)}`;
      const accepted = await upload(key.auth, application(name, 3 * MiB), true);
      expect(accepted.status).toBe(201);
      expect(remainingOf(accepted as never)).toBe(3);
      expect(await applications(name)).toBe(1);
      // 5 MiB with 3 units left: its unit, then the second and third MiB are paid as they arrive; the
      // fourth cannot be, and the body is refused there.
      const refusedName = `${name} refused`;
      const idempotency = `chunked-${randomUUID()}`;
      const refused = await upload(key.auth, application(refusedName, 5 * MiB), true, { 'Idempotency-Key': idempotency });
      expect(refused.status).toBe(429);
      expect(refused.body.errors[0]).toMatchObject({
        code: 'too_many_requests',
        detail: expect.stringMatching(
          /^This upload costs 4 units \(1 for the request, 3 for \d+ uploaded bytes\) with the bytes received so far; this key has 0 of its 7 units .* Its body was refused there: nothing of it was stored/,
        ),
        meta: { reason: 'rate_limited' },
      });
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(refused.headers.connection).toBe('close');
      expect(remainingOf(refused as never)).toBe(0);
      // Nothing written: no record, no stored file, nothing left in the scratch directory, no room held.
      expect(await applications(refusedName)).toBe(0);
      const service = s.plugin('public-api').service('uploads') as { directory: () => string; inFlight: () => unknown };
      for (let i = 0; i < 50 && fs.readdirSync(service.directory()).length > 0; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(fs.readdirSync(service.directory())).toEqual([]);
      expect(service.inFlight()).toEqual({ uploads: 0, bytes: 0 });
      expect(await s.db.query('plugin::upload.file' as never).count({ where: { name: { $startsWith: `CV ${refusedName}.` } } })).toBe(0);
      // No claim of the Idempotency-Key is held: with a higher limit the same request runs (not a replay).
      await s
        .plugin('public-api')
        .service('keys')
        .update(key.keyId, { limits: { requests: 20, window: 60 } });
      const ran = await upload(key.auth, application(refusedName, 5 * MiB), true, { 'Idempotency-Key': idempotency });
      expect(ran.status).toBe(201);
      expect(ran.headers['idempotent-replayed']).toBeUndefined();
      // 7 + 1 + 5: the refused body's 3 units stay spent (its bytes were received).
      expect(remainingOf(ran as never)).toBe(20 - 13);
      expect(await applications(refusedName)).toBe(1);
    });
  });
});

atomicCharges('in memory', () => ({ PUBLIC_API_RATE_LIMIT_STORE: 'memory' }));
atomicCharges('in Redis', () => ({ REDIS_URL, PUBLIC_API_RATE_LIMIT_PREFIX: `test-cost-${randomUUID()}` }));

/**
 * Slow bodies (contract section 13; issue 15): a body must arrive within its kind's time (JSON, multipart
 * upload) and never stall longer than the gap limit; else 408 `request_timeout` with `Connection: close`,
 * the connection closed, nothing of a partial upload on disk, and the turn of the load gate and the
 * upload's room given back. Node's own header limit (config/server.ts) ends a request whose headers never
 * finish. Limits are small here; the tests assert what happens, never how long it took.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import { bootApp, type TestApp } from '../helpers/app';
import { publish } from '../helpers/fixtures';
import { minimalPdf } from '../helpers/files';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { createKey } from '../helpers/keys';
import { parseRawResponse, portOf, sendSlowly } from '../helpers/raw-http';

type UploadsService = { directory: () => string; inFlight: () => { uploads: number; bytes: number } };

let app: TestApp;
let s: Core.Strapi;
let auth: string;
let port: number;
let deleter: string;

const uploads = () => s.plugin('public-api').service('uploads') as UploadsService;
const uploadsDir = () => path.join(s.dirs.static.public, 'uploads');

beforeAll(async () => {
  app = await bootApp({
    PUBLIC_API_JSON_BODY_TIMEOUT_MS: '2000',
    PUBLIC_API_MULTIPART_BODY_TIMEOUT_MS: '2500',
    PUBLIC_API_BODY_GAP_TIMEOUT_MS: '1000',
    // One turn and one upload at a time, no waiting: a request after a timed-out one is served only if
    // the timed-out one gave its turn and its room back.
    PUBLIC_API_REQUESTS_IN_FLIGHT: '1',
    PUBLIC_API_REQUEST_WAIT_MS: '0',
    PUBLIC_API_UPLOADS_IN_FLIGHT: '1',
    SERVER_HEADERS_TIMEOUT_MS: '1000',
    SERVER_CONNECTIONS_CHECKING_INTERVAL_MS: '200',
  });
  s = app.strapi;
  port = await portOf(app);
  await publish(s, 'api::job.job', { title: 'Open', slug: 'open', department: 'engineering', employmentType: 'full-time' });
  auth = (await createKey(s, { commands: ['job-application', 'newsletter-signup'] })).auth;
  deleter = (await createKey(s, { resources: { 'native:events': { actions: ['read', 'delete'], read: ['title'] } } })).auth;
});
afterAll(async () => {
  await app?.close();
});

const head = (target: string, headers: Record<string, string>, key = auth) =>
  `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${key}\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

const jsonHead = (length: number) =>
  head('/api/v2/commands/newsletter-signup', { 'Content-Type': 'application/json', 'Content-Length': String(length) });

const BOUNDARY = 'slow-body-boundary';
const multipartBody = (name: string) =>
  Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"\r\n\r\n${JSON.stringify({
        data: { type: 'job-application', attributes: { job: 'open', name, email: 'slow@example.com', consent: true } },
      })}\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="cv"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    minimalPdf(),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
const multipartHead = (length: number) =>
  head('/api/v2/commands/job-application', {
    'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
    'Content-Length': String(length),
  });

/** `bytes` cut into pieces of `size`. */
const pieces = (bytes: Buffer, size: number) =>
  Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));

const expectTimedOut = (raw: string, reason: string) => {
  const res = parseRawResponse(raw);
  expect(res.status).toBe(408);
  expect(res.headers.connection).toBe('close');
  expect(res.headers['content-type']).toBe('application/vnd.api+json');
  const body = JSON.parse(res.text);
  expectValidJsonApi(body);
  expect(body.errors).toEqual([expect.objectContaining({ status: '408', code: 'request_timeout', meta: { reason } })]);
};

/** The key's one turn is free again: a keyed request is served, not shed. */
const expectTurnFree = async () => {
  const res = await app.http().get('/api/v2/commands/schema').set('Authorization', auth);
  expect(res.status).toBe(200);
};

const expectNoUploadLeft = (name: string) => {
  expect(uploads().inFlight()).toEqual({ uploads: 0, bytes: 0 });
  expect(fs.readdirSync(uploads().directory())).toEqual([]);
  expect(fs.readdirSync(uploadsDir()).filter((file) => file.includes(name.replace(/ /g, '_')))).toEqual([]);
};

describe('a JSON body', () => {
  test('that trickles in (a byte well within the gap limit, but never whole in time) is 408 body_too_slow, and the connection is closed', async () => {
    const body = Buffer.from(JSON.stringify({ data: { type: 'newsletter-signup', attributes: { email: 'slow@example.com' } } }));
    // A byte every 100 ms of a body declared 1,000 bytes long: it would take 100 s.
    const raw = await sendSlowly(port, jsonHead(1000), pieces(Buffer.concat([body, Buffer.alloc(1000 - body.length, 0x20)]), 1), 100);
    expectTimedOut(raw, 'body_too_slow');
    await expectTurnFree();
  });

  test('that stalls past the gap limit is 408 body_stalled', async () => {
    const raw = await sendSlowly(port, jsonHead(100), [Buffer.from('{"data":')], 10);
    expectTimedOut(raw, 'body_stalled');
    await expectTurnFree();
  });

  test('whose headers arrive but no byte of it is 408 body_stalled', async () => {
    expectTimedOut(await sendSlowly(port, jsonHead(100), [], 10), 'body_stalled');
    await expectTurnFree();
  });
});

describe('a multipart upload', () => {
  test('that trickles in is 408 body_too_slow: nothing of it on disk, its room and turn given back, the next upload accepted', async () => {
    const name = 'Slow Trickler';
    const body = multipartBody(name);
    const raw = await sendSlowly(port, multipartHead(body.length), pieces(body, 8), 100);
    expectTimedOut(raw, 'body_too_slow');
    expectNoUploadLeft(name);
    await expectTurnFree();

    const accepted = await app
      .http()
      .post('/api/v2/commands/job-application')
      .set('Authorization', auth)
      .field(
        'data',
        JSON.stringify({
          data: { type: 'job-application', attributes: { job: 'open', name: 'Fast Sender', email: 'f@example.com', consent: true } },
        }),
      )
      .attach('cv', minimalPdf(), 'cv.pdf');
    expect(accepted.status).toBe(201);
  });

  test('that stalls halfway is 408 body_stalled, with nothing of it left', async () => {
    const name = 'Half Sender';
    const body = multipartBody(name);
    const raw = await sendSlowly(port, multipartHead(body.length), [body.subarray(0, body.length >> 1)], 10);
    expectTimedOut(raw, 'body_stalled');
    expectNoUploadLeft(name);
    await expectTurnFree();
  });
});

test("headers that never end are cut by Node's header limit (SERVER_HEADERS_TIMEOUT_MS): 408 as JSON:API, connection closed", async () => {
  const raw = await sendSlowly(port, `GET /api/v2/commands/schema HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`, ['X-Slow: a\r\n'], 100);
  expect(raw).toMatch(/^HTTP\/1\.1 408 /);
  const res = parseRawResponse(raw);
  expect(res.headers['content-type']).toBe('application/vnd.api+json');
  const body = JSON.parse(res.text);
  expectValidJsonApi(body);
  expect(body.errors).toEqual([
    expect.objectContaining({ status: '408', code: 'request_timeout', meta: { reason: 'request_incomplete' } }),
  ]);
  await expectTurnFree();
});

/**
 * Refused requests whose body nobody reads (issue 33): the refusal is sent once the body has arrived,
 * within the limits of an accepted body, else it closes the connection; never a socket held for as long
 * as a client trickles, never a reset in place of the answer.
 */
describe('a refused request with a body', () => {
  const refusedHead = (length: number) =>
    head('/api/v2/commands/newsletter-signup', {
      'Content-Type': 'application/json',
      'Content-Length': String(length),
      Origin: 'https://not-listed.example',
    });

  const expectOriginRefusal = (res: ReturnType<typeof parseRawResponse>) => {
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text).errors).toEqual([expect.objectContaining({ status: '403', meta: { reason: 'origin_not_allowed' } })]);
  };

  test('that trickles in gets its 403 within the limits of an accepted body, and the connection is closed', async () => {
    // A byte every 100 ms of 1,000: an accepted body would be 408 at the JSON limit; this one may hold no longer.
    const raw = await sendSlowly(port, refusedHead(1000), pieces(Buffer.alloc(1000, 0x20), 1), 100);
    const res = parseRawResponse(raw);
    expectOriginRefusal(res);
    expect(res.headers.connection).toBe('close');
    await expectTurnFree();
  });

  test('that stalls gets its 403 at the gap limit, and the connection is closed', async () => {
    const res = parseRawResponse(await sendSlowly(port, refusedHead(100), [Buffer.from('{"data":')], 10));
    expectOriginRefusal(res);
    expect(res.headers.connection).toBe('close');
  });

  test('that arrives whole gets its 403 on a connection that serves the next request', async () => {
    const body = '{"data":{"type":"newsletter-signup","attributes":{"email":"a@example.com"}}}';
    const next = `GET /api/v2/commands/schema HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${auth}\r\nConnection: close\r\n\r\n`;
    const raw = await sendSlowly(port, refusedHead(Buffer.byteLength(body)), [body, next], 10);
    const second = raw.indexOf('HTTP/1.1 ', 1);
    const first = parseRawResponse(raw.slice(0, second));
    expectOriginRefusal(first);
    expect(first.headers.connection).toBe('keep-alive');
    expect(parseRawResponse(raw.slice(second)).status).toBe(200);
  });

  test('a DELETE with a chunked body always gets its 400, never a reset, whenever its chunks arrive', async () => {
    const deleteHead =
      `DELETE /api/v2/events/any HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: ${deleter}\r\n` +
      'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n';
    /** The request in three writes, `pause` apart (0: the next turn of the event loop), and all the server sent. */
    const once = (pause: number) =>
      new Promise<{ raw: string; error: string | null }>((resolve) => {
        const received: Buffer[] = [];
        let error: string | null = null;
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.write(deleteHead);
          setTimeout(() => {
            if (socket.writable) socket.write('5\r\nhello\r\n');
            setTimeout(() => socket.writable && socket.write('0\r\n\r\n'), pause);
          }, pause);
        });
        socket.on('data', (chunk: Buffer) => received.push(chunk));
        socket.on('error', (failure: NodeJS.ErrnoException) => (error = failure.code ?? failure.message));
        socket.on('close', () => resolve({ raw: Buffer.concat(received).toString('utf8'), error }));
      });
    const outcomes = new Map<string, number>();
    for (let round = 0; round < 400; round += 1) {
      const { raw, error } = await once(round % 4);
      const res = raw ? parseRawResponse(raw) : null;
      const outcome = res
        ? `${res.status} ${JSON.parse(res.text).errors[0].meta.reason}${error ? ` then ${error}` : ''}`
        : `nothing: ${error}`;
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
    expect(Object.fromEntries(outcomes)).toEqual({ '400 body_not_allowed': 400 });
  });
});

/**
 * Reading from an upload provider's origin (assets/origin.ts) and relaying part of what it sent
 * (assets/bytes.ts `streamedBytes`): which Range is forwarded, what an origin that lies about its length
 * or stalls gets, where redirects may go, and slices of a body.
 */
import { Readable } from 'node:stream';
import { streamedBytes } from '../../src/plugins/public-api/server/src/assets/bytes';
import { fetchOrigin, forwardableRange, isOriginProblem, type OriginAnswer } from '../../src/plugins/public-api/server/src/assets/origin';
import { startObjectStore, type ObjectStore } from '../helpers/object-store';

const LIMITS = { timeoutMs: 300, maxBytes: 10_000 };
const BYTES = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));

const drain = async (stream: Readable | Buffer): Promise<Buffer> => {
  if (Buffer.isBuffer(stream)) return stream;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

const reasonOf = async (work: Promise<unknown>): Promise<string> => {
  try {
    await work;
  } catch (error) {
    if (isOriginProblem(error)) return error.reason;
    throw error;
  }
  return 'no error';
};

const bodyOf = (answer: OriginAnswer) => {
  if (answer.kind !== 'body') throw new Error(`expected a body, got ${answer.kind}`);
  return answer;
};

describe('forwardableRange', () => {
  test.each([
    ['bytes=0-9', 'bytes=0-9'],
    ['bytes=100-', 'bytes=100-'],
    ['bytes=-20', 'bytes=-20'],
    [' bytes = 5 - 6 ', 'bytes=5-6'],
    ['bytes=-', null],
    ['bytes=0-1,4-5', null],
    ['items=0-9', null],
    ['bytes=a-b', null],
    ['', null],
    [undefined, null],
  ])('%p -> %p', (range, expected) => {
    expect(forwardableRange(range)).toBe(expected);
  });
});

describe('fetchOrigin', () => {
  let store: ObjectStore;
  beforeAll(async () => {
    store = await startObjectStore();
  });
  afterAll(async () => {
    await store.close();
  });

  test('the whole object, its size from Content-Length', async () => {
    store.put('whole', { bytes: BYTES });
    const answer = bodyOf(await fetchOrigin(store.urlOf('whole'), null, LIMITS));
    expect(answer).toMatchObject({ size: 1000, start: 0, length: 1000 });
    expect(Buffer.compare(await drain(answer.body), BYTES)).toBe(0);
  });

  test('a forwarded range: the bytes sent and the whole size', async () => {
    store.put('ranged', { bytes: BYTES });
    const answer = bodyOf(await fetchOrigin(store.urlOf('ranged'), 'bytes=10-19', LIMITS));
    expect(answer).toMatchObject({ size: 1000, start: 10, length: 10 });
    expect(Buffer.compare(await drain(answer.body), BYTES.subarray(10, 20))).toBe(0);
    expect(await fetchOrigin(store.urlOf('ranged'), 'bytes=2000-', LIMITS)).toEqual({ kind: 'unsatisfiable', size: 1000 });
  });

  test('missing (404): no error, an answer', async () => {
    expect(await fetchOrigin(store.urlOf('nothing-here'), null, LIMITS)).toEqual({ kind: 'missing' });
  });

  test('over the size bound: refused from the headers, in whole and in part', async () => {
    store.put('big', { bytes: Buffer.alloc(LIMITS.maxBytes + 1) });
    expect(await reasonOf(fetchOrigin(store.urlOf('big'), null, LIMITS))).toBe('asset_too_large');
    expect(await reasonOf(fetchOrigin(store.urlOf('big'), 'bytes=0-0', LIMITS))).toBe('asset_too_large');
  });

  test('a body shorter than announced is an error of the stream', async () => {
    store.put('short', { bytes: BYTES, announcedLength: 1200 });
    const short = bodyOf(await fetchOrigin(store.urlOf('short'), null, LIMITS));
    // The origin keeps the connection open with 200 bytes missing: the gap timeout ends it.
    expect(await reasonOf(drain(short.body))).toBe('asset_origin_timeout');
  });

  test('headers later than the timeout, a stalled body, a passed deadline: timeouts', async () => {
    store.put('late', { bytes: BYTES, delayMs: 1000 });
    expect(await reasonOf(fetchOrigin(store.urlOf('late'), null, LIMITS))).toBe('asset_origin_timeout');
    store.put('stalled', { bytes: BYTES, stallAfter: 100 });
    const stalled = bodyOf(await fetchOrigin(store.urlOf('stalled'), null, LIMITS));
    expect(await reasonOf(drain(stalled.body))).toBe('asset_origin_timeout');
    expect(await reasonOf(fetchOrigin(store.urlOf('whole'), null, { ...LIMITS, deadline: Date.now() - 1 }))).toBe('asset_origin_timeout');
  });

  test('a body nobody reads times out quietly: its error has a listener, never an uncaught exception', async () => {
    store.put('unread', { bytes: BYTES, stallAfter: 100 });
    const unread = bodyOf(await fetchOrigin(store.urlOf('unread'), null, LIMITS));
    // An 'error' emitted with no listener throws; the body's own listener is there from the start.
    expect(unread.body.listenerCount('error')).toBeGreaterThan(0);
    const closed = new Promise<Error | undefined>((resolve) => unread.body.once('close', () => resolve(unread.body.errored ?? undefined)));
    unread.body.pause();
    const error = await closed;
    expect(isOriginProblem(error) && error.reason).toBe('asset_origin_timeout');
  });

  test('redirects: followed within the origin, refused to another host, and not forever', async () => {
    store.put('target', { bytes: BYTES });
    store.put('hop', { bytes: BYTES, redirectTo: '/target' });
    expect(bodyOf(await fetchOrigin(store.urlOf('hop'), null, LIMITS)).size).toBe(1000);
    store.put('away', { bytes: BYTES, redirectTo: store.urlOf('target').replace('127.0.0.1', 'localhost') });
    expect(await reasonOf(fetchOrigin(store.urlOf('away'), null, LIMITS))).toBe('asset_origin_failed');
    store.put('loop', { bytes: BYTES, redirectTo: '/loop' });
    expect(await reasonOf(fetchOrigin(store.urlOf('loop'), null, LIMITS))).toBe('asset_origin_failed');
  });

  test('only http and https URLs are fetched; other statuses fail', async () => {
    expect(await reasonOf(fetchOrigin('file:///etc/passwd', null, LIMITS))).toBe('asset_origin_failed');
    expect(await reasonOf(fetchOrigin('not a url', null, LIMITS))).toBe('asset_origin_failed');
    store.put('error', { bytes: BYTES, status: 503 });
    expect(await reasonOf(fetchOrigin(store.urlOf('error'), null, LIMITS))).toBe('asset_origin_failed');
  });

  test('identity encoding is asked for', async () => {
    await drain(bodyOf(await fetchOrigin(store.urlOf('whole'), null, LIMITS)).body);
    expect(store.requests.at(-1)).toMatchObject({ acceptEncoding: 'identity' });
  });
});

describe('streamedBytes', () => {
  const bytesOf = (start: number, length: number) =>
    streamedBytes({
      size: 1000,
      start,
      length,
      body: Readable.from([BYTES.subarray(start, start + 300), BYTES.subarray(start + 300, start + length)]),
    });

  test('the whole content covers every range, and a slice of it is exact across chunks', async () => {
    const whole = bytesOf(0, 1000);
    expect(whole.covers!(null)).toBe(true);
    expect(whole.covers!({ start: 999, end: 999 })).toBe(true);
    expect(Buffer.compare(await drain(whole.read({ start: 250, end: 349 })), BYTES.subarray(250, 350))).toBe(0);
  });

  test('a part covers only itself', async () => {
    const part = bytesOf(100, 500);
    expect(part.covers!(null)).toBe(false);
    expect(part.covers!({ start: 99, end: 200 })).toBe(false);
    expect(part.covers!({ start: 100, end: 600 })).toBe(false);
    expect(part.covers!({ start: 100, end: 599 })).toBe(true);
    expect(() => part.read(null)).toThrow();
    expect(Buffer.compare(await drain(bytesOf(100, 500).read({ start: 100, end: 599 })), BYTES.subarray(100, 600))).toBe(0);
    expect(Buffer.compare(await drain(bytesOf(100, 500).read({ start: 390, end: 410 })), BYTES.subarray(390, 411))).toBe(0);
  });
});

/**
 * A request body as a stream (http/body.ts `createBodyStream`, multipart uploads): chunks passed on as
 * they arrive, each only once the meter has let it in (a chunked upload pays for each started MiB before
 * it is parsed or written), under the same limits as a body read whole (413, 408); and, as a property,
 * that what the reader gets is exactly what was sent up to the first refusal, never a byte past it.
 */
import fc from 'fast-check';
import { PassThrough, type Readable } from 'node:stream';
import { createBodyStream } from '../../src/plugins/public-api/server/src/http/body-stream';
import { apiError, isApiError } from '../../src/plugins/public-api/server/src/http/errors';

const TIMEOUTS = { jsonMs: 60_000, multipartMs: 60_000, gapMs: 60_000 };
const CHUNKED = { 'content-type': 'multipart/form-data; boundary=x', 'transfer-encoding': 'chunked' };

/** What the reader got, and how the stream ended (null: it ended whole). */
const readAll = (stream: Readable): Promise<{ bytes: Buffer; error: unknown }> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve({ bytes: Buffer.concat(chunks), error: null }));
    stream.on('error', (error) => resolve({ bytes: Buffer.concat(chunks), error }));
  });

afterEach(() => {
  jest.useRealTimers();
});

test('chunks pass as they arrive; the meter hears the size with each chunk before it is passed on', async () => {
  const source = new PassThrough();
  const heard: number[] = [];
  const passedWhenHeard: number[] = [];
  let passed = 0;
  const stream = createBodyStream(source, CHUNKED, TIMEOUTS)(1_000, 'multipart', async (bytes) => {
    heard.push(bytes);
    passedWhenHeard.push(passed);
    await new Promise((resolve) => setTimeout(resolve, 5));
  });
  stream.on('data', (chunk: Buffer) => (passed += chunk.length));
  const read = readAll(stream);
  source.write(Buffer.alloc(10, 1));
  source.write(Buffer.alloc(20, 2));
  source.end(Buffer.alloc(30, 3));
  const { bytes, error } = await read;
  expect(error).toBeNull();
  expect(bytes).toEqual(Buffer.concat([Buffer.alloc(10, 1), Buffer.alloc(20, 2), Buffer.alloc(30, 3)]));
  expect(heard).toEqual([10, 30, 60]);
  // Each chunk waited for the meter: the reader had the ones before it only.
  expect(passedWhenHeard).toEqual([0, 10, 30]);
  expect(stream.headers).toBe(CHUNKED);
});

test("the meter's refusal ends the stream with its error; the refused chunk and the rest never reach the reader", async () => {
  const source = new PassThrough();
  const refusal = apiError(429, 'Out of units.', { reason: 'rate_limited' });
  const stream = createBodyStream(source, CHUNKED, TIMEOUTS)(10_000, 'multipart', (bytes) =>
    bytes > 25 ? Promise.reject(refusal) : undefined,
  );
  const read = readAll(stream);
  source.write(Buffer.alloc(10, 1));
  source.write(Buffer.alloc(10, 2));
  source.write(Buffer.alloc(10, 3));
  source.write(Buffer.alloc(10, 4));
  const { bytes, error } = await read;
  expect(error).toBe(refusal);
  expect(bytes).toEqual(Buffer.concat([Buffer.alloc(10, 1), Buffer.alloc(10, 2)]));
  // The rest of the body is drained unread: the source flows with nobody listening.
  expect(source.listenerCount('data')).toBe(0);
  expect(source.readableFlowing).toBe(true);
});

test('past the limit: 413 as soon as the body grows past it, or before a byte when its length says so', async () => {
  const source = new PassThrough();
  const stream = createBodyStream(source, CHUNKED, TIMEOUTS)(15, 'multipart');
  const read = readAll(stream);
  source.write(Buffer.alloc(10));
  source.write(Buffer.alloc(10));
  const { bytes, error } = await read;
  expect(isApiError(error) && error.status).toBe(413);
  expect(bytes.length).toBe(10);

  const declared = new PassThrough();
  const refused = createBodyStream(declared, { 'content-length': '100' }, TIMEOUTS)(15, 'multipart');
  const outcome = await readAll(refused);
  expect(isApiError(outcome.error) && outcome.error.status).toBe(413);
  expect(outcome.bytes.length).toBe(0);
});

test('a body that stalls, or takes longer than its kind may, is refused with 408 and not drained', async () => {
  jest.useFakeTimers();
  const stalled = new PassThrough();
  const stream = createBodyStream(stalled, CHUNKED, { ...TIMEOUTS, gapMs: 100 })(1_000, 'multipart');
  const read = readAll(stream);
  stalled.write(Buffer.alloc(5));
  await Promise.resolve();
  jest.advanceTimersByTime(150);
  const { error } = await read;
  expect(isApiError(error) && [error.status, error.errors[0]?.meta?.reason]).toEqual([408, 'body_stalled']);
  expect(stalled.isPaused()).toBe(true);

  const slow = new PassThrough();
  const trickle = createBodyStream(slow, CHUNKED, { ...TIMEOUTS, multipartMs: 300, gapMs: 200 })(1_000, 'multipart');
  const trickled = readAll(trickle);
  for (let i = 0; i < 4; i += 1) {
    slow.write(Buffer.alloc(1));
    jest.advanceTimersByTime(100);
  }
  const outcome = await trickled;
  expect(isApiError(outcome.error) && outcome.error.errors[0]?.meta?.reason).toBe('body_too_slow');
});

test('a reader that gives up (destroys the stream) stops listening, and the rest is drained unread', async () => {
  const source = new PassThrough();
  const stream = createBodyStream(source, CHUNKED, TIMEOUTS)(1_000, 'multipart');
  stream.resume();
  source.write(Buffer.alloc(10));
  await new Promise((resolve) => setImmediate(resolve));
  stream.destroy();
  expect(source.listenerCount('data')).toBe(0);
  expect(source.readableFlowing).toBe(true);
});

test('a body is opened once: asking again gives the same stream', async () => {
  const source = new PassThrough();
  const open = createBodyStream(source, CHUNKED, TIMEOUTS);
  const stream = open(1_000, 'multipart');
  expect(open(1_000, 'multipart')).toBe(stream);
  const read = readAll(stream);
  source.end(Buffer.alloc(3));
  expect((await read).bytes.length).toBe(3);
});

test('property: the reader gets exactly the bytes sent before the first chunk the meter refused, in order', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 30 }),
      fc.option(fc.integer({ min: 1, max: 2_000 }), { nil: undefined }),
      fc.boolean(),
      async (sizes, refuseAbove, asynchronous) => {
        const source = new PassThrough();
        const refusal = apiError(429, 'Out of units.', { reason: 'rate_limited' });
        const meter = (bytes: number) => {
          const refused = refuseAbove !== undefined && bytes > refuseAbove;
          if (!asynchronous) return refused ? Promise.reject(refusal) : undefined;
          return new Promise<void>((resolve, reject) => setImmediate(() => (refused ? reject(refusal) : resolve())));
        };
        const stream = createBodyStream(source, CHUNKED, TIMEOUTS)(1_000_000, 'multipart', meter);
        const read = readAll(stream);
        const chunks = sizes.map((size, index) => Buffer.alloc(size, index % 256));
        for (const chunk of chunks) source.write(chunk);
        source.end();
        const { bytes, error } = await read;
        let sent = 0;
        const expected: Buffer[] = [];
        for (const chunk of chunks) {
          sent += chunk.length;
          if (refuseAbove !== undefined && sent > refuseAbove) break;
          expected.push(chunk);
        }
        expect(bytes).toEqual(Buffer.concat(expected));
        expect(error).toBe(expected.length < chunks.length ? refusal : null);
      },
    ),
    { numRuns: 150 },
  );
});

/**
 * The rest of a body nobody read, before a refusal is sent (http/body.ts, issue 33): read and dropped
 * within an accepted body's limits, and the answer says whether the connection can serve another request.
 */
import { PassThrough } from 'node:stream';
import { discardUnreadBody } from '../../src/plugins/public-api/server/src/http/unread-body';

const TIMEOUTS = { jsonMs: 60_000, multipartMs: 60_000, gapMs: 60_000 };
const JSON_BODY = { 'content-type': 'application/json', 'content-length': '10' };

const body = () => Object.assign(new PassThrough(), { complete: false });

test('nothing to read: no body announced, or the body already whole', async () => {
  await expect(discardUnreadBody(body(), {}, TIMEOUTS)).resolves.toBe(true);
  await expect(discardUnreadBody(body(), { 'content-length': '0' }, TIMEOUTS)).resolves.toBe(true);
  await expect(discardUnreadBody(Object.assign(body(), { complete: true }), JSON_BODY, TIMEOUTS)).resolves.toBe(true);
});

test('a body that arrives whole is dropped, and the connection can be reused', async () => {
  const stream = body();
  const settled = discardUnreadBody(stream, { 'transfer-encoding': 'chunked' }, TIMEOUTS);
  stream.write(Buffer.alloc(5));
  stream.end(Buffer.alloc(5));
  await expect(settled).resolves.toBe(true);
  expect(stream.listenerCount('data')).toBe(0);
});

test('a body a handler started reading is not read again: the refusal closes the connection', async () => {
  const stream = body();
  stream.resume();
  stream.pause();
  await expect(discardUnreadBody(stream, JSON_BODY, TIMEOUTS)).resolves.toBe(false);
});

test('a body larger than the bound is not read to its end', async () => {
  const stream = body();
  const settled = discardUnreadBody(stream, JSON_BODY, TIMEOUTS, 8);
  stream.write(Buffer.alloc(5));
  stream.write(Buffer.alloc(5));
  await expect(settled).resolves.toBe(false);
  expect(stream.isPaused()).toBe(true);
});

test('a body that stalls, trickles or breaks off is given up on', async () => {
  const stalled = body();
  await expect(discardUnreadBody(stalled, JSON_BODY, { ...TIMEOUTS, gapMs: 20 })).resolves.toBe(false);
  const trickled = body();
  const drip = setInterval(() => trickled.write('x'), 5);
  try {
    await expect(discardUnreadBody(trickled, JSON_BODY, { ...TIMEOUTS, jsonMs: 50 })).resolves.toBe(false);
  } finally {
    clearInterval(drip);
  }
  // A multipart body has the multipart limit.
  const upload = body();
  const uploadHeaders = { 'content-type': 'multipart/form-data; boundary=x', 'content-length': '10' };
  await expect(discardUnreadBody(upload, uploadHeaders, { ...TIMEOUTS, multipartMs: 20 })).resolves.toBe(false);
  const broken = body();
  const settled = discardUnreadBody(broken, JSON_BODY, TIMEOUTS);
  broken.emit('aborted');
  await expect(settled).resolves.toBe(false);
});

/**
 * Request bodies of /api/v2 (contract section 7): JSON only, at most 1 MiB, read by the API itself
 * because Strapi's body parser runs after it.
 *
 * Order of the answers: no body at all 400, another media type 415, too large 413, not UTF-8 JSON 400,
 * nested too deeply 400. Nothing here knows about resources; `write/resource-object.ts` reads the document.
 *
 * Time limits (contract section 13, slow bodies): a body must arrive whole within its kind's time (a JSON
 * body, a multipart upload), counted from when the handler starts reading it, and no gap between two of
 * its chunks may be longer than the gap limit; else 408 `request_timeout` with `Connection: close`. A
 * request holds a turn of the load gate (and an upload its room) while its body arrives, so a client that
 * trickles bytes would otherwise hold them for as long as it likes.
 */
import { Readable } from 'node:stream';
import { apiError } from './errors';
import { headerValue, type RequestHeaders } from './headers';
import { assertJsonContentType } from './media-types';
import type { ApiRequest, BodyKind, BodyMeter, BodyStream } from './request';

export type { BodyKind, BodyMeter, BodyStream };

export const MAX_BODY_BYTES = 1024 * 1024;

/** Deeper than any document the API reads (a richtext list nests 16 levels, four JSON levels each). */
export const MAX_JSON_DEPTH = 128;

/** Whether the request announces a body: a positive Content-Length or a chunked transfer. */
export const announcesBody = (headers: RequestHeaders): boolean => {
  const length = headerValue(headers, 'content-length');
  if (length !== undefined && length.trim() !== '' && Number(length) > 0) return true;
  return headerValue(headers, 'transfer-encoding') !== undefined;
};

/** How long a body may take to arrive (milliseconds). */
export type BodyTimeouts = {
  /** A JSON body, whole. */
  jsonMs: number;
  /** A multipart body (command uploads), whole. */
  multipartMs: number;
  /** The longest gap between two chunks of any body (and before the first). */
  gapMs: number;
};

const KIND_NAMES: Record<BodyKind, string> = { json: 'A JSON request body', multipart: 'A multipart request body' };

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(3))} s`;

/** 408: the body did not arrive in time. What was received is dropped; the connection is not reused. */
export const bodyTimedOut = (kind: BodyKind, timeouts: BodyTimeouts, cause: 'total' | 'gap') =>
  apiError(
    408,
    cause === 'total'
      ? `${KIND_NAMES[kind]} must arrive within ${seconds(kind === 'json' ? timeouts.jsonMs : timeouts.multipartMs)}; send it faster or smaller.`
      : `The request body stalled: no bytes arrived for ${seconds(timeouts.gapMs)}.`,
    { reason: cause === 'total' ? 'body_too_slow' : 'body_stalled', headers: { Connection: 'close' } },
  );

const tooLarge = (limit: number) =>
  apiError(
    413,
    limit === MAX_BODY_BYTES
      ? `Request bodies are at most ${MAX_BODY_BYTES} bytes (1 MiB).`
      : `This request body may be at most ${limit} bytes.`,
    {
      reason: 'body_too_large',
      // The rest of the body is drained, not read; the connection is not reused.
      headers: { Connection: 'close' },
    },
  );

/**
 * Reads a request stream once, up to `limit` bytes, within the time limits of its kind. A declared length
 * over the limit is refused before a byte is read; a stream that grows past it is refused as soon as it
 * does, and drained. A body that takes too long, or stalls, is refused (408) and not drained: its
 * connection is closed once the answer is sent.
 */
export const createBodyReader = (stream: Readable, headers: RequestHeaders, timeouts: BodyTimeouts) => {
  let read: Promise<Buffer> | null = null;
  return (limit: number, kind: BodyKind): Promise<Buffer> => {
    read ??= new Promise<Buffer>((resolve, reject) => {
      const declared = Number(headerValue(headers, 'content-length') ?? NaN);
      if (Number.isFinite(declared) && declared > limit) {
        stream.resume();
        reject(tooLarge(limit));
        return;
      }
      // With a declared length the bytes are copied into one buffer as they arrive, so a 10 MiB upload is
      // not held twice (its chunks, then their concatenation); without one they are collected.
      let whole = Number.isFinite(declared) && declared > 0 ? Buffer.allocUnsafe(declared) : null;
      let chunks: Buffer[] = [];
      let size = 0;
      const timeUp = (cause: 'total' | 'gap') => () => {
        cleanup();
        // What arrived is dropped; the rest is not waited for.
        chunks = [];
        stream.pause();
        reject(bodyTimedOut(kind, timeouts, cause));
      };
      const total = setTimeout(timeUp('total'), kind === 'json' ? timeouts.jsonMs : timeouts.multipartMs);
      const gap = setTimeout(timeUp('gap'), timeouts.gapMs);
      const cleanup = () => {
        clearTimeout(total);
        clearTimeout(gap);
        stream.off('data', onData);
        stream.off('end', onEnd);
        stream.off('error', onError);
        stream.off('aborted', onAborted);
      };
      const onData = (chunk: Buffer) => {
        gap.refresh();
        size += chunk.length;
        if (size > limit) {
          cleanup();
          stream.resume();
          reject(tooLarge(limit));
          return;
        }
        if (whole && size <= whole.length) {
          chunk.copy(whole, size - chunk.length);
          return;
        }
        if (whole) {
          // More than declared (not over HTTP, whose parser stops at the length): collect from here on.
          chunks = [whole.subarray(0, size - chunk.length)];
          whole = null;
        }
        chunks.push(chunk);
      };
      const onEnd = () => {
        cleanup();
        // Node ends a body at its declared length: `whole` is full unless the stream ended early.
        resolve(whole ? whole.subarray(0, size) : Buffer.concat(chunks, size));
      };
      const onError = (error: Error) => {
        cleanup();
        reject(error);
      };
      const onAborted = () => {
        cleanup();
        reject(apiError(400, 'The request body was not received completely.', { reason: 'body_incomplete' }));
      };
      stream.on('data', onData);
      stream.on('end', onEnd);
      stream.on('error', onError);
      stream.on('aborted', onAborted);
    });
    return read;
  };
};

/**
 * The request body as a stream of its chunks, for a parser that writes them on as they come (multipart
 * uploads: nothing of the body is held in memory beyond the stream's buffer, 16 KiB, and the chunk at
 * hand). The same limits as `createBodyReader`: a declared length over `limit` is refused before a byte
 * is read, a body growing past it as soon as it does (413, the rest drained); the kind's time and the gap
 * limit (408, not drained). `meter` hears each chunk's arrival before the chunk is passed on: the source
 * is paused while it decides, and its refusal ends the stream with its error, the rest of the body
 * drained unread. A failure ends the stream with an error (`destroy(error)`), which the reader sees as its
 * 'error' event. Destroying the stream (a reader that gave up) drains the rest of the body unread.
 */
export const createBodyStream = (source: Readable, headers: RequestHeaders, timeouts: BodyTimeouts) => {
  let opened: BodyStream | null = null;
  return (limit: number, kind: BodyKind, meter?: BodyMeter): BodyStream => {
    if (opened) return opened;
    let size = 0;
    /** A chunk waiting for the meter's word: the source stays paused meanwhile. */
    let metering = false;
    /** The reader asked for no more (its buffer is full): the source is paused until it reads. */
    let full = false;
    let done = false;
    const finish = () => {
      done = true;
      clearTimeout(total);
      clearTimeout(gap);
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onError);
      source.off('aborted', onAborted);
    };
    const fail = (error: Error, drain: boolean) => {
      if (done) return;
      finish();
      if (drain) source.resume();
      else source.pause();
      out.destroy(error);
    };
    const out: BodyStream = Object.assign(
      new Readable({
        read() {
          full = false;
          if (!metering && !done) source.resume();
        },
        destroy(error, callback) {
          // A reader that gave up (a part too large, a malformed body): the rest is drained unread, so
          // that the client, still sending, reads the refusal (the edge closes the connection after it).
          if (!done) {
            finish();
            source.resume();
          }
          callback(error);
        },
      }),
      { headers },
    );
    opened = out;
    const declared = Number(headerValue(headers, 'content-length') ?? NaN);
    const timeUp = (cause: 'total' | 'gap') => () => fail(bodyTimedOut(kind, timeouts, cause), false);
    const total = setTimeout(timeUp('total'), kind === 'json' ? timeouts.jsonMs : timeouts.multipartMs);
    const gap = setTimeout(timeUp('gap'), timeouts.gapMs);
    const pass = (chunk: Buffer) => {
      if (!out.push(chunk)) {
        full = true;
        source.pause();
      }
    };
    const onData = (chunk: Buffer) => {
      gap.refresh();
      size += chunk.length;
      if (size > limit) {
        fail(tooLarge(limit), true);
        return;
      }
      if (!meter) {
        pass(chunk);
        return;
      }
      const decision = meter(size);
      if (!decision) {
        pass(chunk);
        return;
      }
      metering = true;
      source.pause();
      decision.then(
        () => {
          metering = false;
          if (done) return;
          pass(chunk);
          if (sourceEnded) end();
          else if (!full) source.resume();
        },
        (error: unknown) => {
          metering = false;
          // Refused: the rest of the body is drained unread (neither parsed nor written), so that the
          // client, still sending, reads the refusal; the connection is not reused.
          fail(error instanceof Error ? error : new Error(String(error)), true);
        },
      );
    };
    /** The source's end, once every chunk has been passed on (a chunk may still be with the meter). */
    let sourceEnded = false;
    const end = () => {
      if (done) return;
      finish();
      out.push(null);
    };
    const onEnd = () => {
      sourceEnded = true;
      if (!metering) end();
    };
    const onError = (error: Error) => fail(error, false);
    const onAborted = () => fail(apiError(400, 'The request body was not received completely.', { reason: 'body_incomplete' }), false);
    if (Number.isFinite(declared) && declared > limit) {
      fail(tooLarge(limit), true);
      return out;
    }
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('error', onError);
    source.on('aborted', onAborted);
    return out;
  };
};

/**
 * The most bytes of a refused request's body read (and dropped) before the refusal is sent: more than any
 * command upload may have (commands' files are at most 10 MiB), so a refused upload is answered as
 * reliably as an accepted one.
 */
export const REFUSED_BODY_MAX_BYTES = 16 * 1024 * 1024;

type UnreadBody = Readable & { complete?: boolean };

/**
 * Reads and drops what is left of a body no handler read, before a refusal is sent (issue 33). Answering
 * first and closing while the body was still arriving had the client's kernel see a reset, which threw
 * away the answer (105 of 15,000 fuzzed DELETEs with a chunked body got no 400); keeping the connection
 * instead left Node to drop the body's bytes for as long as they came (a trickled body on a 403 held its
 * socket past 30 s). A body is read within the limits of an accepted one (its kind's time, the gap
 * limit) and up to `maxBytes`.
 *
 * True when the body is now whole, or was already (the connection can serve another request); false
 * when it did not arrive whole within the limits, or a handler had started reading it: the refusal then
 * closes the connection.
 */
export const discardUnreadBody = (
  stream: UnreadBody,
  headers: RequestHeaders,
  timeouts: BodyTimeouts,
  maxBytes: number = REFUSED_BODY_MAX_BYTES,
): Promise<boolean> => {
  if (stream.complete || !announcesBody(headers)) return Promise.resolve(true);
  // A handler's reader owns the stream (it paused it on a timeout, or is draining an oversized body).
  if (stream.readableFlowing !== null) return Promise.resolve(false);
  const multipart = /^\s*multipart\//i.test(headerValue(headers, 'content-type') ?? '');
  return new Promise<boolean>((resolve) => {
    let size = 0;
    const finish = (whole: boolean) => {
      clearTimeout(total);
      clearTimeout(gap);
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onFailure);
      stream.off('aborted', onFailure);
      if (!whole) stream.pause();
      resolve(whole);
    };
    const total = setTimeout(() => finish(false), multipart ? timeouts.multipartMs : timeouts.jsonMs);
    const gap = setTimeout(() => finish(false), timeouts.gapMs);
    const onData = (chunk: Buffer) => {
      gap.refresh();
      size += chunk.length;
      if (size > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onFailure = () => finish(false);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onFailure);
    stream.on('aborted', onFailure);
  });
};

const depthExceeds = (value: unknown, limit: number): boolean => {
  if (limit < 0) return true;
  if (Array.isArray(value)) return value.some((item) => depthExceeds(item, limit - 1));
  if (value !== null && typeof value === 'object') return Object.values(value).some((item) => depthExceeds(item, limit - 1));
  return false;
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes -> a JSON value, or 400. Pure. */
export const parseJsonBytes = (bytes: Buffer): unknown => {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw apiError(400, 'The request body is not valid UTF-8.', { reason: 'body_not_utf8' });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw apiError(400, 'The request body is not valid JSON.', { reason: 'body_malformed' });
  }
  if (depthExceeds(value, MAX_JSON_DEPTH)) {
    throw apiError(400, `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`, { reason: 'body_too_deep' });
  }
  return value;
};

/** The body of a POST or PATCH as a JSON value (not yet a document). */
export const readJsonBody = async (request: ApiRequest): Promise<unknown> => {
  if (!announcesBody(request.headers)) {
    throw apiError(400, `This request needs a JSON body: { "data": { "type", "attributes" } }.`, { reason: 'body_missing' });
  }
  assertJsonContentType(headerValue(request.headers, 'content-type'), request.extensions);
  const bytes = await request.readBody(MAX_BODY_BYTES, 'json');
  if (bytes.length === 0) {
    throw apiError(400, `This request needs a JSON body: { "data": { "type", "attributes" } }.`, { reason: 'body_missing' });
  }
  return parseJsonBytes(bytes);
};

/** DELETE takes no body (specification, "Writing", rule 1). */
export const assertNoBody = (request: ApiRequest): void => {
  if (announcesBody(request.headers)) {
    throw apiError(400, 'A DELETE request takes no body.', { reason: 'body_not_allowed' });
  }
};

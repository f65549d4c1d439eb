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
 *
 * A body read as a stream of chunks (uploads) is body-stream.ts; the rest of a refused request's body,
 * read and dropped before the refusal, unread-body.ts.
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

export const bodyTooLarge = (limit: number) =>
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
        reject(bodyTooLarge(limit));
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
          reject(bodyTooLarge(limit));
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

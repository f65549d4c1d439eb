/**
 * Request bodies of /api/v2 (contract section 7): JSON only, at most 1 MiB, read by the API itself
 * because Strapi's body parser runs after it.
 *
 * Order of the answers: no body at all 400, another media type 415, too large 413, not UTF-8 JSON 400,
 * nested too deeply 400. Nothing here knows about resources; `write/resource-object.ts` reads the document.
 */
import type { Readable } from 'node:stream';
import { apiError } from './errors';
import { headerValue, type RequestHeaders } from './headers';
import { assertJsonContentType } from './media-types';
import type { ApiRequest } from './request';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Deeper than any document the API reads (a richtext list nests 16 levels, four JSON levels each). */
export const MAX_JSON_DEPTH = 128;

/** Whether the request announces a body: a positive Content-Length or a chunked transfer. */
export const announcesBody = (headers: RequestHeaders): boolean => {
  const length = headerValue(headers, 'content-length');
  if (length !== undefined && length.trim() !== '' && Number(length) > 0) return true;
  return headerValue(headers, 'transfer-encoding') !== undefined;
};

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
 * Reads a request stream once, up to `limit` bytes. A declared length over the limit is refused before
 * a byte is read; a stream that grows past it is refused as soon as it does, and drained.
 */
export const createBodyReader = (stream: Readable, headers: RequestHeaders) => {
  let read: Promise<Buffer> | null = null;
  return (limit: number): Promise<Buffer> => {
    read ??= new Promise<Buffer>((resolve, reject) => {
      const declared = Number(headerValue(headers, 'content-length') ?? NaN);
      if (Number.isFinite(declared) && declared > limit) {
        stream.resume();
        reject(tooLarge(limit));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const cleanup = () => {
        stream.off('data', onData);
        stream.off('end', onEnd);
        stream.off('error', onError);
        stream.off('aborted', onAborted);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          cleanup();
          stream.resume();
          reject(tooLarge(limit));
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = () => {
        cleanup();
        resolve(Buffer.concat(chunks, size));
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
  const bytes = await request.readBody(MAX_BODY_BYTES);
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

/**
 * How /api/v2 hands a response to Koa: prepared (http/respond.ts: Cache-Control, ETag, coding, 304),
 * then written to the context; and how long a keyed request's turn is held after (until the bytes left).
 */
import type { Context } from 'koa';
import { Readable } from 'node:stream';
import type { CachePolicy } from '../config/cache-policy';
import { errorDocument, type ApiError } from '../http/errors';
import type { ApiResponse } from '../http/request';
import { prepareResponse, type OutgoingResponse } from '../http/respond';
import { cutOnFailure } from '../http/stream-body';

/** What the edge knows when it sends: the key's cache policy once the key is known (undefined before). */
export type Sending = { cachePolicy: CachePolicy | null | undefined };

/**
 * Not async: an async function would hold `response` (a large include's objects) until the bytes were
 * sent; only the serializer holds it, until the bytes exist (http/respond.ts, issue 34).
 */
export const send = (ctx: Context, response: ApiResponse, sending: Sending = { cachePolicy: undefined }) =>
  prepareResponse(response, {
    method: ctx.method,
    acceptEncoding: ctx.get('Accept-Encoding') || undefined,
    ifNoneMatch: ctx.get('If-None-Match') || undefined,
    cachePolicy: sending.cachePolicy,
  }).then((outgoing) => deliver(ctx, outgoing));

const deliver = (ctx: Context, outgoing: OutgoingResponse) => {
  ctx.status = outgoing.status;
  ctx.set(outgoing.headers);
  // Vary adds to what the CORS layer set (Origin) instead of replacing it.
  for (const field of outgoing.vary) ctx.vary(field);
  if (outgoing.type !== undefined) ctx.type = outgoing.type;
  // Koa sends the bytes under these headers (Content-Length from the Buffer), sends none for HEAD, and
  // closes a stream either way. A document sent as a stream of its chunks carries its length (koa drops a
  // Content-Length set before a stream body replaces another).
  ctx.body = outgoing.body instanceof Readable ? cutOnFailure(outgoing.body, () => ctx.res.destroy()) : outgoing.body;
  const length = outgoing.headers['Content-Length'];
  if (length !== undefined) ctx.length = Number(length);
  return outgoing;
};

export const sendError = (ctx: Context, error: ApiError) =>
  send(ctx, { kind: 'document', status: error.status, headers: error.headers, document: errorDocument(error.errors) });

/**
 * Keeps a turn until the response has left (or the connection closed): a serialized document stays in
 * memory until the client has read it, so a turn given back earlier would let clients that read slowly,
 * or many at once, pile up documents beyond the bound (issue 15: 100 connections of 42 MB documents
 * took the process past 6 GB with one turn). A client that takes longer than `sendTimeoutMs` to read
 * its response loses the connection, so slow readers cannot hold every turn.
 */
export const holdUntilSent = (ctx: Context, release: () => void, sendTimeoutMs: number) => {
  const done = () => {
    clearTimeout(timer);
    release();
  };
  const timer = setTimeout(() => {
    ctx.req.socket?.destroy();
    done();
  }, sendTimeoutMs);
  timer.unref();
  // A client gone while its request was at work: 'close' has been emitted already and will not be again.
  if (ctx.res.destroyed || ctx.res.writableFinished || !ctx.req.socket || ctx.req.socket.destroyed) {
    done();
    return;
  }
  ctx.res.once('finish', done);
  ctx.res.once('close', done);
};

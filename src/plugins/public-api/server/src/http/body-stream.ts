/**
 * A request body as a stream of its chunks (multipart uploads, http/multipart.ts), under the limits of
 * http/body.ts: its size, its kind's time and the gap between chunks.
 */
import { Readable } from 'node:stream';
import { bodyTimedOut, bodyTooLarge, type BodyTimeouts } from './body';
import { apiError } from './errors';
import { headerValue, type RequestHeaders } from './headers';
import type { BodyKind, BodyMeter, BodyStream } from './request';

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
        fail(bodyTooLarge(limit), true);
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
      fail(bodyTooLarge(limit), true);
      return out;
    }
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('error', onError);
    source.on('aborted', onAborted);
    return out;
  };
};

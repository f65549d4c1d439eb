/**
 * The rest of a body no handler read, read and dropped before a refusal is sent (middlewares/failures.ts),
 * within the limits of an accepted body (http/body.ts).
 */
import type { Readable } from 'node:stream';
import { announcesBody, type BodyTimeouts } from './body';
import { headerValue, type RequestHeaders } from './headers';

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

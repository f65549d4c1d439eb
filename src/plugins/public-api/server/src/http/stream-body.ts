/**
 * A streamed body (a file, an origin's bytes) whose source fails after the headers are sent cannot become
 * an error document: the connection is cut, so the client sees a short response rather than one that
 * never ends. Koa would otherwise leave the response open and print the error itself.
 */
import { PassThrough, type Readable } from 'node:stream';

/** What Koa sends instead of `source`: its bytes; on a failure of `source`, `cut` is called and it ends. */
export const cutOnFailure = (source: Readable, cut: () => void): Readable => {
  const relay = new PassThrough();
  source.once('error', () => {
    cut();
    relay.destroy();
  });
  // Koa destroys what it was given when the response finishes or the client goes: the source goes too.
  relay.once('close', () => source.destroy());
  return source.pipe(relay);
};

/**
 * Reading a file's bytes from the origin of a non-local upload provider (S3, an S3-compatible store, a CDN
 * in front of one): one GET of an absolute URL, with bounds.
 *
 * - `http:` and `https:` only; `Accept-Encoding: identity`, so what arrives is the stored bytes.
 * - A redirect is followed only to the same origin (scheme, host and port), at most three times; a
 *   redirect elsewhere is a failure, never followed.
 * - The answer's headers must arrive within `timeoutMs`, and no gap between two chunks of the body may be
 *   longer; a deadline (`deadlineMs`) may bound the whole download too.
 * - The size is known before any byte is relayed (Content-Length, or Content-Range for a range): larger
 *   than `maxBytes` is refused before the body is read, and a body longer or shorter than announced is
 *   an error of the stream.
 * - One byte range may be forwarded (the client's own, when it is a single `bytes=` range): the origin's
 *   206 names which bytes it sent and the whole size; an origin that ignores it answers the whole.
 *
 * 404 and 410 mean the object is missing; any other failure is an OriginProblem the handler answers as
 * a JSON:API error (504 on a timeout, 502 otherwise).
 */
import http from 'node:http';
import https from 'node:https';
import { Transform, pipeline, type Readable } from 'node:stream';

export type OriginProblemReason = 'asset_origin_timeout' | 'asset_origin_failed' | 'asset_too_large';

export class OriginProblem extends Error {
  constructor(
    readonly reason: OriginProblemReason,
    message: string,
  ) {
    super(message);
    this.name = 'OriginProblem';
  }
}

export const isOriginProblem = (error: unknown): error is OriginProblem => error instanceof OriginProblem;

export type OriginLimits = {
  /** Longest wait for the answer's headers, and longest gap between two chunks of its body. */
  timeoutMs: number;
  /** The largest object read; a larger one is refused from its headers (`asset_too_large`). */
  maxBytes: number;
  /** When the whole download must have ended (epoch milliseconds), if it is bounded. */
  deadline?: number;
};

/** What the origin answered. `body` carries the bytes `start` to `start + length - 1` of `size`. */
export type OriginAnswer =
  | { kind: 'missing' }
  | { kind: 'unsatisfiable'; size: number }
  | { kind: 'body'; size: number; start: number; length: number; body: Readable };

const MAX_REDIRECTS = 3;
const DIGITS = /^\d+$/;
const CONTENT_RANGE = /^bytes\s+(\d+)-(\d+)\/(\d+)$/i;
const UNSATISFIED_RANGE = /^bytes\s+\*\/(\d+)$/i;
/** One `bytes=` range, as a client may send it: only such a Range is forwarded. */
const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/i;

const agents = {
  'http:': new http.Agent({ keepAlive: true }),
  'https:': new https.Agent({ keepAlive: true }),
} as const;

/** The Range to forward for a client's Range header, or null when it is not one plain byte range. */
export const forwardableRange = (range: string | null | undefined): string | null => {
  const compact = (range ?? '').replace(/\s+/g, '');
  const match = SINGLE_RANGE.exec(compact);
  if (!match || (match[1] === '' && match[2] === '')) return null;
  return compact;
};

const failed = (message: string) => new OriginProblem('asset_origin_failed', message);
const timedOut = (message: string) => new OriginProblem('asset_origin_timeout', message);
const tooLarge = (size: number, maxBytes: number) =>
  new OriginProblem('asset_too_large', `The stored object has ${size} bytes, more than the ${maxBytes} relayed.`);

const originOf = (url: URL) => `${url.protocol}//${url.host}`;

/**
 * Counts the bytes of a body: an error when more arrive than announced, or fewer before it ends, or when
 * no chunk arrives for `timeoutMs`, or when the deadline passes.
 */
const boundedBody = (source: Readable, expected: number, limits: OriginLimits): Readable => {
  let received = 0;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > expected) return done(failed(`The origin sent more than the ${expected} bytes it announced.`));
      arm();
      done(null, chunk);
    },
    flush(done) {
      done(received === expected ? null : failed(`The origin sent ${received} of the ${expected} bytes it announced.`));
    },
  });
  const arm = () => {
    clearTimeout(idle);
    idle = setTimeout(() => counter.destroy(timedOut(`The origin sent nothing for ${limits.timeoutMs} ms.`)), limits.timeoutMs);
  };
  arm();
  if (limits.deadline !== undefined) {
    deadline = setTimeout(
      () => counter.destroy(timedOut('The origin did not send the object in time.')),
      Math.max(0, limits.deadline - Date.now()),
    );
  }
  counter.on('close', () => {
    clearTimeout(idle);
    clearTimeout(deadline);
  });
  // Whoever reads the body hears its errors through their own listener; a body nobody reads (its request
  // ended first, a HEAD) still times out, and an 'error' with no listener is an uncaught exception that
  // would end the process (seen in the suite: a stalled origin's idle timer fired after its test).
  counter.on('error', () => undefined);
  // The pipeline destroys the origin's response (and its socket) when the counter is destroyed early.
  return pipeline(source, counter, () => undefined);
};

const send = (url: URL, range: string | null, limits: OriginLimits): Promise<http.IncomingMessage> =>
  new Promise((resolve, reject) => {
    const protocol = url.protocol as 'http:' | 'https:';
    const client = protocol === 'https:' ? https : http;
    const waitMs = Math.max(0, Math.min(limits.timeoutMs, (limits.deadline ?? Infinity) - Date.now()));
    const request = client.get(url, {
      agent: agents[protocol],
      headers: { 'accept-encoding': 'identity', ...(range ? { range } : {}) },
    });
    const timer = setTimeout(() => request.destroy(timedOut(`The origin did not answer within ${waitMs} ms.`)), waitMs);
    request.on('response', (response) => {
      clearTimeout(timer);
      resolve(response);
    });
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(isOriginProblem(error) ? error : failed(`The origin could not be reached: ${error.message}`));
    });
  });

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** GETs `location` (an absolute http(s) URL), forwarding `range` when given; see the module's comment. */
export const fetchOrigin = async (location: string, range: string | null, limits: OriginLimits): Promise<OriginAnswer> => {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    throw failed('The stored URL is not a URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw failed(`The stored URL's scheme ${url.protocol} is not fetched.`);
  const origin = originOf(url);
  for (let redirects = 0; ; redirects += 1) {
    const response = await send(url, range, limits);
    const status = response.statusCode ?? 0;
    const next = single(response.headers.location);
    if (status >= 300 && status < 400 && status !== 304 && next !== undefined) {
      response.resume();
      let target: URL;
      try {
        target = new URL(next, url);
      } catch {
        throw failed('The origin redirected to something that is not a URL.');
      }
      if (originOf(target) !== origin) throw failed(`The origin redirected to another host (${target.host}); not followed.`);
      if (redirects >= MAX_REDIRECTS) throw failed(`The origin redirected more than ${MAX_REDIRECTS} times.`);
      url = target;
      continue;
    }
    if (status === 404 || status === 410) {
      response.resume();
      return { kind: 'missing' };
    }
    if (status === 416 && range !== null) {
      response.resume();
      const unsatisfied = UNSATISFIED_RANGE.exec(single(response.headers['content-range'])?.trim() ?? '');
      if (unsatisfied) return { kind: 'unsatisfiable', size: Number(unsatisfied[1]) };
      // An origin that refuses the range without saying the size: ask for the whole.
      return fetchOrigin(url.href, null, limits);
    }
    if (status === 200) {
      const declared = single(response.headers['content-length'])?.trim() ?? '';
      if (!DIGITS.test(declared)) {
        response.destroy();
        throw failed('The origin did not say how large the object is (no Content-Length).');
      }
      const size = Number(declared);
      if (size > limits.maxBytes) {
        response.destroy();
        throw tooLarge(size, limits.maxBytes);
      }
      return { kind: 'body', size, start: 0, length: size, body: boundedBody(response, size, limits) };
    }
    if (status === 206 && range !== null) {
      const sent = CONTENT_RANGE.exec(single(response.headers['content-range'])?.trim() ?? '');
      const first = Number(sent?.[1]);
      const last = Number(sent?.[2]);
      const size = Number(sent?.[3]);
      if (!sent || last < first || last >= size) {
        response.destroy();
        throw failed('The origin answered a range without a usable Content-Range.');
      }
      if (size > limits.maxBytes) {
        response.destroy();
        throw tooLarge(size, limits.maxBytes);
      }
      const length = last - first + 1;
      return { kind: 'body', size, start: first, length, body: boundedBody(response, length, limits) };
    }
    response.resume();
    throw failed(`The origin answered ${status}.`);
  }
};

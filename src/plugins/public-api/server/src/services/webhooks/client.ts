/**
 * Sends one webhook request, with the defences of a server that posts to URLs strangers typed in
 * (server-side request forgery):
 *
 * - the scheme: https, or http to loopback with the development flag (webhooks/endpoint-input.ts);
 * - the address: a literal one is judged before connecting; a host name is resolved by a `lookup` of our
 *   own that the socket calls at connect time, and only addresses that webhooks/addresses.ts allows are
 *   handed to it. The check and the connection use the same answer, so a name cannot resolve to a public
 *   address for a check and to an internal one for the connection (DNS rebinding);
 * - no redirects: a 3xx is a failed attempt, never followed (Node's client follows none);
 * - a time limit on the whole exchange, and a cap on the bytes of the answer read;
 * - a fresh connection per send (no agent pool): nothing is reused across lookups.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusedAddress } from '../../webhooks/addresses';
import { urlProblem } from '../../webhooks/endpoint-input';

export type SendOptions = {
  timeoutMs: number;
  /** The most bytes of the answer read. */
  responseBytes: number;
  /** Development flag: http and loopback allowed. */
  allowHttpLoopback: boolean;
  /** The resolver (tests stand in a DNS server that answers differently each time); the system's by default. */
  resolve?: Resolve;
};

/** `dns.lookup` with `all: true`, or a stand-in of the same shape. */
export type Resolve = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

export type SendResult = {
  /** A 2xx answer. */
  ok: boolean;
  /** The answer's status, or null when there was none (refused, unreachable, timed out). */
  status: number | null;
  durationMs: number;
  /** Why the attempt failed, briefly (never the answer's body). */
  error: string | null;
};

/** Thrown by the lookup for an address we may not connect to; its message is shown in the delivery log. */
class RefusedAddressError extends Error {
  code = 'EREFUSEDADDRESS';
}

/** A lookup that resolves as the system does and hands the socket only addresses we may connect to. */
export const guardedLookup =
  (allowLoopback: boolean, resolve: Resolve = dns.lookup): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname, { ...(options as dns.LookupOptions), all: true }, (error, found) => {
      if (error) return callback(error, '', 0);
      const addresses = (found as dns.LookupAddress[]).filter((entry) => refusedAddress(entry.address, { allowLoopback }) === null);
      if (addresses.length === 0) {
        const first = (found as dns.LookupAddress[])[0];
        const why = first ? refusedAddress(first.address, { allowLoopback }) : 'no address';
        return callback(new RefusedAddressError(`${hostname} resolves to a refused address (${why})`), '', 0);
      }
      if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };

const failure = (started: number, error: string, status: number | null = null): SendResult => ({
  ok: false,
  status,
  durationMs: Date.now() - started,
  error,
});

export const sendWebhook = (url: string, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> => {
  const started = Date.now();
  const problem = urlProblem(url, { allowLoopback: options.allowHttpLoopback, allowHttpLoopback: options.allowHttpLoopback });
  if (problem) return Promise.resolve(failure(started, problem));
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const refused = refusedAddress(host, { allowLoopback: options.allowHttpLoopback });
    if (refused) return Promise.resolve(failure(started, `refused address (${refused})`));
  }
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = client.request(
      target,
      {
        method: 'POST',
        agent: false,
        lookup: guardedLookup(options.allowHttpLoopback, options.resolve),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'public-data-api-webhooks/1',
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          // Enough of the answer: its status is what counts, and nobody's body is worth our memory.
          if (read > options.responseBytes) response.destroy();
        });
        const finish = () => {
          if (status >= 200 && status < 300) settle({ ok: true, status, durationMs: Date.now() - started, error: null });
          else if (status >= 300 && status < 400) settle(failure(started, 'redirect not followed', status));
          else settle(failure(started, `HTTP ${status}`, status));
        };
        response.on('end', finish);
        response.on('close', finish);
        response.on('error', finish);
      },
    );
    const timer = setTimeout(() => {
      settle(failure(started, `no answer within ${options.timeoutMs} ms`));
      request.destroy();
    }, options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => {
      const message = error instanceof RefusedAddressError ? error.message : `${error.code ?? 'error'}: ${error.message}`;
      settle(failure(started, message.slice(0, 300)));
    });
    request.end(body);
  });
};

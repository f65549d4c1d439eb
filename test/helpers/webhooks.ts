/**
 * A local webhook receiver for the webhook suites: records every request (headers and body as sent),
 * answers with what the test says (fail the first N, redirect, hang), and waits for deliveries.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Core } from '@strapi/strapi';

export type Received = { path: string; headers: Record<string, string>; body: string; at: number };

export type Receiver = {
  url: (path?: string) => string;
  received: Received[];
  /** What the next requests get: the status of each, in turn (then 204). */
  answer: (statuses: number[]) => void;
  /** Requests to `path` get a redirect to `location`. */
  redirect: (path: string, location: string) => void;
  /** Requests to `path` are never answered (those held so far stay unanswered). */
  hang: (path: string) => void;
  /** Requests to `path` are answered again. */
  unhang: (path: string) => void;
  /** Resolves when `count` requests matched, or fails after `timeoutMs`. */
  waitFor: (count: number, match?: (request: Received) => boolean, timeoutMs?: number) => Promise<Received[]>;
  close: () => Promise<void>;
};

export const startReceiver = async (): Promise<Receiver> => {
  const received: Received[] = [];
  let statuses: number[] = [];
  const redirects = new Map<string, string>();
  const hanging = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      if (hanging.has(path)) return;
      const location = redirects.get(path);
      if (location) {
        res.writeHead(307, { location }).end();
        return;
      }
      const status = statuses.shift() ?? 204;
      res.writeHead(status).end(status >= 400 ? 'failed on purpose' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    answer: (next) => {
      statuses = [...next];
    },
    redirect: (path, location) => redirects.set(path, location),
    hang: (path) => hanging.add(path),
    unhang: (path) => hanging.delete(path),
    waitFor: async (count, match = () => true, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = received.filter(match);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline) throw new Error(`Waited ${timeoutMs} ms for ${count} requests; got ${matching.length}.`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** Waits until `check` is true (polling), or fails. */
export const eventually = async (check: () => Promise<boolean> | boolean, timeoutMs = 20_000, what = 'the condition'): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Waited ${timeoutMs} ms for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

/**
 * Settings for suites that deliver to a local receiver quickly: loopback allowed, short retries. A delivery
 * may take 3 s: on a loaded CI machine one took longer than 1 s, the receiver had it, the sender counted it
 * failed and sent it again (at least once, as Standard Webhooks allow), and a suite counting exactly-once
 * deliveries failed. The suite that tests the time limit itself sets its own (webhooks-delivery).
 */
export const FAST_WEBHOOKS_ENV = {
  PUBLIC_API_WEBHOOKS_ALLOW_HTTP_LOOPBACK: 'true',
  PUBLIC_API_WEBHOOKS_POLL_INTERVAL_MS: '100',
  PUBLIC_API_WEBHOOKS_RETRY_BASE_MS: '50',
  PUBLIC_API_WEBHOOKS_RETRY_CAP_MS: '200',
  PUBLIC_API_WEBHOOKS_TIMEOUT_MS: '3000',
};

export const webhookService = <T>(strapi: Core.Strapi, name: string): T => strapi.plugin('public-api').service(name) as T;

/**
 * `npm run bench:webhooks`: events per second from a change to its delivery at a local receiver
 * (contract section 16). The application runs as its own process on a fresh SQLite database (or, with
 * `--database postgres`, a fresh PostgreSQL database `pda_bench_webhooks` on BENCH_POSTGRES_URL, by
 * default postgres://postgres@127.0.0.1:5432/postgres, dropped and made again at each run); `--changes`
 * events are created through /api/v2 (`--concurrency` at once), each subscribed to by `--endpoints`
 * endpoints of one key, and the receiver (in this process) records when each event arrives and verifies its
 * signature with the Standard Webhooks reference library. Printed: the rate of delivered events from the
 * first write to the last delivery, and the latency from a write's answer to its delivery (p50, p95, max).
 *
 *   npm run bench:webhooks -- [--changes 500] [--endpoints 1] [--concurrency 8] [--database sqlite|postgres]
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { Webhook } from 'standardwebhooks';
import { startServer } from './server';
import { DATA_DIR, benchEnvironment, createApiKey, withStrapi } from './setup';

const say = (line = '') => process.stdout.write(`${line}\n`);

type WebhooksService = { create: (key: string, body: unknown) => Promise<{ secret: string }> };
type KeysService = { findOne: (id: string) => Promise<{ id: number } | null> };

const POSTGRES_DATABASE = 'pda_bench_webhooks';

/** A fresh PostgreSQL database for the run; its settings for the application. */
const freshPostgres = async (): Promise<Record<string, string>> => {
  const admin = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const client = new Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${POSTGRES_DATABASE}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${POSTGRES_DATABASE}"`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${POSTGRES_DATABASE}`;
  return { DATABASE_CLIENT: 'postgres', DATABASE_URL: url.toString() };
};

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

export const main = async (args: string[]): Promise<number> => {
  const { values } = parseArgs({
    args,
    options: {
      changes: { type: 'string', default: '500' },
      endpoints: { type: 'string', default: '1' },
      concurrency: { type: 'string', default: '8' },
      database: { type: 'string', default: 'sqlite' },
    },
  });
  if (values.database !== 'sqlite' && values.database !== 'postgres') {
    process.stderr.write('usage: npm run bench:webhooks -- [--changes N] [--endpoints N] [--concurrency N] [--database sqlite|postgres]\n');
    return 2;
  }
  const changes = Number(values.changes);
  const endpointCount = Number(values.endpoints);
  const concurrency = Number(values.concurrency);
  const database = `webhooks-${process.pid}.db`;
  const postgres = values.database === 'postgres' ? await freshPostgres() : {};
  const env = { ...benchEnvironment(database), ...postgres, PUBLIC_API_WEBHOOKS_ALLOW_HTTP_LOOPBACK: 'true' };
  Object.assign(process.env, postgres, { PUBLIC_API_WEBHOOKS_ALLOW_HTTP_LOOPBACK: 'true' });

  // The receiver: when each event (by title) arrived, every signature checked.
  const arrivals = new Map<string, number>();
  let refused = 0;
  const secrets: string[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const index = Number((req.url ?? '/0').slice(1));
      try {
        const event = new Webhook(secrets[index]!).verify(body, req.headers as Record<string, string>) as {
          data: { attributes: { title: string } };
        };
        const name = `${index}:${event.data.attributes.title}`;
        if (!arrivals.has(name)) arrivals.set(name, performance.now());
      } catch {
        refused += 1;
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  const writer = await withStrapi(async (strapi) => {
    const reader = await createApiKey(strapi, 'webhooks bench reader', {
      resources: { 'native:events': { actions: ['read'], read: ['title', 'startsAt', 'category'], write: [] } },
      commands: [],
      origins: [],
    });
    const readerId = (await (strapi.plugin('public-api').service('keys') as KeysService).findOne(reader.split('_')[1]!))!.id;
    for (let i = 0; i < endpointCount; i += 1) {
      const made = await (strapi.plugin('public-api').service('webhook-endpoints') as WebhooksService).create(String(readerId), {
        url: `${receiverUrl}/${i}`,
      });
      secrets.push(made.secret);
    }
    return createApiKey(strapi, 'webhooks bench writer', {
      resources: { 'native:events': { actions: ['read', 'create'], read: ['title'], write: ['title', 'startsAt', 'category'] } },
      commands: [],
      origins: [],
    });
  });

  const server = await startServer(env);
  const written = new Map<string, number>();
  const first = performance.now();
  try {
    let next = 0;
    const worker = async () => {
      while (next < changes) {
        const title = `Bench event ${next++}`;
        const res = await fetch(`${server.url}/api/v2/events`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${writer}`, 'Content-Type': 'application/vnd.api+json' },
          body: JSON.stringify({ data: { type: 'events', attributes: { title, startsAt: '2027-01-01T10:00:00Z', category: 'talk' } } }),
        }).catch((error: Error & { cause?: unknown }) => {
          // Say why (the cause: a reset, a refusal, a timeout) and whether the application is still running.
          throw new Error(`write ${title}: ${error.message} (${String(error.cause)}); the application has exited: ${server.exited()}`);
        });
        if (res.status !== 201) throw new Error(`write ${title}: ${res.status} ${await res.text()}`);
        written.set(title, performance.now());
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const deadline = Date.now() + 120_000;
    while (arrivals.size < changes * endpointCount && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    await server.stop();
    receiver.close();
    if (arrivals.size < changes * endpointCount) {
      // What the log says about the missing ones, before the database goes.
      const log = await withStrapi(async (strapi) =>
        strapi.db
          .query('plugin::public-api.webhook-delivery' as never)
          .findMany({ select: ['status', 'lastError', 'attempts'], limit: 5 } as never),
      );
      say(`Missing deliveries; the log says: ${JSON.stringify(log)}`);
    }
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(path.join(DATA_DIR, `${database}${suffix}`), { force: true });
    fs.rmSync(env.PUBLIC_API_ASSET_CACHE_DIR, { recursive: true, force: true });
  }
  const last = Math.max(...arrivals.values());
  const latencies = [...arrivals.entries()].map(([name, at]) => at - written.get(name.slice(name.indexOf(':') + 1))!);
  const writesDone = Math.max(...written.values());
  say(
    `bench:webhooks, ${new Date().toISOString()}, ${values.database}, ${changes} changes, ${endpointCount} endpoint(s), ${concurrency} writers`,
  );
  say('| Delivered | Refused signatures | Writes per s | Events delivered per s | Latency p50 | p95 | max |');
  say('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  say(
    `| ${arrivals.size} of ${changes * endpointCount} | ${refused} | ${((changes / (writesDone - first)) * 1000).toFixed(0)} | ` +
      `${((arrivals.size / (last - first)) * 1000).toFixed(0)} | ${percentile(latencies, 0.5).toFixed(0)} ms | ` +
      `${percentile(latencies, 0.95).toFixed(0)} ms | ${Math.max(...latencies).toFixed(0)} ms |`,
  );
  return arrivals.size === changes * endpointCount && refused === 0 ? 0 : 1;
};

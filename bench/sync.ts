/**
 * `node scripts/run.js bench-sync`: a delta sync against a full re-read (contract section 16), the
 * figures of docs/benchmarks.md's "Sync feed".
 *
 *   node scripts/run.js bench-sync [--events 100000] [--changes 1000] [--port 4503]
 *
 * Seeds the demo content and `--events` benchmark events into its own SQLite database
 * (bench/.data/sync.db; a rerun adds only what is missing), boots the application in this process with
 * its HTTP server on `--port`, and with a key that reads events:
 *
 * 1. full: GET /api/v2/sync?limit=100 and every links.next to the end (every event), timed;
 * 2. makes `--changes` changes through the document service (updates of published events, published at
 *    once, spread over the collection), untimed;
 * 3. delta: the run's links.sync and its links.next to the end, timed; checks that it names every
 *    changed event once.
 *
 * Prints records, pages and milliseconds of both, and the ratio. One run of each: a full read of
 * 100,000 records takes long enough that its noise is small beside the ratio.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import type { Core } from '@strapi/strapi';
import { seedBulkEvents, seedDemo } from '../src/seed';
import { benchEnvironment, withStrapi } from './setup';

const say = (line = '') => process.stdout.write(`${line}\n`);

type KeysService = { create: (input: { name: string; grants: unknown }) => Promise<{ plaintext: string }> };
type SyncPage = { data: { id: string }[]; links: { next?: string; sync?: string } };

/** Follows a sync run from `url` to its last page. */
const follow = async (url: string, key: string) => {
  const ids: string[] = [];
  let pages = 0;
  const started = performance.now();
  for (let next: string | undefined = url; next;) {
    const res = await fetch(next, { headers: { Authorization: `Bearer ${key}`, 'Accept-Encoding': 'identity' } }).catch((error: Error) => {
      throw new Error(`${next}: ${error.message} (${String((error as { cause?: unknown }).cause)})`);
    });
    if (res.status !== 200) throw new Error(`${next}: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as SyncPage;
    pages += 1;
    for (const item of page.data) ids.push(item.id);
    if (page.links.sync) return { ids, pages, ms: performance.now() - started, sync: page.links.sync };
    next = page.links.next;
  }
  throw new Error('The run ended without links.sync.');
};

const measure = async (strapi: Core.Strapi, changes: number, port: number) => {
  const keys = strapi.plugin('public-api').service('keys') as KeysService;
  const { plaintext } = await keys.create({
    name: 'bench sync',
    grants: { resources: { 'native:events': { actions: ['read'], read: '*', write: [] } } },
  });
  strapi.server.mount();
  const server = strapi.server.httpServer;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`;
  try {
    const full = await follow(`${base}/sync?limit=100`, plaintext);
    const ids = (await strapi.db.connection('events').whereNotNull('published_at').orderBy('id').pluck('document_id')) as string[];
    const step = Math.max(1, Math.floor(ids.length / changes));
    const changed = new Set<string>();
    for (let i = 0; i < changes && i * step < ids.length; i += 1) {
      const documentId = ids[i * step]!;
      await strapi
        .documents('api::event.event' as never)
        .update({ documentId, data: { summary: `Changed by the sync bench at ${Date.now()}` }, status: 'published' } as never);
      changed.add(documentId);
    }
    const delta = await follow(full.sync, plaintext);
    const named = new Set(delta.ids);
    const missing = [...changed].filter((id) => !named.has(id)).length;
    return { full, delta, changed: changed.size, missing, once: named.size === delta.ids.length };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
};

export const main = async (args: string[]): Promise<number> => {
  const { values } = parseArgs({
    args,
    options: {
      events: { type: 'string', default: '100000' },
      changes: { type: 'string', default: '1000' },
      port: { type: 'string', default: '4503' },
    },
  });
  const events = Number(values.events);
  const changes = Number(values.changes);
  const port = Number(values.port);
  if (![events, changes, port].every((value) => Number.isInteger(value) && value >= 1)) {
    process.stderr.write('usage: node scripts/run.js bench-sync [--events N] [--changes N] [--port N] (whole numbers from 1)\n');
    return 2;
  }
  benchEnvironment('sync.db');
  const result = await withStrapi(async (strapi) => {
    await seedDemo(strapi, { log: () => {} });
    await seedBulkEvents(strapi, events, { log: () => {} });
    return measure(strapi, changes, port);
  });
  const { full, delta } = result;
  say(`Sync feed, ${events} benchmark events (plus the demo's), ${result.changed} changes (milliseconds):`);
  say(JSON.stringify({ run: 'full (no token)', records: full.ids.length, pages: full.pages, ms: Math.round(full.ms) }));
  say(JSON.stringify({ run: 'delta (token)', records: delta.ids.length, pages: delta.pages, ms: Math.round(delta.ms) }));
  say(JSON.stringify({ fasterBy: Number((full.ms / delta.ms).toFixed(1)), changedMissing: result.missing, eachOnce: result.once }));
  return result.missing === 0 && result.once ? 0 : 1;
};

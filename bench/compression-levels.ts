/**
 * `npm run bench:compression`: what each compression level costs and saves on real /api/v2 documents,
 * the table of docs/benchmarks.md's "Compression levels" from which http/compression.ts's levels were
 * chosen (contract section 14).
 *
 *   npm run bench:compression -- [--events 300] [--min-ms 300]
 *
 * Seeds the demo content and `--events` benchmark events into its own SQLite database
 * (bench/.data/compression.db; a rerun writes nothing new), boots the application in this process, and
 * takes three documents as a key with every grant reads them, uncompressed: a 100-record page, a single
 * record, the OpenAPI document. Then, for brotli levels 1 to 11 and gzip levels 1 to 9, compresses each
 * document repeatedly (synchronously, at least 3 times and for at least `--min-ms` of CPU) and prints the
 * compressed size, the CPU time of one compression (process CPU time, so other load on the machine
 * counts less than wall time would), and the CPU milliseconds per KB saved. Asserts nothing.
 */
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import type { Core } from '@strapi/strapi';
import { encode } from '../src/plugins/public-api/server/src/http/compression';
import { seedBulkEvents, seedDemo } from '../src/seed';
import type keys from '../src/plugins/public-api/server/src/services/keys';
import { benchEnvironment, withStrapi } from './setup';

const say = (line = '') => process.stdout.write(`${line}\n`);

type Document = { name: string; bytes: Buffer };
type Level = { coding: 'br' | 'gzip'; level: number };

const LEVELS: Level[] = [
  ...Array.from({ length: 11 }, (_, i) => ({ coding: 'br' as const, level: i + 1 })),
  ...Array.from({ length: 9 }, (_, i) => ({ coding: 'gzip' as const, level: i + 1 })),
];

const compress = ({ coding, level }: Level, bytes: Buffer): Buffer =>
  coding === 'br'
    ? zlib.brotliCompressSync(bytes, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: level,
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        },
      })
    : zlib.gzipSync(bytes, { level });

/** CPU milliseconds of one compression (the mean over the runs) and the compressed size. */
const cost = (level: Level, bytes: Buffer, minMs: number) => {
  let runs = 0;
  let size = 0;
  const started = process.cpuUsage();
  let spentMs = 0;
  while (runs < 3 || spentMs < minMs) {
    size = compress(level, bytes).length;
    runs += 1;
    const used = process.cpuUsage(started);
    spentMs = (used.user + used.system) / 1000;
  }
  return { ms: spentMs / runs, size };
};

const documentsOf = async (strapi: Core.Strapi): Promise<Document[]> => {
  const keysService = strapi.plugin('public-api').service('keys') as ReturnType<typeof keys>;
  const { plaintext } = await keysService.create({ name: `bench compression ${Date.now()}`, grants: 'all' });
  strapi.server.mount();
  const server = strapi.server.httpServer;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`;
  const get = async (path: string, accept = 'application/vnd.api+json') => {
    const res = await fetch(`${api}${path}`, {
      headers: { Authorization: `Bearer ${plaintext}`, Accept: accept, 'Accept-Encoding': 'identity' },
    });
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
    return Buffer.from(await res.arrayBuffer());
  };
  const page = await get('/events?limit=100');
  const first = (JSON.parse(page.toString()) as { data: { meta: { slug: string } }[] }).data[0]!;
  return [
    { name: '100-record page (GET /events?limit=100)', bytes: page },
    { name: `single record (GET /events/${first.meta.slug})`, bytes: await get(`/events/${first.meta.slug}`) },
    { name: 'OpenAPI document, every grant (GET /openapi.json)', bytes: await get('/openapi.json', 'application/json') },
  ];
};

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

/**
 * Wall milliseconds of one compression at the chosen levels, run inline (the event loop waits) and on
 * zlib's thread pool (the loop is free meanwhile; the round trip costs), one after another.
 */
const inlineOrPool = async (bytes: Buffer, runs: number) => {
  const time = async (work: () => unknown) => {
    const started = performance.now();
    for (let run = 0; run < runs; run += 1) await work();
    return (performance.now() - started) / runs;
  };
  const inline = await time(() => zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }));
  const pool = await time(
    () =>
      new Promise((resolve, reject) =>
        zlib.brotliCompress(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } }, (error, out) =>
          error ? reject(error) : resolve(out),
        ),
      ),
  );
  // What the server does: inline below its threshold, on the pool above.
  const served = await time(() => encode(bytes, 'br'));
  return { inline, pool, served };
};

export const main = async (args: string[]): Promise<number> => {
  const { values } = parseArgs({
    args,
    options: { events: { type: 'string', default: '300' }, 'min-ms': { type: 'string', default: '300' } },
  });
  const events = Number(values.events);
  const minMs = Number(values['min-ms']);
  if (!Number.isInteger(events) || events < 100 || !Number.isFinite(minMs) || minMs < 0) {
    process.stderr.write('usage: npm run bench:compression -- [--events N>=100] [--min-ms MS>=0]\n');
    return 2;
  }
  benchEnvironment('compression.db');
  const documents = await withStrapi(async (strapi) => {
    await seedDemo(strapi, { log: () => {} });
    await seedBulkEvents(strapi, events, { log: () => {} });
    return documentsOf(strapi);
  });
  say('\nbr 4, wall ms of one compression: inline (blocks the event loop) | on the thread pool | as served');
  for (const document of documents) {
    const { inline, pool, served } = await inlineOrPool(document.bytes, 50);
    say(`- ${document.name}: ${inline.toFixed(3)} | ${pool.toFixed(3)} | ${served.toFixed(3)}`);
  }
  for (const document of documents) {
    say(`\n${document.name}: ${kb(document.bytes.length)} KB uncompressed\n`);
    say('| Coding | Level | KB | Ratio | CPU ms | CPU ms per KB saved |');
    say('| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const level of LEVELS) {
      const { ms, size } = cost(level, document.bytes, minMs);
      const savedKb = (document.bytes.length - size) / 1024;
      say(
        `| ${level.coding} | ${level.level} | ${kb(size)} | ${(size / document.bytes.length).toFixed(3)} | ${ms.toFixed(2)} | ${(ms / savedKb).toFixed(4)} |`,
      );
    }
  }
  return 0;
};

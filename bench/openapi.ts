/**
 * `npm run bench:openapi`: how long a key with every grant waits for its OpenAPI document (contract
 * section 9) on the demo content, the figures of docs/benchmarks.md's "OpenAPI document generation".
 *
 *   npm run bench:openapi -- [--runs 60] [--requests 20]
 *
 * Seeds the demo content into its own SQLite database (bench/.data/openapi.db; a rerun writes nothing),
 * boots the application in this process, and measures, after one warm-up, `--runs` times each: building
 * and serializing the document (pure), the openapi service with its cache cleared, the service cached;
 * then `--requests` cached GET /api/v2/openapi.json over HTTP (authentication included). Prints the
 * median, p95 and maximum of each; the aim is under 50 ms for an uncached document. Asserts nothing:
 * that the cache serves the very document it built is test/api/openapi-demo.test.ts's.
 */
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { Core } from '@strapi/strapi';
import { seedDemo } from '../src/seed';
import { buildOpenApiDocument } from '../src/plugins/public-api/server/src/openapi/document';
import { COMMANDS } from '../src/commands';
import type { ApiKey } from '../src/plugins/public-api/server/src/keys/types';
import type { Resource } from '../src/plugins/public-api/server/src/registry/types';
import type keys from '../src/plugins/public-api/server/src/services/keys';
import { benchEnvironment, withStrapi } from './setup';

const say = (line = '') => process.stdout.write(`${line}\n`);

type OpenApiService = {
  document: (key: ApiKey, baseUrl: string) => Promise<{ text: Buffer; etag: string }>;
  clearCache: () => void;
};

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** Median, p95 and maximum in milliseconds, two decimals. */
export const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: +percentile(sorted, 50).toFixed(2), p95: +percentile(sorted, 95).toFixed(2), max: +sorted.at(-1)!.toFixed(2) };
};

const timed = async (samples: number[], work: () => unknown) => {
  const started = performance.now();
  await work();
  samples.push(performance.now() - started);
};

const measure = async (strapi: Core.Strapi, runs: number, requests: number) => {
  const keysService = strapi.plugin('public-api').service('keys') as ReturnType<typeof keys>;
  const created = await keysService.create({ name: `bench openapi ${Date.now()}`, grants: 'all' });
  const apiKey = (await keysService.findOne(created.key.id))!;
  const service = strapi.plugin('public-api').service('openapi') as OpenApiService;
  const resources = await (strapi.plugin('public-api').service('resources') as { all: () => Promise<Resource[]> }).all();
  const baseUrl = 'http://127.0.0.1/api/v2';
  const locales = ['de', 'en'];
  const build = () => JSON.stringify(buildOpenApiDocument({ baseUrl, grants: apiKey.grants, resources, locales, commands: COMMANDS }));

  // Warm up the code paths once: the figures are steady-state generation, not module loading.
  service.clearCache();
  await service.document(apiKey, baseUrl);

  const samples = { build: [] as number[], uncached: [] as number[], cached: [] as number[], http: [] as number[] };
  for (let run = 0; run < runs; run += 1) {
    await timed(samples.build, build);
    service.clearCache();
    await timed(samples.uncached, () => service.document(apiKey, baseUrl));
    await timed(samples.cached, () => service.document(apiKey, baseUrl));
  }

  strapi.server.mount();
  const server = strapi.server.httpServer;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2/openapi.json`;
  for (let request = 0; request < requests; request += 1) {
    await timed(samples.http, async () => {
      const res = await fetch(url, { headers: { Authorization: `Bearer ${created.plaintext}` } });
      if (res.status !== 200) throw new Error(`GET /api/v2/openapi.json answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    });
  }

  return {
    resources: resources.length,
    documentBytes: build().length,
    buildAndSerializeMs: summary(samples.build),
    uncachedServiceMs: summary(samples.uncached),
    cachedServiceMs: summary(samples.cached),
    httpRoundTripMs: summary(samples.http),
  };
};

export const main = async (args: string[]): Promise<number> => {
  const { values } = parseArgs({ args, options: { runs: { type: 'string', default: '60' }, requests: { type: 'string', default: '20' } } });
  const runs = Number(values.runs);
  const requests = Number(values.requests);
  if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(requests) || requests < 1) {
    process.stderr.write('usage: npm run bench:openapi -- [--runs N] [--requests N] (whole numbers from 1)\n');
    return 2;
  }
  benchEnvironment('openapi.db');
  const figures = await withStrapi(async (strapi) => {
    await seedDemo(strapi, { log: () => {} });
    return measure(strapi, runs, requests);
  });
  say(`OpenAPI document of a key with every grant on the demo content (${runs} runs, ${requests} requests):`);
  say(JSON.stringify(figures, null, 2));
  return 0;
};

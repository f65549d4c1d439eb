/**
 * Assets, in one run (issue 7):
 *
 * 1. A cached variant (`?w=400&format=webp`, already computed) against the same bytes served as a static
 *    file by the same server (Strapi's public middleware, /uploads/...). Aim: at least 0.5 times.
 * 2. A first-time transform over HTTP (a new width on every request, so each one decodes, resizes,
 *    encodes and stores) against sharp doing the same resize in-process on the same file, for each image
 *    two ways: one at a time (sequential, interleaved; the rate is 1 / median time) and under load (many
 *    connections against as many in-process workers as the server runs transforms at once,
 *    bench/transform-load.ts). Aim: at least 0.8 times.
 *
 * `npm run bench` (bench/index.ts) runs both on its own database, in its one results table: it calls
 * `prepareAssets` while preparing the database, `benchAssets` against the running server, and
 * `removeAssets` at the end. `npm run bench:assets` runs them alone, for quick runs:
 *
 *   npm run bench:assets -- [--seconds 10] [--connections 10] [--transforms 20]
 *
 * Standalone, it prepares its own SQLite database (bench/.data/assets.db) with two images (a 2400 x 1600
 * photo-like JPEG and an 800 x 600 one), starts the application as a separate process and prints the
 * table (docs/benchmarks.md is left alone).
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Core } from '@strapi/strapi';
import sharp from 'sharp';
import { createRandom } from '../src/seed/random';
import { measure, type Measurement, type MeasureOptions } from './measure';
import { comparisonTable, failures, machine, rpsRatio, type Comparison } from './report';
import { transformsUnderLoad } from './transform-load';
import { APP_ROOT, startServer } from './server';
import { benchEnvironment, createApiKey, withStrapi } from './setup';

const say = (line = '') => process.stdout.write(`${line}\n`);

/** The images the benchmark transforms, published on a building so that their URLs are live. */
export const BENCH_IMAGES = [
  { name: 'bench-photo-2400x1600.jpg', width: 2400, height: 1600 },
  { name: 'bench-photo-800x600.jpg', width: 800, height: 600 },
] as const;
const BUILDING_SLUG = 'bench-assets';
const CACHED_VARIANT = 'w=400&format=webp';

/**
 * A photo-like JPEG: smooth shapes (upscaled coarse noise) with fine grain, so that decoding and
 * encoding cost what they cost for photographs. The same bytes on every run.
 */
export const photoLike = async (width: number, height: number): Promise<Buffer> => {
  const random = createRandom(width * 7919 + height);
  const coarse = Buffer.alloc(24 * 16 * 3);
  for (let i = 0; i < coarse.length; i += 1) coarse[i] = random.int(0, 255);
  const smooth = await sharp(coarse, { raw: { width: 24, height: 16, channels: 3 } })
    .resize(width, height, { kernel: 'cubic' })
    .raw()
    .toBuffer();
  for (let i = 0; i < smooth.length; i += 1) smooth[i] = Math.max(0, Math.min(255, smooth[i]! + random.int(-12, 12)));
  return sharp(smooth, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 85 })
    .toBuffer();
};

type UploadService = {
  remove: (file: unknown) => Promise<unknown>;
  upload: (input: {
    data: { fileInfo: { name: string; alternativeText?: string } };
    files: { filepath: string; originalFilename: string; mimetype: string; size: number };
  }) => Promise<Array<{ id: number; url: string; formats?: Record<string, { url: string }> | null }>>;
};

/**
 * Uploads the bench images and publishes them on one building; returns the files it wrote to disk. An
 * earlier run's images and building are replaced: new uploads get new content hashes, so their variants
 * are computed for the first time whatever the variant cache still holds.
 */
export const prepareAssets = async (strapi: Core.Strapi): Promise<string[]> => {
  const upload = strapi.plugin('upload').service('upload') as UploadService;
  const earlier = await strapi.db
    .query('plugin::upload.file')
    .findMany({ where: { name: { $in: BENCH_IMAGES.map((image) => image.name) } } });
  for (const file of earlier) await upload.remove(file);
  const buildings = strapi.documents('api::building.building');
  for (const building of await buildings.findMany({ filters: { slug: BUILDING_SLUG } as never, status: 'draft' })) {
    await buildings.delete({ documentId: building.documentId });
  }
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-assets-'));
  const written: string[] = [];
  const ids: number[] = [];
  try {
    for (const image of BENCH_IMAGES) {
      const bytes = await photoLike(image.width, image.height);
      const filepath = path.join(workDir, image.name);
      fs.writeFileSync(filepath, bytes);
      const [stored] = await upload.upload({
        data: { fileInfo: { name: image.name, alternativeText: 'Benchmark image' } },
        files: { filepath, originalFilename: image.name, mimetype: 'image/jpeg', size: bytes.length },
      });
      ids.push(stored!.id);
      for (const url of [stored!.url, ...Object.values(stored!.formats ?? {}).map((format) => format.url)]) {
        written.push(path.join(strapi.dirs.static.public, url));
      }
    }
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  await strapi.documents('api::building.building').create({
    data: { name: 'Benchmark assets', slug: BUILDING_SLUG, images: ids } as never,
    status: 'published',
  });
  return written;
};

/** Removes the files `prepareAssets` wrote and the server's variant cache directory. */
export const removeAssets = (written: readonly string[], cacheDir: string) => {
  for (const file of written) fs.rmSync(file, { force: true });
  fs.rmSync(cacheDir, { recursive: true, force: true });
};

export const getJson = async (url: string, headers: Record<string, string>) => {
  const res = await fetch(url, { headers });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { data: { attributes: { images: { url: string; fileName: string }[] } } };
};

const getBytes = async (url: string): Promise<Buffer> => {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return Buffer.from(await res.arrayBuffer());
};

/**
 * One GET on a kept-alive connection with Node's own client (lighter than fetch): the time measured is
 * the server's, as far as a client can tell.
 */
const getOnce = (url: string, agent: http.Agent): Promise<void> =>
  new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode}`));
        res.on('data', () => undefined);
        res.on('end', () => resolve());
        res.on('error', reject);
      })
      .on('error', reject);
  });

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** Sequential timings as a Measurement: the rate one client gets, 1 / median. */
const timingsAsMeasurement = (label: string, milliseconds: number[]): Measurement => ({
  label,
  requestsPerSecond: 1000 / median(milliseconds),
  p50: median(milliseconds),
  p99: percentile(milliseconds, 99),
  non2xx: 0,
  failedStatuses: {},
  errors: 0,
  cpuMicrosPerRequest: null,
});

const elapsed = async (work: () => Promise<unknown>): Promise<number> => {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
};

export type AssetBenchOptions = MeasureOptions & { transforms: number };

/** The command-line options of a measurement run, shared by `npm run bench` and `npm run bench:assets`. */
export const ASSET_BENCH_ARGS = {
  seconds: { type: 'string', default: '10' },
  connections: { type: 'string', default: '10' },
  transforms: { type: 'string', default: '20' },
} as const;
/**
 * The transform rows measure throughput for one client (one address on every connection): the transform
 * queue's per-client cap (4) would shed most of its connections, so the bench raises it to twice their
 * number. Not just to their number: a transform's turn is given back after its answer has left, so a
 * connection's next request can arrive while its previous one still counts (with the cap at exactly 10,
 * 10 connections got 550 503s in 6 s).
 */
export const oneClientTransformQueue = (connections: number): Record<string, string> => ({
  PUBLIC_API_TRANSFORMS_PER_CLIENT: String(Math.max(4, 2 * connections)),
  PUBLIC_API_TRANSFORMS_WAITING: String(Math.max(32, 2 * connections)),
});

export const ASSET_BENCH_USAGE = '[--seconds S] [--connections C] [--transforms N>=5]';

/** Those options as numbers (2 seconds of warm-up before each measurement), or undefined if one is out of range. */
export const assetBenchOptions = (values: { seconds: string; connections: string; transforms: string }): AssetBenchOptions | undefined => {
  const options = {
    seconds: Number(values.seconds),
    connections: Number(values.connections),
    warmupSeconds: 2,
    transforms: Number(values.transforms),
  };
  const valid = options.seconds >= 1 && options.connections >= 1 && Number.isInteger(options.transforms) && options.transforms >= 5;
  return valid ? options : undefined;
};

/**
 * Both comparisons against a running server whose database `prepareAssets` prepared. `apiKey` may read
 * buildings (with images). Leaves no file behind.
 */
export const benchAssets = async (
  serverUrl: string,
  apiKey: string,
  options: AssetBenchOptions,
  log: (line: string) => void,
): Promise<{ comparisons: Comparison[]; measurements: Measurement[] }> => {
  const record = await getJson(`${serverUrl}/api/v2/buildings/${BUILDING_SLUG}`, { Authorization: `Bearer ${apiKey}` });
  const urlOf = (name: string) => record.data.attributes.images.find((image) => image.fileName === name)!.url;
  const comparisons: Comparison[] = [];
  const measurements: Measurement[] = [];

  // 1. Cached variant against the same bytes as a static file.
  const photoUrl = urlOf(BENCH_IMAGES[0].name);
  const variantUrl = `${photoUrl}?${CACHED_VARIANT}`;
  const variantBytes = await getBytes(variantUrl);
  const staticName = `bench-static-${process.pid}.webp`;
  const staticPath = path.join(APP_ROOT, 'public', 'uploads', staticName);
  fs.writeFileSync(staticPath, variantBytes);
  try {
    const staticBytes = await getBytes(`${serverUrl}/uploads/${staticName}`);
    if (!staticBytes.equals(variantBytes)) throw new Error('The static file does not serve the variant bytes.');
    log(`  measuring the cached variant (${variantBytes.length} bytes) ...`);
    const variant = await measure(
      { label: `GET /api/v2/assets/…/${BENCH_IMAGES[0].name}?${CACHED_VARIANT} (cached)`, url: variantUrl },
      options,
    );
    log('  measuring the same bytes as a static file ...');
    const staticFile = await measure(
      { label: `GET /uploads/${staticName} (static file, same bytes)`, url: `${serverUrl}/uploads/${staticName}` },
      options,
    );
    measurements.push(variant, staticFile);
    comparisons.push({
      scenario: 'Cached variant vs static file',
      ours: variant,
      baseline: staticFile,
      aim: '>= 0.5x',
      aimMet: (r) => r >= 0.5,
      ratio: rpsRatio(variant, staticFile),
    });
  } finally {
    // Let the last answers of the measurement finish before the file goes.
    await new Promise((resolve) => setTimeout(resolve, 500));
    fs.rmSync(staticPath, { force: true });
  }

  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  // 2. First-time transforms against sharp in-process, on the very file the server reads. The server runs
  // sharp as Strapi's upload plugin configures it (no libvips operation cache, concurrency 1 unless
  // `plugin::upload.sharp` says otherwise); the baseline gets the same settings, else repeated loads of one
  // file would be served from a cache no first-time transform of a new image has.
  const settings = { cache: sharp.cache(), concurrency: sharp.concurrency() };
  sharp.cache(false);
  sharp.concurrency(1);
  for (const image of BENCH_IMAGES) {
    const url = urlOf(image.name);
    const source = await getBytes(url);
    const sourceFile = path.join(os.tmpdir(), `bench-source-${process.pid}-${image.name}`);
    fs.writeFileSync(sourceFile, source);
    try {
      const target = Math.round(image.width / 4);
      const widths = Array.from({ length: options.transforms + 3 }, (_, i) => target + i);
      const overHttp: number[] = [];
      const inProcess: number[] = [];
      log(
        `  ${widths.length} first-time transforms of ${image.width} x ${image.height} to ~${target} wide WebP, over HTTP and in-process ...`,
      );
      for (const [i, width] of widths.entries()) {
        // Interleaved, so that drift in the machine's load touches both sides alike; the first three warm up.
        const viaHttp = await elapsed(() => getOnce(`${url}?w=${width}&format=webp`, agent));
        const direct = await elapsed(() =>
          sharp(sourceFile, { autoOrient: true, limitInputPixels: 50_000_000 })
            .resize({ width, fit: 'inside', withoutEnlargement: true })
            .webp({ quality: 80 })
            .toBuffer(),
        );
        if (i >= 3) {
          overHttp.push(viaHttp);
          inProcess.push(direct);
        }
      }
      const ours = timingsAsMeasurement(`GET …/${image.name}?w=${target}+i&format=webp (first time)`, overHttp);
      const baseline = timingsAsMeasurement(`sharp in-process, same resize`, inProcess);
      measurements.push(ours, baseline);
      comparisons.push({
        scenario: `First-time transform one at a time, ${image.width} x ${image.height} JPEG (rate = 1 / median ms)`,
        ours,
        baseline,
        aim: '>= 0.8x',
        aimMet: (r) => r >= 0.8,
        ratio: rpsRatio(ours, baseline),
      });

      log(`  first-time transforms of ${image.width} x ${image.height} under load, over HTTP and in-process ...`);
      const loaded = await transformsUnderLoad(url, sourceFile, { width: target, height: Math.round(image.height / 4) }, options);
      measurements.push(loaded.ours, loaded.baseline);
      comparisons.push({
        scenario: `First-time transforms under load, ${image.width} x ${image.height} JPEG`,
        ...loaded,
        aim: '>= 0.8x',
        aimMet: (r) => r >= 0.8,
        ratio: rpsRatio(loaded.ours, loaded.baseline),
      });
    } finally {
      fs.rmSync(sourceFile, { force: true });
    }
  }
  agent.destroy();
  sharp.cache(settings.cache.items.max > 0);
  sharp.concurrency(settings.concurrency);
  return { comparisons, measurements };
};

export const main = async (args: string[]): Promise<number> => {
  const { values } = parseArgs({ args, options: ASSET_BENCH_ARGS });
  const options = assetBenchOptions(values);
  if (!options) {
    process.stderr.write(`usage: npm run bench:assets -- ${ASSET_BENCH_USAGE}\n`);
    return 2;
  }

  const env = benchEnvironment('assets.db');
  fs.rmSync(env.DATABASE_FILENAME, { force: true });
  say(`Preparing ${env.DATABASE_FILENAME} ...`);
  let written: string[] = [];
  let result: Awaited<ReturnType<typeof benchAssets>>;
  try {
    const apiKey = await withStrapi(async (strapi) => {
      written = await prepareAssets(strapi);
      return createApiKey(strapi, 'bench assets', 'all');
    });
    const server = await startServer({ ...env, ...oneClientTransformQueue(options.connections) });
    try {
      result = await benchAssets(server.url, apiKey, options, say);
    } finally {
      await server.stop();
    }
  } finally {
    removeAssets(written, env.PUBLIC_API_ASSET_CACHE_DIR);
    fs.rmSync(env.DATABASE_FILENAME, { force: true });
  }
  say('');
  say(`Machine: ${machine()}`);
  say(`Options: ${options.seconds} s per measurement, ${options.connections} connections, ${options.transforms} transforms per image`);
  say('');
  say(comparisonTable(result.comparisons));
  for (const problem of failures(result.measurements)) say(`WARNING ${problem}`);
  return 0;
};

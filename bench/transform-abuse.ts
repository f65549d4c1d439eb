/**
 * The transform soak of issue 15 ("How we know" (b)) and issue 34: several clients, each from its own
 * address, ask without pause for new heavy variants (AVIF of a 2400 x 1600 photo, a new width every time)
 * while another client asks for a variant already cached, for first-time small thumbnails, and for
 * first-time 1000-pixel-wide WebPs of the photo (not cheap: they need a general turn). Aims: the other
 * client's cached variant p95 under 50 ms, every first thumbnail under 2 s, and its fresh WebPs' p95
 * under the flood within 10 times their p95 idle, all served.
 *
 *   npm run bench:transform-abuse -- [--seconds 30] [--clients 6]
 *
 * It prepares its own SQLite database (bench/.data/transform-abuse.db) with the images of bench/assets.ts,
 * starts the application as a separate process behind a trusted proxy (IS_PROXIED, so X-Forwarded-For
 * names each client's address) with the default transform queue, and prints what it measured.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { BENCH_IMAGES, getJson, prepareAssets, removeAssets } from './assets';
import { startServer } from './server';
import { benchEnvironment, createApiKey, withStrapi } from './setup';

const say = (line = '') => process.stdout.write(`${line}\n`);

const CACHED_P95_AIM_MS = 50;
const THUMBNAIL_AIM_MS = 2_000;
const FRESH_RATIO_AIM = 10;
const FRESH_SAMPLES = 10;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};

/** One GET from `client`'s address; its status and milliseconds. */
const timedGet = async (url: string, client: string): Promise<{ status: number; ms: number }> => {
  const started = performance.now();
  const res = await fetch(url, { headers: { 'X-Forwarded-For': client } });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
};

export const main = async (args: string[]): Promise<number> => {
  const { values } = parseArgs({
    args,
    options: { seconds: { type: 'string', default: '30' }, clients: { type: 'string', default: '6' } },
  });
  const seconds = Number(values.seconds);
  const clients = Number(values.clients);
  if (!Number.isInteger(seconds) || seconds < 5 || !Number.isInteger(clients) || clients < 1) {
    process.stderr.write('usage: npm run bench:transform-abuse -- [--seconds S>=5] [--clients N>=1]\n');
    return 2;
  }
  const env = benchEnvironment('transform-abuse.db');
  fs.rmSync(env.DATABASE_FILENAME, { force: true });
  say(`Preparing ${env.DATABASE_FILENAME} ...`);
  let written: string[] = [];
  try {
    const apiKey = await withStrapi(async (strapi) => {
      written = await prepareAssets(strapi);
      return createApiKey(strapi, 'bench transform abuse', 'all');
    });
    const server = await startServer({ ...env, IS_PROXIED: 'true' });
    try {
      const record = await getJson(`${server.url}/api/v2/buildings/bench-assets`, { Authorization: `Bearer ${apiKey}` });
      const urlOf = (name: string) => record.data.attributes.images.find((image) => image.fileName === name)!.url;
      const photo = urlOf(BENCH_IMAGES[0].name);
      const small = urlOf(BENCH_IMAGES[1].name);
      const victim = '198.51.100.200';
      const cached = `${photo}?w=400&format=webp`;
      if ((await timedGet(cached, victim)).status !== 200) throw new Error(`${cached} is not served`);
      const idle: number[] = [];
      for (let i = 0; i < 50; i += 1) idle.push((await timedGet(cached, victim)).ms);
      // Fresh 1000-pixel-wide WebPs (cost 2.2, assets/transform-cost.ts), a new height each time.
      let freshHeight = 600;
      const fresh = () => {
        freshHeight += 1;
        return timedGet(`${photo}?w=1000&h=${freshHeight}&fit=cover&format=webp`, victim);
      };
      const freshIdle: number[] = [];
      for (let i = 0; i < FRESH_SAMPLES; i += 1) freshIdle.push((await fresh()).ms);

      say(`${clients} clients flood with new AVIF variants of ${BENCH_IMAGES[0].name} for ${seconds} s ...`);
      const until = Date.now() + seconds * 1000;
      const statuses = new Map<number, number>();
      let width = 1000;
      const flood = Array.from({ length: clients }, async (_, n) => {
        while (Date.now() < until) {
          width += 1;
          const { status } = await timedGet(`${photo}?w=${width}&format=avif`, `203.0.113.${n + 1}`);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const busy: number[] = [];
      const thumbnails: { status: number; ms: number }[] = [];
      let thumbnailWidth = 64;
      const freshBusy: { status: number; ms: number }[] = [];
      while (Date.now() < until - 1_000) {
        for (let i = 0; i < 20; i += 1) busy.push((await timedGet(cached, victim)).ms);
        thumbnailWidth += 1;
        thumbnails.push(await timedGet(`${small}?w=${thumbnailWidth}&format=webp`, victim));
        freshBusy.push(await fresh());
      }
      await Promise.all(flood);

      const cachedP95 = percentile(busy, 95);
      const slowestThumbnail = Math.max(...thumbnails.map((thumbnail) => thumbnail.ms));
      const thumbnailsOk = thumbnails.every((thumbnail) => thumbnail.status === 200);
      say();
      say(`Flood answers by status: ${[...statuses].map(([status, count]) => `${status}: ${count}`).join(', ')}`);
      say(`Cached variant, idle: p95 ${percentile(idle, 95).toFixed(1)} ms over ${idle.length} requests`);
      say(`Cached variant, under the flood: p95 ${cachedP95.toFixed(1)} ms over ${busy.length} requests (aim < ${CACHED_P95_AIM_MS} ms)`);
      say(
        `First small thumbnails under the flood: ${thumbnails.length}, median ${percentile(
          thumbnails.map((thumbnail) => thumbnail.ms),
          50,
        ).toFixed(0)} ms, slowest ${slowestThumbnail.toFixed(0)} ms, all 200: ${thumbnailsOk} (aim < ${THUMBNAIL_AIM_MS} ms)`,
      );
      const freshIdleP95 = percentile(freshIdle, 95);
      const freshBusyP95 = percentile(
        freshBusy.map((answer) => answer.ms),
        95,
      );
      const freshRatio = freshBusyP95 / freshIdleP95;
      const freshServed = freshBusy.filter((answer) => answer.status === 200).length;
      say(
        `Fresh 1000 px WebPs: idle p95 ${freshIdleP95.toFixed(0)} ms over ${freshIdle.length}; under the flood p95 ${freshBusyP95.toFixed(
          0,
        )} ms, ${freshServed}/${freshBusy.length} answered 200`,
      );
      say(`Fresh WebP p95 under the flood / idle: ${freshRatio.toFixed(1)}x (aim < ${FRESH_RATIO_AIM}x, all served)`);
      const met =
        cachedP95 < CACHED_P95_AIM_MS &&
        slowestThumbnail < THUMBNAIL_AIM_MS &&
        thumbnailsOk &&
        freshRatio < FRESH_RATIO_AIM &&
        freshServed === freshBusy.length;
      say(met ? 'Aims met.' : 'Aims NOT met.');
      return met ? 0 : 1;
    } finally {
      await server.stop();
    }
  } finally {
    removeAssets(written, env.PUBLIC_API_ASSET_CACHE_DIR);
    fs.rmSync(env.DATABASE_FILENAME, { force: true });
  }
};

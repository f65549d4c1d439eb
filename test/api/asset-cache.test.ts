/**
 * The variant cache as configured (PUBLIC_API_ASSET_CACHE_DIR, PUBLIC_API_ASSET_CACHE_MAX_BYTES): its
 * size, counted in what its files take on disk (blocks, not byte lengths), stays within the bound, the
 * least recently used variants are evicted first, and an evicted variant is computed again when asked for.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { bootApp, type TestApp } from '../helpers/app';
import { diskUsage } from '../../src/plugins/public-api/server/src/assets/variant-cache';
import { asBytes, pathOf, storeFile } from '../helpers/assets';
import { publish } from '../helpers/fixtures';
import { createKey } from '../helpers/keys';

// A 20 x 20 PNG of noise takes 1200 bytes of pixels plus a little, and one block on disk (4 KiB on ext4):
// the bound is two and a half such blocks, so two variants fit and three do not, though three variants'
// byte lengths would fit many times over.
const VARIANT_LENGTH = 1500;
let MAX_BYTES: number;
let BLOCK: number;
const VARIANT = 'w=20&h=20&fit=fill&format=png';

let app: TestApp;
let cacheDir: string;
let urls: string[];

type Stats = { computed: number; hits: number; evicted: number; entries: number; bytes: number };
type Variants = { stats: () => Stats; settled: () => Promise<void> };
const variants = () => (app.strapi.plugin('public-api').service('assets') as { variants: () => Variants }).variants();
/** The cache's counters once every variant computed so far is written. */
const stats = async (): Promise<Stats> => {
  await variants().settled();
  return variants().stats();
};
const get = (url: string) => app.http().get(url).buffer(true).parse(asBytes);

const cachedFiles = () =>
  fs
    .readdirSync(cacheDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((shard) => fs.readdirSync(path.join(cacheDir, shard.name)).map((name) => path.join(cacheDir, shard.name, name)));

const diskBytes = () => cachedFiles().reduce((sum, file) => sum + diskUsage(fs.statSync(file)), 0);

beforeAll(async () => {
  cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-asset-cache-'));
  const probe = path.join(cacheDir, 'probe');
  fs.writeFileSync(probe, Buffer.alloc(VARIANT_LENGTH));
  BLOCK = diskUsage(fs.statSync(probe));
  fs.rmSync(probe);
  MAX_BYTES = Math.floor(2.5 * BLOCK);
  app = await bootApp({ PUBLIC_API_ASSET_CACHE_DIR: cacheDir, PUBLIC_API_ASSET_CACHE_MAX_BYTES: String(MAX_BYTES) });
  const key = await createKey(app.strapi, { resources: { 'native:buildings': { actions: ['read'], read: ['images'] } } });
  const ids: number[] = [];
  for (const n of [0, 1, 2, 3]) {
    const noise = await sharp(randomBytes(40 * 40 * 3), { raw: { width: 40, height: 40, channels: 3 } })
      .png()
      .toBuffer();
    ids.push((await storeFile(app.strapi, { name: `noise-${n}.png`, bytes: noise, mime: 'image/png' })).id);
  }
  await publish(app.strapi, 'api::building.building', { name: 'Noise', slug: 'noise', images: ids });
  const res = await app.http().get('/api/v2/buildings/noise').set('Authorization', key.auth);
  urls = (res.body.data.attributes.images as { url: string }[]).map((asset) => `${pathOf(asset.url)}?${VARIANT}`);
});
afterAll(async () => {
  await app?.close();
  fs.rmSync(cacheDir, { recursive: true, force: true });
});

test('the configured directory and bound are used', () => {
  const config = app.strapi.config.get('plugin::public-api') as { assetCacheDir: string; assetCacheMaxBytes: number };
  expect(config).toMatchObject({ assetCacheDir: cacheDir, assetCacheMaxBytes: MAX_BYTES });
});

test('the cache stays within its bound and evicts the least recently used variant first', async () => {
  const [a, b, c, d] = urls as [string, string, string, string];
  const sizes: number[] = [];
  for (const url of [a, b]) {
    const res = await get(url);
    expect(res.status).toBe(200);
    sizes.push(res.body.length);
  }
  // The premise of this test: each variant takes one block on disk, over a third and under half of the
  // bound, while its byte length is far less.
  for (const size of sizes) expect(size).toBeLessThanOrEqual(VARIANT_LENGTH);
  expect(await stats()).toMatchObject({ computed: 2, evicted: 0, entries: 2 });
  for (const file of cachedFiles()) {
    const onDisk = diskUsage(fs.statSync(file));
    expect(onDisk).toBe(BLOCK);
    expect(onDisk).toBeGreaterThan(MAX_BYTES / 3);
    expect(onDisk).toBeLessThan(MAX_BYTES / 2);
  }
  // The cache counts the blocks, not the lengths.
  expect((await stats()).bytes).toBe(2 * BLOCK);

  // a is used again: b becomes the least recently used, and goes when c comes.
  await get(a);
  await get(c);
  expect(await stats()).toMatchObject({ computed: 3, evicted: 1, entries: 2 });
  expect(diskBytes()).toBeLessThanOrEqual(MAX_BYTES);
  expect((await stats()).bytes).toBe(diskBytes());

  const hits = (await stats()).hits;
  await get(a);
  expect(await stats()).toMatchObject({ computed: 3, hits: hits + 1 });
  // b was evicted: asking again computes it again (and evicts c, now the least recently used).
  const again = await get(b);
  expect(again.status).toBe(200);
  expect(again.body.length).toBe(sizes[1]);
  expect(await stats()).toMatchObject({ computed: 4, evicted: 2, entries: 2 });

  await get(d);
  expect(await stats()).toMatchObject({ computed: 5, evicted: 3, entries: 2 });
  expect(cachedFiles()).toHaveLength(2);
  expect(diskBytes()).toBeLessThanOrEqual(MAX_BYTES);
});

test('a variant evicted while another instance or an operator deleted it is computed again, never a 500', async () => {
  for (const file of cachedFiles()) fs.rmSync(file);
  const before = await stats();
  for (const url of urls) expect((await get(url)).status).toBe(200);
  expect((await stats()).computed - before.computed).toBeGreaterThanOrEqual(2);
  expect(diskBytes()).toBeLessThanOrEqual(MAX_BYTES);
});

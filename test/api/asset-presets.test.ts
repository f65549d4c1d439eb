/**
 * Preset mode (PUBLIC_API_TRANSFORM_PRESETS, contract section 13 "Assets"): only the configured
 * transform sets are computed; any other transform is 400 naming them; the original is served as ever.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { bootApp, type TestApp } from '../helpers/app';
import { asBytes, jsonOf, pathOf, solidImage, storeFile } from '../helpers/assets';
import { publish } from '../helpers/fixtures';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { createKey } from '../helpers/keys';

const PRESETS = { thumb: 'w=40&h=30&fit=cover&format=webp', wide: 'w=120' };

let app: TestApp;
let cacheDir: string;
let url: string;

beforeAll(async () => {
  cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-asset-presets-'));
  app = await bootApp({ PUBLIC_API_ASSET_CACHE_DIR: cacheDir, PUBLIC_API_TRANSFORM_PRESETS: JSON.stringify(PRESETS) });
  const key = await createKey(app.strapi, { resources: { 'native:buildings': { actions: ['read'], read: ['name', 'images'] } } });
  const file = await storeFile(app.strapi, { name: 'photo.png', bytes: await solidImage(200, 100), mime: 'image/png' });
  await publish(app.strapi, 'api::building.building', { name: 'Presets', slug: 'presets', images: [file.id] });
  const res = await app.http().get('/api/v2/buildings/presets').set('Authorization', key.auth);
  url = pathOf((res.body.data.attributes.images as { url: string }[])[0]!.url);
});
afterAll(async () => {
  await app?.close();
  fs.rmSync(cacheDir, { recursive: true, force: true });
});

const get = (target: string) => app.http().get(target).buffer(true).parse(asBytes);

test('a preset is computed, asked for with its parameters in any order', async () => {
  const thumb = await get(`${url}?format=webp&fit=cover&h=30&w=40`);
  expect(thumb.status).toBe(200);
  expect(thumb.headers['content-type']).toBe('image/webp');
  expect(await sharp(thumb.body as Buffer).metadata()).toMatchObject({ width: 40, height: 30, format: 'webp' });
  const wide = await get(`${url}?w=120`);
  expect(wide.status).toBe(200);
  expect((await sharp(wide.body as Buffer).metadata()).width).toBe(120);
});

test('any other transform is 400 transform_not_a_preset naming the presets; nothing is computed', async () => {
  const variants = (
    app.strapi.plugin('public-api').service('assets') as { variants: () => { stats: () => { computed: number } } }
  ).variants();
  const before = variants.stats().computed;
  for (const query of ['w=41', 'w=40&h=30&fit=cover', 'w=120&format=avif']) {
    const res = await get(`${url}?${query}`);
    expect(res.status).toBe(400);
    const body = jsonOf(res as unknown as { body: Buffer });
    expectValidJsonApi(body);
    expect(body.errors).toEqual([
      expect.objectContaining({
        status: '400',
        meta: { reason: 'transform_not_a_preset' },
        detail: expect.stringContaining('thumb (w=40&h=30&fit=cover&format=webp), wide (w=120)'),
      }),
    ]);
  }
  expect(variants.stats().computed).toBe(before);
});

test('the original is served without parameters, and bad parameters are still judged first', async () => {
  expect((await get(url)).status).toBe(200);
  const bad = await get(`${url}?w=0`);
  expect(bad.status).toBe(400);
  expect(jsonOf(bad as unknown as { body: Buffer }).errors[0].meta).toEqual({ reason: 'parameter_invalid' });
});

/**
 * Every asset URL in the demo content works: read every resource the demo exposes through /api/v2 with
 * a key that may read everything, collect each asset object's `url` (and each richtext image's `src`),
 * and follow it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { Response } from 'supertest';
import { bootApp, type TestApp } from '../helpers/app';
import { asBytes, pathOf } from '../helpers/assets';
import { createKey } from '../helpers/keys';

let app: TestApp;
let cacheDir: string;
const serverErrors: string[] = [];

type AssetObject = {
  id: string;
  url: string;
  fileName: string;
  mimeType: string;
  size: number;
  width: number | null;
  height: number | null;
};

beforeAll(async () => {
  cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-asset-cache-'));
  // The database starts with the demo content seeded (the demo template, test/helpers/templates.js).
  app = await bootApp({ PUBLIC_API_ASSET_CACHE_DIR: cacheDir }, { template: 'demo' });
  jest.spyOn(app.strapi.log, 'error').mockImplementation(((message: unknown) => void serverErrors.push(String(message))) as never);
}, 300_000);
afterAll(async () => {
  await app?.close();
  fs.rmSync(cacheDir, { recursive: true, force: true });
});

const isAsset = (value: unknown): value is AssetObject =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as AssetObject).url === 'string' &&
  'mimeType' in value &&
  'fileName' in value;

/** Asset objects and richtext image sources anywhere in a record's attributes. */
const collect = (value: unknown, found: { assets: AssetObject[]; images: string[] }) => {
  if (Array.isArray(value)) {
    for (const item of value) collect(item, found);
  } else if (isAsset(value)) {
    found.assets.push(value);
  } else if (typeof value === 'object' && value !== null) {
    const node = value as { type?: string; attrs?: { src?: unknown } };
    if (node.type === 'image' && typeof node.attrs?.src === 'string') found.images.push(node.attrs.src);
    for (const child of Object.values(value)) collect(child, found);
  }
};

test('following every asset url of the demo content returns the file', async () => {
  const registry = app.strapi.plugin('public-api').service('resources') as { all: () => Promise<{ id: string }[]> };
  const resources = await registry.all();
  const grants = Object.fromEntries(resources.map((resource) => [resource.id, { actions: ['read'], read: '*' }]));
  const key = await createKey(app.strapi, { resources: grants });

  const index = await app.http().get('/api/v2/').set('Authorization', key.auth);
  expect(index.status).toBe(200);
  const found = { assets: [] as AssetObject[], images: [] as string[] };
  let records = 0;
  for (const entry of index.body.data as { links: { self: string }; attributes: { mode: string } }[]) {
    let next: string | null = `${pathOf(entry.links.self)}${entry.attributes.mode === 'collection' ? '?limit=100' : ''}`;
    while (next) {
      const res: Response = await app.http().get(next).set('Authorization', key.auth);
      expect(res.status).toBe(200);
      const data = Array.isArray(res.body.data) ? res.body.data : [res.body.data];
      records += data.length;
      for (const record of data) collect(record.attributes, found);
      next = res.body.links?.next ? pathOf(res.body.links.next) : null;
    }
  }
  expect(records).toBeGreaterThan(20);
  // The demo's media library: twelve photos, three logos and a PDF manual, used across records.
  const distinct = new Map(found.assets.map((asset) => [pathOf(asset.url), asset]));
  expect(distinct.size).toBeGreaterThanOrEqual(10);
  expect([...distinct.values()].some((asset) => asset.mimeType === 'application/pdf')).toBe(true);

  for (const [url, asset] of distinct) {
    const res = await app.http().get(url).buffer(true).parse(asBytes);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(asset.mimeType);
    // Exactly the bytes served (Strapi keeps kilobytes with two decimals; the API speaks bytes).
    expect(asset.size).toBe(res.body.length);
    expect(decodeURIComponent(url.split('/').pop()!)).toBe(asset.fileName);
    if (asset.mimeType.startsWith('image/')) {
      const meta = await sharp(res.body).metadata();
      expect([meta.width, meta.height]).toEqual([asset.width, asset.height]);
      const thumbnail = await app.http().get(`${url}?w=64&format=webp`).buffer(true).parse(asBytes);
      expect(thumbnail.status).toBe(200);
      expect((await sharp(thumbnail.body).metadata()).width).toBe(64);
    }
  }
  for (const src of new Set(found.images)) {
    expect((await app.http().get(pathOf(src))).status).toBe(200);
  }
  expect(serverErrors).toEqual([]);
});

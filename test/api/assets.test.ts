/**
 * Asset URLs serve the files records reference (contract section 11): originals, conditional and range
 * requests, HEAD, what gives 404, and how active content types are defused. Transforms are in
 * asset-transforms.test.ts, the variant cache in asset-cache.test.ts.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { assetToken, deriveAssetKey } from '../../src/plugins/public-api/server/src/assets/token';
import { bootApp, type TestApp } from '../helpers/app';
import { asBytes, diskPathOf, jsonOf, pathOf, solidImage, storeFile } from '../helpers/assets';
import { usingPostgres } from '../helpers/database';
import { TEST_ENV } from '../helpers/env';
import { minimalPdf } from '../helpers/files';
import { publish, uploadImage } from '../helpers/fixtures';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { createKey } from '../helpers/keys';

let app: TestApp;
let key: { auth: string };
let cacheDir: string;
/** What the server logged as errors: every answer here is deliberate, none is a 500. */
const serverErrors: string[] = [];

type AssetObject = { id: string; url: string; fileName: string; mimeType: string; size: number };

beforeAll(async () => {
  cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-asset-cache-'));
  app = await bootApp({ PUBLIC_API_ASSET_CACHE_DIR: cacheDir });
  jest.spyOn(app.strapi.log, 'error').mockImplementation(((message: unknown) => void serverErrors.push(String(message))) as never);
  key = await createKey(app.strapi, {
    resources: {
      'native:buildings': { actions: ['read'], read: ['name', 'images', 'description'] },
      'native:products': { actions: ['read'], read: ['name', 'images', 'manual'] },
    },
  });
});
afterEach(() => {
  expect(serverErrors).toEqual([]);
});
afterAll(async () => {
  await app?.close();
  fs.rmSync(cacheDir, { recursive: true, force: true });
});

const get = (url: string) => app.http().get(url).buffer(true).parse(asBytes);

/** Publishes a building with these images and returns their asset objects as the API shows them. */
const buildingWith = async (slug: string, fileIds: number[], extra: Record<string, unknown> = {}): Promise<AssetObject[]> => {
  await publish(app.strapi, 'api::building.building', { name: slug, slug, images: fileIds, ...extra });
  const res = await app.http().get(`/api/v2/buildings/${slug}`).set('Authorization', key.auth);
  expect(res.status).toBe(200);
  return res.body.data.attributes.images as AssetObject[];
};

/** Replaces a file's bytes as the media library's "Replace" does (the upload plugin's replace); returns them. */
const replaceWith = async (id: number, name: string, bytes: Buffer, mimetype: string): Promise<Buffer> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-replace-'));
  const filepath = path.join(dir, name);
  fs.writeFileSync(filepath, bytes);
  try {
    await app.strapi
      .plugin('upload')
      .service('upload')
      .replace(id, { data: { fileInfo: {} }, file: { filepath, originalFilename: name, mimetype, size: bytes.length } });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return fs.readFileSync(diskPathOf(app.strapi, await app.strapi.db.query('plugin::upload.file').findOne({ where: { id } })));
};

const replaceFile = async (id: number, name: string, width: number, height: number): Promise<Buffer> =>
  replaceWith(id, name, await solidImage(width, height), 'image/png');

const productWithManual = async (slug: string, fileId: number): Promise<AssetObject> => {
  await publish(app.strapi, 'api::product.product', { name: slug, slug, sku: slug.toUpperCase(), price: 1, manual: fileId });
  const res = await app.http().get(`/api/v2/products/${slug}`).set('Authorization', key.auth);
  expect(res.status).toBe(200);
  return res.body.data.attributes.manual as AssetObject;
};

const expectError = (res: { status: number; headers: Record<string, string>; body: Buffer }, status: number, reason?: string) => {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/vnd.api+json');
  const body = jsonOf(res as never);
  expectValidJsonApi(body);
  expect(body.errors[0]).toMatchObject({ status: String(status), ...(reason ? { meta: { reason } } : {}) });
  expect(res.body.toString()).not.toMatch(/\bat \/|node_modules|\.ts:\d|SELECT|uploads\//);
  return body.errors;
};

describe('originals', () => {
  test('the URL of a record asset serves the file as stored, with no key', async () => {
    const image = await uploadImage(app.strapi, 'facade.png', 64, 48);
    const [asset] = await buildingWith('facade', [image.id]);
    const stored = await app.strapi.db.query('plugin::upload.file').findOne({ where: { id: image.id } });
    const onDisk = fs.readFileSync(diskPathOf(app.strapi, stored));

    const res = await get(pathOf(asset!.url));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['content-length']).toBe(String(onDisk.length));
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(Buffer.compare(res.body, onDisk)).toBe(0);
    // The same bytes the asset object announces: exact, though Strapi keeps kilobytes with two decimals.
    expect(asset!.size).toBe(onDisk.length);
  });

  test('an Authorization header, an Accept that excludes JSON:API and a foreign Origin change nothing', async () => {
    const image = await uploadImage(app.strapi, 'hall-2.png', 32, 32);
    const [asset] = await buildingWith('hall-2', [image.id]);
    const res = await get(pathOf(asset!.url))
      .set('Authorization', 'Bearer pdk_nonsense')
      .set('Accept', 'image/*')
      .set('Origin', 'https://elsewhere.example');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  test('a PDF is served as application/pdf; a preflight is answered for any origin', async () => {
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
    const file = await storeFile(app.strapi, { name: 'manual.pdf', bytes: pdf, mime: 'application/pdf' });
    const manual = await productWithManual('lamp', file.id);
    expect(manual.mimeType).toBe('application/pdf');
    const res = await get(pathOf(manual.url));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-security-policy']).not.toMatch(/sandbox/);
    expect(res.body.equals(pdf)).toBe(true);

    const preflight = await app
      .http()
      .options(pathOf(manual.url))
      .set('Origin', 'https://elsewhere.example')
      .set('Access-Control-Request-Method', 'GET');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, HEAD, OPTIONS');
    expect(preflight.headers['access-control-allow-headers']).toMatch(/Range/);
  });

  test('the token is stable: the same file has the same URL in every record, computed from the server secret alone', async () => {
    const image = await uploadImage(app.strapi, 'shared.png', 16, 16);
    const [first] = await buildingWith('shared-a', [image.id]);
    const [second] = await buildingWith('shared-b', [image.id]);
    expect(pathOf(first!.url)).toBe(pathOf(second!.url));
    // Nothing per process goes into it: another instance, or this one restarted, computes the same URL.
    const stored = await app.strapi.db.query('plugin::upload.file').findOne({ where: { id: image.id } });
    const token = assetToken(deriveAssetKey(TEST_ENV.PUBLIC_API_KEY_SECRET), stored);
    expect(pathOf(first!.url)).toBe(`/api/v2/assets/${token}/shared.png`);
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  test('a file replaced through the media library gets a new URL; the old one stops working', async () => {
    const image = await uploadImage(app.strapi, 'replaced.png', 16, 8);
    const [before] = await buildingWith('replaced', [image.id]);
    const original = await get(pathOf(before!.url));
    const oldVariant = await get(`${pathOf(before!.url)}?w=8`);
    expect((await sharp(oldVariant.body).metadata()).height).toBe(4);
    const stored = await app.strapi.db.query('plugin::upload.file').findOne({ where: { id: image.id } });

    const bytes = await replaceFile(image.id, 'replaced.png', 8, 16);
    // Strapi keeps the hash and the URL of a replaced file: nothing of its own tells the new bytes apart.
    const replaced = await app.strapi.db.query('plugin::upload.file').findOne({ where: { id: image.id } });
    expect([replaced.hash, replaced.url]).toEqual([stored.hash, stored.url]);

    const res = await app.http().get('/api/v2/buildings/replaced').set('Authorization', key.auth);
    const after = res.body.data.attributes.images[0] as AssetObject;
    expect(pathOf(after.url)).not.toBe(pathOf(before!.url));
    expectError(await get(pathOf(before!.url)), 404, 'asset_not_found');
    expectError(await get(`${pathOf(before!.url)}?w=8`), 404, 'asset_not_found');
    const fresh = await get(pathOf(after.url));
    expect(fresh.status).toBe(200);
    expect(fresh.body.equals(bytes)).toBe(true);
    expect(after.size).toBe(bytes.length);
    expect(fresh.headers.etag).not.toBe(original.headers.etag);
    // Variants are of the new bytes, never the old image's cached ones.
    const newVariant = await get(`${pathOf(after.url)}?w=8`);
    expect(newVariant.headers.etag).not.toBe(oldVariant.headers.etag);
    expect((await sharp(newVariant.body).metadata()).height).toBe(16);
  });

  test('an image replaced by a PDF: the new URL serves the PDF and refuses transforms (400), the old one is gone', async () => {
    const image = await uploadImage(app.strapi, 'becomes-pdf.png', 16, 16);
    const before = await productWithManual('becomes-pdf', image.id);
    expect((await get(`${pathOf(before.url)}?w=8`)).status).toBe(200);
    const bytes = await replaceWith(image.id, 'becomes-pdf.pdf', minimalPdf('Replaced'), 'application/pdf');
    const res = await app.http().get('/api/v2/products/becomes-pdf').set('Authorization', key.auth);
    const after = res.body.data.attributes.manual as AssetObject;
    expect(after.mimeType).toBe('application/pdf');
    expectError(await get(pathOf(before.url)), 404, 'asset_not_found');
    expectError(await get(`${pathOf(before.url)}?w=8`), 404, 'asset_not_found');
    const served = await get(pathOf(after.url));
    expect([served.status, served.headers['content-type']]).toEqual([200, 'application/pdf']);
    expect(served.body.equals(bytes)).toBe(true);
    expect(after.size).toBe(bytes.length);
    const [refused] = expectError(await get(`${pathOf(after.url)}?w=8`), 400, 'not_an_image');
    expect(refused.source).toEqual({ parameter: 'w' });
  });

  test('replacing a file with the very same bytes keeps its URL; editing its name or alt text keeps the token', async () => {
    const image = await uploadImage(app.strapi, 'same-bytes.png', 12, 12);
    const [before] = await buildingWith('same-bytes', [image.id]);
    const token = (url: string) => pathOf(url).split('/')[4];
    await replaceFile(image.id, 'same-bytes.png', 12, 12);
    const [first] = await buildingWith('same-bytes-2', [image.id]);
    await replaceFile(image.id, 'same-bytes.png', 12, 12);
    const [second] = await buildingWith('same-bytes-3', [image.id]);
    // The first replace records the bytes' digest (the URL changes once); the same bytes again change nothing.
    expect(pathOf(second!.url)).toBe(pathOf(first!.url));
    expect(token(first!.url)).not.toBe(token(before!.url));

    await app.strapi.plugin('upload').service('upload').updateFileInfo(image.id, { alternativeText: 'Edited', name: 'renamed.png' });
    const [renamed] = await buildingWith('same-bytes-4', [image.id]);
    expect(renamed!.fileName).toBe('renamed.png');
    expect(token(renamed!.url)).toBe(token(second!.url));
    expect((await get(pathOf(renamed!.url))).status).toBe(200);
  });
});

describe('names and sizes', () => {
  test.each([1, 5283, 5289, 999_999])('a file of %i bytes announces exactly that size', async (length) => {
    // Kilobytes with two decimals cannot tell these apart from their neighbours; the API speaks bytes.
    const file = await storeFile(app.strapi, { name: `exact-${length}.bin`, bytes: randomBytes(length), mime: 'application/octet-stream' });
    const asset = await productWithManual(`exact-${length}`, file.id);
    expect(asset.size).toBe(length);
    expect((await get(pathOf(asset.url))).headers['content-length']).toBe(String(length));
  });

  test('files written before sizes were recorded are measured at start', async () => {
    const file = await storeFile(app.strapi, { name: 'older.bin', bytes: randomBytes(5283), mime: 'application/octet-stream' });
    // As a database from before: no recorded size, and Strapi's kilobytes with two decimals.
    await app.strapi.db.connection('public_api_file_versions').where({ file_id: file.id }).update({ bytes: null });
    await app.strapi.db.connection('files').where({ id: file.id }).update({ size: 5.28 });
    const before = await productWithManual('older', file.id);
    expect(before.size).toBe(5280);
    const versions = app.strapi.plugin('public-api').service('file-versions') as { backfillSizes: () => Promise<number> };
    expect(await versions.backfillSizes()).toBeGreaterThanOrEqual(1);
    const res = await app.http().get('/api/v2/products/older').set('Authorization', key.auth);
    expect(res.body.data.attributes.manual.size).toBe(5283);
    // A second run finds nothing left to measure.
    expect(await versions.backfillSizes()).toBe(0);
  });

  test('a name with spaces, accents and URL delimiters round-trips through its URL', async () => {
    const name = "Fête d'été #1 ?&=%+.png";
    const file = await storeFile(app.strapi, { name, bytes: await solidImage(8, 8), mime: 'image/png' });
    const [asset] = await buildingWith('odd-name', [file.id]);
    expect(asset!.fileName).toBe(name);
    expect(pathOf(asset!.url).split('/').pop()).toBe(encodeURIComponent(name));
    const res = await get(pathOf(asset!.url));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
  });

  test('a large file is streamed whole, and a range from its middle is exact', async () => {
    const big = randomBytes(3 * 1024 * 1024);
    const file = await storeFile(app.strapi, { name: 'film.mp4', bytes: big, mime: 'video/mp4' });
    const url = pathOf((await productWithManual('film', file.id)).url);
    const whole = await get(url);
    expect(whole.status).toBe(200);
    expect(whole.headers['content-length']).toBe(String(big.length));
    expect(whole.body.equals(big)).toBe(true);
    const part = await get(url).set('Range', 'bytes=1500000-2600000');
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 1500000-2600000/${big.length}`);
    expect(part.body.equals(big.subarray(1_500_000, 2_600_001))).toBe(true);
  });
});

describe('what is not an asset: 404 with a JSON:API error', () => {
  let url: string;
  beforeAll(async () => {
    const image = await uploadImage(app.strapi, 'door.png', 16, 16);
    [{ url }] = (await buildingWith('door', [image.id])) as [AssetObject];
  });

  const withToken = (token: string) => pathOf(url).replace(/\/assets\/[^/]+\//, `/assets/${token}/`);
  const withName = (name: string) => pathOf(url).replace(/\/[^/]+$/, `/${name}`);
  const tokenOf = () => /\/assets\/([^/]+)\//.exec(url)![1]!;

  test.each([
    ['a wrong token', () => withToken('A'.repeat(32))],
    ['a token one character off', () => withToken(`${tokenOf().slice(0, 31)}${tokenOf().endsWith('A') ? 'B' : 'A'}`)],
    ['a short token', () => withToken(tokenOf().slice(0, 31))],
    ['a long token', () => withToken(`${tokenOf()}A`)],
    ['a token with other characters', () => withToken(`${tokenOf().slice(0, 31)}.`)],
    ['a wrong name', () => withName('window.png')],
    // MariaDB's collation would match both of these to door.png (case-insensitive, PAD SPACE).
    ['the name in another case', () => withName('DOOR.png')],
    ['the name with a trailing space', () => withName('door.png%20')],
    ['the name with a path in front', () => withName('..%2Fdoor.png')],
    ['a traversal', () => withName('..%2F..%2F..%2Fpackage.json')],
    ['a NUL byte', () => withName('door.png%00')],
    ['a control character', () => withName('door%0A.png')],
    ['a very long name', () => withName('a'.repeat(4000))],
    ['an invalid percent-encoding', () => withName('%E0%A4%A')],
  ])('%s', async (_label, make) => {
    const res = await get(make());
    expectError(res, 404, undefined);
  });

  test('a token for another file with this file name', async () => {
    const other = await uploadImage(app.strapi, 'door-other.png', 16, 16);
    const [asset] = await buildingWith('door-other', [other.id]);
    const token = /\/assets\/([^/]+)\//.exec(asset!.url)![1]!;
    expectError(await get(withToken(token)), 404, 'asset_not_found');
  });

  test('missing path segments and extra ones are no endpoint', async () => {
    expectError(await get(`${pathOf(url)}/more`), 404, 'unknown_path');
    expectError(await get(pathOf(url).replace(/\/[^/]+$/, '/')), 401);
  });

  test('POST and DELETE are not allowed', async () => {
    const res = await app.http().delete(pathOf(url)).buffer(true).parse(asBytes);
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
  });
});

describe('references', () => {
  test('a file no longer referenced by any record gives 404', async () => {
    const image = await uploadImage(app.strapi, 'removed.png', 16, 16);
    await publish(app.strapi, 'api::building.building', { name: 'Removed', slug: 'removed', images: [image.id] });
    const res = await app.http().get('/api/v2/buildings/removed').set('Authorization', key.auth);
    const url = res.body.data.attributes.images[0].url as string;
    expect((await get(pathOf(url))).status).toBe(200);

    const building = await app.strapi.documents('api::building.building').findFirst({ filters: { slug: 'removed' } });
    await app.strapi
      .documents('api::building.building')
      .update({ documentId: building!.documentId, data: { images: [] } as never, status: 'published' } as never);
    expectError(await get(pathOf(url)), 404, 'asset_not_found');
  });

  test('a file referenced only from a draft is not served', async () => {
    const image = await uploadImage(app.strapi, 'drafted.png', 16, 16);
    await publish(app.strapi, 'api::building.building', { name: 'Drafted', slug: 'drafted', images: [image.id] });
    const res = await app.http().get('/api/v2/buildings/drafted').set('Authorization', key.auth);
    const url = res.body.data.attributes.images[0].url as string;
    const building = await app.strapi.documents('api::building.building').findFirst({ filters: { slug: 'drafted' } });
    await app.strapi.documents('api::building.building').unpublish({ documentId: building!.documentId });
    expectError(await get(pathOf(url)), 404, 'asset_not_found');
  });

  test('an image embedded in published richtext is served, though no media field links it', async () => {
    const image = await uploadImage(app.strapi, 'inline.png', 20, 10);
    const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { id: image.id } });
    const description = [
      { type: 'image', image: file, children: [{ type: 'text', text: '' }] },
      { type: 'paragraph', children: [{ type: 'text', text: 'Below the picture.' }] },
    ];
    await publish(app.strapi, 'api::building.building', { name: 'Inline', slug: 'inline', description });
    const res = await app.http().get('/api/v2/buildings/inline').set('Authorization', key.auth);
    const node = res.body.data.attributes.description.content[0];
    expect(node.type).toBe('image');
    const served = await get(pathOf(node.attrs.src));
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
  });

  test('an image embedded in richtext follows its file when it is renamed or replaced', async () => {
    const image = await uploadImage(app.strapi, 'inline-later.png', 20, 10);
    const file = await app.strapi.db.query('plugin::upload.file').findOne({ where: { id: image.id } });
    // Strapi keeps a copy of the file row in the blocks, as it was when the image was inserted.
    await publish(app.strapi, 'api::building.building', {
      name: 'Inline later',
      slug: 'inline-later',
      description: [{ type: 'image', image: file, children: [{ type: 'text', text: '' }] }],
    });
    const image0 = async () =>
      (await app.http().get('/api/v2/buildings/inline-later').set('Authorization', key.auth)).body.data.attributes.description.content[0]
        .attrs;

    await app.strapi.plugin('upload').service('upload').updateFileInfo(image.id, { name: 'inline-renamed.png' });
    const renamed = await image0();
    expect(renamed.fileName).toBe('inline-renamed.png');
    expect((await get(pathOf(renamed.src))).status).toBe(200);

    const bytes = await replaceFile(image.id, 'inline-renamed.png', 10, 20);
    const replaced = await image0();
    expect(pathOf(replaced.src)).not.toBe(pathOf(renamed.src));
    expect([replaced.width, replaced.height]).toEqual([10, 20]);
    // What editors wrote about the image stays as the blocks hold it.
    expect(replaced.alt).toBe(renamed.alt);
    expectError(await get(pathOf(renamed.src)), 404, 'asset_not_found');
    const served = await get(pathOf(replaced.src));
    expect(served.status).toBe(200);
    expect(served.body.equals(bytes)).toBe(true);
  });

  test('a file whose bytes were deleted from disk gives 404 (not 500), and the server logs it', async () => {
    const image = await uploadImage(app.strapi, 'vanished.png', 16, 16);
    const [asset] = await buildingWith('vanished', [image.id]);
    const stored = await app.strapi.db.query('plugin::upload.file').findOne({ where: { id: image.id } });
    fs.rmSync(diskPathOf(app.strapi, stored));
    const warn = jest.spyOn(app.strapi.log, 'warn');
    try {
      expectError(await get(pathOf(asset!.url)), 404, 'asset_content_missing');
      expectError(await get(`${pathOf(asset!.url)}?w=8`), 404, 'asset_content_missing');
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(/referenced but its file is missing/));
    } finally {
      warn.mockRestore();
    }
  });

  test('a file whose stored location points outside the uploads folder is never read', async () => {
    const file = await storeFile(app.strapi, { name: 'escape.png', bytes: await solidImage(8, 8), mime: 'image/png' });
    await app.strapi.db.query('plugin::upload.file').update({ where: { id: file.id }, data: { url: '/uploads/../../package.json' } });
    const [asset] = await buildingWith('escape', [file.id]);
    expectError(await get(pathOf(asset!.url)), 404, 'asset_content_missing');
  });
});

describe('lookups are kept briefly, and content writes forget them at once', () => {
  /** How many queries read the files table while `work` runs. */
  const fileQueries = async (work: () => Promise<unknown>): Promise<number> => {
    const knex = app.strapi.db.connection as unknown as {
      on: (e: string, l: (q: { sql: string }) => void) => void;
      off: (e: string, l: (q: { sql: string }) => void) => void;
    };
    let count = 0;
    const listen = (query: { sql: string }) => void (/from [`"]files[`"]/i.test(query.sql) && (count += 1));
    knex.on('query', listen);
    try {
      await work();
    } finally {
      knex.off('query', listen);
    }
    return count;
  };

  test('a served asset is looked up once; unpublishing its record gives 404 at the next request', async () => {
    const image = await uploadImage(app.strapi, 'kept.png', 16, 16);
    const [asset] = await buildingWith('kept', [image.id]);
    expect(await fileQueries(async () => expect((await get(pathOf(asset!.url))).status).toBe(200))).toBeGreaterThan(0);
    expect(await fileQueries(async () => expect((await get(pathOf(asset!.url))).status).toBe(200))).toBe(0);
    const building = await app.strapi.documents('api::building.building').findFirst({ filters: { slug: 'kept' } });
    await app.strapi.documents('api::building.building').unpublish({ documentId: building!.documentId });
    expectError(await get(pathOf(asset!.url)), 404, 'asset_not_found');
  });

  // SQLite has one connection: a request made while a transaction is open would wait for it.
  (usingPostgres() ? test : test.skip)('a lookup made while an unpublish is not yet committed is forgotten when it commits', async () => {
    const image = await uploadImage(app.strapi, 'pending.png', 16, 16);
    const [asset] = await buildingWith('pending', [image.id]);
    const building = await app.strapi.documents('api::building.building').findFirst({ filters: { slug: 'pending' } });
    await app.strapi.db.transaction(async () => {
      await app.strapi.documents('api::building.building').unpublish({ documentId: building!.documentId });
      // Another connection still sees the record published, and that answer is kept...
      expect((await get(pathOf(asset!.url))).status).toBe(200);
    });
    // ...until the unpublish commits.
    expectError(await get(pathOf(asset!.url)), 404, 'asset_not_found');
  });

  test('a URL that names nothing yet is served as soon as a published record links its file', async () => {
    const image = await uploadImage(app.strapi, 'soon.png', 16, 16);
    const stored = await app.strapi.db.query('plugin::upload.file').findOne({ where: { id: image.id } });
    const url = `/api/v2/assets/${assetToken(deriveAssetKey(TEST_ENV.PUBLIC_API_KEY_SECRET), stored)}/soon.png`;
    expectError(await get(url), 404, 'asset_not_found');
    const [asset] = await buildingWith('soon', [image.id]);
    expect(pathOf(asset!.url)).toBe(url);
    expect((await get(url)).status).toBe(200);
  });

  test('a file deleted from disk after a first transform: a new variant gives 404, not 422', async () => {
    const image = await uploadImage(app.strapi, 'sniffed.png', 32, 32);
    const [asset] = await buildingWith('sniffed', [image.id]);
    expect((await get(`${pathOf(asset!.url)}?w=8`)).status).toBe(200);
    const stored = await app.strapi.db.query('plugin::upload.file').findOne({ where: { id: image.id } });
    fs.rmSync(diskPathOf(app.strapi, stored));
    const warn = jest.spyOn(app.strapi.log, 'warn').mockImplementation(() => app.strapi.log);
    try {
      expectError(await get(`${pathOf(asset!.url)}?w=9`), 404, 'asset_content_missing');
    } finally {
      warn.mockRestore();
    }
  });
});

describe('conditional requests, ranges and HEAD', () => {
  let url: string;
  let bytes: Buffer;
  let etag: string;
  beforeAll(async () => {
    bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
    const file = await storeFile(app.strapi, { name: 'data.bin', bytes, mime: 'application/octet-stream' });
    url = pathOf((await productWithManual('bin', file.id)).url);
    etag = (await get(url)).headers.etag!;
  });

  test('If-None-Match with the ETag gives 304 without a body; another tag gives 200', async () => {
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await get(url).set('If-None-Match', header);
      expect(res.status).toBe(304);
      expect(res.body.length).toBe(0);
      expect(res.headers.etag).toBe(etag);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    expect((await get(url).set('If-None-Match', '"other"')).status).toBe(200);
    expect((await get(url).set('If-None-Match', 'garbage')).status).toBe(200);
  });

  test.each([
    ['bytes=0-99', 0, 99],
    ['bytes=900-', 900, 999],
    ['bytes=-10', 990, 999],
    ['bytes=990-5000', 990, 999],
    ['bytes=-5000', 0, 999],
    ['BYTES = 5-5', 5, 5],
  ])('Range %s gives 206 with those bytes', async (range, start, end) => {
    const res = await get(url).set('Range', range);
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/1000`);
    expect(res.headers['content-length']).toBe(String(end - start + 1));
    expect(res.headers.etag).toBe(etag);
    expect(res.body.equals(bytes.subarray(start, end + 1))).toBe(true);
  });

  test.each(['bytes=1000-', 'bytes=5000-6000', 'bytes=-0', 'bytes=10-5'])('Range %s gives 416 with the size', async (range) => {
    const res = await get(url).set('Range', range);
    const [error] = expectError(res, 416, 'range_not_satisfiable');
    expect(error.source).toEqual({ header: 'Range' });
    expect(res.headers['content-range']).toBe('bytes */1000');
  });

  test.each(['bytes=0-1,5-6', 'bytes=abc', 'items=0-5', 'bytes=', 'bytes=--5', 'bytes=0-1-2'])(
    'Range %s (several ranges or malformed) is ignored: 200 with everything',
    async (range) => {
      const res = await get(url).set('Range', range);
      expect(res.status).toBe(200);
      expect(res.body.equals(bytes)).toBe(true);
    },
  );

  test('If-Range with the ETag honours the Range; with another tag or a date it sends everything', async () => {
    expect((await get(url).set('Range', 'bytes=0-9').set('If-Range', etag)).status).toBe(206);
    expect((await get(url).set('Range', 'bytes=0-9').set('If-Range', '"stale"')).status).toBe(200);
    expect((await get(url).set('Range', 'bytes=0-9').set('If-Range', 'Wed, 21 Oct 2015 07:28:00 GMT')).status).toBe(200);
  });

  test('If-None-Match wins over Range', async () => {
    expect((await get(url).set('Range', 'bytes=0-9').set('If-None-Match', etag)).status).toBe(304);
  });

  test('HEAD answers the headers of GET without a body, for a whole file and a range', async () => {
    const full = await app.http().head(url);
    expect(full.status).toBe(200);
    expect(full.headers['content-length']).toBe('1000');
    expect(full.headers['content-type']).toBe('application/octet-stream');
    expect(full.headers.etag).toBe(etag);
    expect(full.text ?? '').toBe('');
    const partial = await app.http().head(url).set('Range', 'bytes=10-19');
    expect(partial.status).toBe(206);
    expect(partial.headers['content-length']).toBe('10');
    expect(partial.headers['content-range']).toBe('bytes 10-19/1000');
    expect((await app.http().head(url).set('If-None-Match', etag)).status).toBe(304);
  });

  test('an empty file is served with length 0, and any range of it is unsatisfiable', async () => {
    const file = await storeFile(app.strapi, { name: 'empty.txt', bytes: Buffer.alloc(0), mime: 'text/plain' });
    const emptyUrl = pathOf((await productWithManual('empty', file.id)).url);
    const res = await get(emptyUrl);
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe('0');
    expect((await get(emptyUrl).set('Range', 'bytes=0-0')).status).toBe(416);
  });
});

describe('active content is defused', () => {
  const svg = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>',
  );

  test('SVG is served as it is, as image/svg+xml, in a sandbox', async () => {
    const file = await storeFile(app.strapi, { name: 'logo.svg', bytes: svg, mime: 'image/svg+xml', width: 10, height: 10 });
    const [asset] = await buildingWith('svg-logo', [file.id]);
    const res = await get(pathOf(asset!.url));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox");
    expect(res.headers['content-disposition']).toBeUndefined();
    expect(res.body.equals(svg)).toBe(true);
  });

  test('HTML is served sandboxed, as an attachment', async () => {
    const html = Buffer.from('<!doctype html><script>document.cookie</script>');
    const file = await storeFile(app.strapi, { name: 'page.html', bytes: html, mime: 'text/html' });
    const res = await get(pathOf((await productWithManual('html', file.id)).url));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html');
    expect(res.headers['content-security-policy']).toMatch(/sandbox/);
    expect(res.headers['content-disposition']).toBe('attachment');
  });

  test('a declared type that is not a media type is served as application/octet-stream', async () => {
    const file = await storeFile(app.strapi, { name: 'odd.dat', bytes: Buffer.from('x'), mime: 'text/html\r\nX-Injected: yes' });
    const res = await get(pathOf((await productWithManual('odd', file.id)).url));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['x-injected']).toBeUndefined();
  });
});

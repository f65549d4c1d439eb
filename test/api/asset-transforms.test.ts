/**
 * Image transforms on asset URLs (contract section 11): parameters, never enlarging, orientation and
 * metadata, what is refused (400 for the request, 422 for an image that cannot safely be decoded), and
 * variants computed once.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { bootApp, type TestApp } from '../helpers/app';
import { asBytes, jsonOf, pathOf, pngDeclaring, sidewaysJpeg, solidImage, storeFile, truncatedJpeg } from '../helpers/assets';
import { publish, uploadImage } from '../helpers/fixtures';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { createKey } from '../helpers/keys';

let app: TestApp;
let key: { auth: string };
let cacheDir: string;
const serverErrors: string[] = [];

type Stats = { computed: number; hits: number; evicted: number; entries: number; bytes: number };

beforeAll(async () => {
  cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-asset-cache-'));
  app = await bootApp({ PUBLIC_API_ASSET_CACHE_DIR: cacheDir });
  jest.spyOn(app.strapi.log, 'error').mockImplementation(((message: unknown) => void serverErrors.push(String(message))) as never);
  key = await createKey(app.strapi, {
    resources: {
      'native:buildings': { actions: ['read'], read: ['name', 'images'] },
      'native:products': { actions: ['read'], read: ['name', 'manual'] },
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
type Variants = { stats: () => Stats; settled: () => Promise<void> };
const variants = () => (app.strapi.plugin('public-api').service('assets') as { variants: () => Variants }).variants();
/** The cache's counters once every variant computed so far is written. */
const stats = async (): Promise<Stats> => {
  await variants().settled();
  return variants().stats();
};

let counter = 0;
/** The path of a file's asset URL, as a published record shows it. */
const assetPath = async (fileId: number, field: 'images' | 'manual' = 'images'): Promise<string> => {
  counter += 1;
  const slug = `record-${counter}`;
  if (field === 'images') await publish(app.strapi, 'api::building.building', { name: slug, slug, images: [fileId] });
  else await publish(app.strapi, 'api::product.product', { name: slug, slug, sku: `SKU-${counter}`, price: 1, manual: fileId });
  const res = await app
    .http()
    .get(`/api/v2/${field === 'images' ? 'buildings' : 'products'}/${slug}`)
    .set('Authorization', key.auth);
  expect(res.status).toBe(200);
  const value = res.body.data.attributes[field];
  return pathOf((Array.isArray(value) ? value[0] : value).url);
};

const image = async (name: string, bytes: Buffer, mime = 'image/png') => assetPath((await storeFile(app.strapi, { name, bytes, mime })).id);

const metadataOf = (bytes: Buffer) => sharp(bytes).metadata();

const expectError = (res: { status: number; headers: Record<string, string>; body: Buffer }, status: number) => {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/vnd.api+json');
  const body = jsonOf(res);
  expectValidJsonApi(body);
  return body.errors as { status: string; code: string; detail?: string; source?: { parameter?: string }; meta?: { reason: string } }[];
};

describe('resizing and formats', () => {
  let png: string;
  beforeAll(async () => {
    const uploaded = await uploadImage(app.strapi, 'wide.png', 64, 48);
    png = await assetPath(uploaded.id);
  });

  test('w resizes keeping the aspect ratio, in the source format, cacheable for a year', async () => {
    const res = await get(`${png}?w=32`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['content-length']).toBe(String(res.body.length));
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{40}"$/);
    expect(res.headers.etag).not.toBe((await get(png)).headers.etag);
    const meta = await metadataOf(res.body);
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 32, 24]);
  });

  test('h alone', async () => {
    const meta = await metadataOf((await get(`${png}?h=12`)).body);
    expect([meta.width, meta.height]).toEqual([16, 12]);
  });

  test.each([
    ['cover', 20, 20],
    ['contain', 20, 20],
    ['fill', 20, 20],
    ['inside', 20, 15],
    ['outside', 27, 20],
  ])('fit=%s with w=20&h=20 gives %i x %i', async (fit, width, height) => {
    const meta = await metadataOf((await get(`${png}?w=20&h=20&fit=${fit}`)).body);
    expect([meta.width, meta.height]).toEqual([width, height]);
  });

  test('inside is the default fit', async () => {
    const meta = await metadataOf((await get(`${png}?w=20&h=20`)).body);
    expect([meta.width, meta.height]).toEqual([20, 15]);
  });

  test.each([
    ['w=1000'],
    ['h=4096'],
    ['w=4096&h=4096'],
    ['w=4096&h=4096&fit=cover'],
    ['w=4096&h=4096&fit=fill'],
    ['w=4096&h=10&fit=outside'],
  ])('never enlarges: %s', async (query) => {
    const res = await get(`${png}?${query}`);
    expect(res.status).toBe(200);
    const meta = await metadataOf(res.body);
    expect(meta.width).toBeLessThanOrEqual(64);
    expect(meta.height).toBeLessThanOrEqual(48);
  });

  test.each([
    ['jpeg', 'image/jpeg', 'jpeg'],
    ['png', 'image/png', 'png'],
    ['webp', 'image/webp', 'webp'],
    ['avif', 'image/avif', 'heif'],
  ])('format=%s', async (format, mime, detected) => {
    const res = await get(`${png}?w=16&format=${format}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(mime);
    const meta = await metadataOf(res.body);
    expect([meta.format, meta.width]).toEqual([detected, 16]);
  });

  test('q trades size for quality', async () => {
    const noise = await sharp(randomBytes(128 * 96 * 3), { raw: { width: 128, height: 96, channels: 3 } })
      .png()
      .toBuffer();
    const url = await image('noise.png', noise);
    const low = await get(`${url}?format=jpeg&q=10`);
    const high = await get(`${url}?format=jpeg&q=95`);
    expect(low.status).toBe(200);
    expect(low.body.length).toBeLessThan(high.body.length);
  });

  test('a transform without size re-encodes: the format alone, or q alone in the source format', async () => {
    const webp = await get(`${png}?format=webp`);
    expect(webp.headers['content-type']).toBe('image/webp');
    expect((await metadataOf(webp.body)).width).toBe(64);
    const jpegSource = await image('photo.jpg', await solidImage(40, 30, 'jpeg'), 'image/jpeg');
    const requality = await get(`${jpegSource}?q=50`);
    expect(requality.headers['content-type']).toBe('image/jpeg');
  });

  test('GIF and TIFF sources become PNG or JPEG when no format is asked', async () => {
    const gif = await sharp({ create: { width: 30, height: 20, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.5 } } })
      .gif()
      .toBuffer();
    const res = await get(`${await image('anim.gif', gif, 'image/gif')}?w=15`);
    expect(res.headers['content-type']).toBe('image/png');
    const tiff = await sharp({ create: { width: 30, height: 20, channels: 3, background: { r: 9, g: 9, b: 9 } } })
      .tiff()
      .toBuffer();
    const fromTiff = await get(`${await image('scan.tiff', tiff, 'image/tiff')}?w=15`);
    expect(fromTiff.headers['content-type']).toBe('image/jpeg');
  });

  test('the declared type does not decide: a PNG stored as image/jpeg is transformed from its bytes', async () => {
    const url = await image('liar.jpg', await solidImage(20, 10, 'png'), 'image/jpeg');
    const res = await get(`${url}?w=10`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
  });
});

describe('orientation and metadata', () => {
  test('EXIF orientation is applied, then resized; no metadata is left', async () => {
    const source = await sidewaysJpeg();
    const sourceMeta = await metadataOf(source);
    expect([sourceMeta.width, sourceMeta.height, sourceMeta.orientation]).toEqual([40, 20, 6]);
    expect(sourceMeta.exif).toBeDefined();
    const url = await image('sideways.jpg', source, 'image/jpeg');

    const upright = await metadataOf((await get(`${url}?format=jpeg`)).body);
    expect([upright.width, upright.height]).toEqual([20, 40]);
    const small = await get(`${url}?w=10`);
    const meta = await metadataOf(small.body);
    expect([meta.width, meta.height]).toEqual([10, 20]);
    expect(meta.orientation).toBeUndefined();
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(meta.iptc).toBeUndefined();
    expect(small.body.includes(Buffer.from('secret-owner'))).toBe(false);
    // The original is served as stored, metadata and all.
    expect((await get(url)).body.equals(source)).toBe(true);
  });
});

describe('parameters: 400 naming each offending parameter', () => {
  let png: string;
  beforeAll(async () => {
    png = await image('params.png', await solidImage(16, 16));
  });

  test.each([
    ['foo=1', 'foo', 'unknown_parameter'],
    ['width=10', 'width', 'unknown_parameter'],
    ['W=10', 'W', 'unknown_parameter'],
    ['w=1&w=2', 'w', 'parameter_repeated'],
    ['w=0', 'w', 'parameter_invalid'],
    ['w=4097', 'w', 'parameter_invalid'],
    ['w=99999999999999999999', 'w', 'parameter_invalid'],
    ['w=-5', 'w', 'parameter_invalid'],
    ['w=1.5', 'w', 'parameter_invalid'],
    ['w=1e3', 'w', 'parameter_invalid'],
    ['w=010', 'w', 'parameter_invalid'],
    ['w=', 'w', 'parameter_invalid'],
    ['w=%2010', 'w', 'parameter_invalid'],
    ['h=5000', 'h', 'parameter_invalid'],
    ['h=abc', 'h', 'parameter_invalid'],
    ['fit=crop', 'fit', 'parameter_invalid'],
    ['fit=COVER', 'fit', 'parameter_invalid'],
    ['format=gif', 'format', 'parameter_invalid'],
    ['format=svg', 'format', 'parameter_invalid'],
    ['format=jpg', 'format', 'parameter_invalid'],
    ['q=0', 'q', 'parameter_invalid'],
    ['q=101', 'q', 'parameter_invalid'],
  ])('%s', async (query, parameter, reason) => {
    const [error, more] = expectError(await get(`${png}?${query}`), 400);
    expect(error).toMatchObject({ status: '400', code: 'bad_request', source: { parameter }, meta: { reason } });
    expect(more).toBeUndefined();
  });

  test('every problem is reported at once, in the order sent', async () => {
    const errors = expectError(await get(`${png}?w=0&fit=crop&token=x&q=500`), 400);
    expect(errors.map((error) => error.source?.parameter)).toEqual(['w', 'fit', 'token', 'q']);
  });

  test('a wrong token is 404 whatever the parameters', async () => {
    const errors = expectError(await get(`${png.replace(/\/assets\/[^/]+\//, `/assets/${'Z'.repeat(32)}/`)}?w=0`), 404);
    expect(errors[0]!.meta).toEqual({ reason: 'asset_not_found' });
  });
});

describe('what is not transformed', () => {
  test('a transform on a PDF is 400 naming the parameter; the PDF itself is served', async () => {
    const file = await storeFile(app.strapi, { name: 'guide.pdf', bytes: Buffer.from('%PDF-1.4\n%%EOF\n'), mime: 'application/pdf' });
    const url = await assetPath(file.id, 'manual');
    const [error] = expectError(await get(`${url}?format=webp&w=10`), 400);
    expect(error).toMatchObject({ source: { parameter: 'format' }, meta: { reason: 'not_an_image' } });
    expect((await get(url)).status).toBe(200);
  });

  test('SVG is never transformed nor rasterized, under any declared type', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000"><rect width="4000" height="4000"/></svg>');
    const declared = await image('mark.svg', svg, 'image/svg+xml');
    const before = await stats();
    const [error] = expectError(await get(`${declared}?w=10&format=png`), 400);
    expect(error).toMatchObject({ source: { parameter: 'w' }, meta: { reason: 'svg_not_transformable' } });
    // Labelled as a PNG, the bytes still never reach a decoder.
    const disguised = await image('mark.png', svg, 'image/png');
    const [other] = expectError(await get(`${disguised}?w=10`), 400);
    expect(other).toMatchObject({ source: { parameter: 'w' }, meta: { reason: 'not_an_image' } });
    expect((await stats()).computed).toBe(before.computed);
  });

  test('a corrupt JPEG is 422 (never 500); its original is still served', async () => {
    const url = await image('broken.jpg', await truncatedJpeg(), 'image/jpeg');
    const [error] = expectError(await get(`${url}?w=100`), 422);
    expect(error).toMatchObject({ code: 'unprocessable_entity', meta: { reason: 'image_undecodable' } });
    expect(JSON.stringify(error)).not.toMatch(/Vips|premature|sharp/i);
    const garbage = await image('garbage.jpg', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(300)]), 'image/jpeg');
    expect(expectError(await get(`${garbage}?w=10`), 422)[0]!.meta).toEqual({ reason: 'image_undecodable' });
    expect((await get(url)).status).toBe(200);
  });

  test('a tiny PNG declaring 20000 x 20000 pixels is refused from its header: fast, memory bounded', async () => {
    const bomb = pngDeclaring(20_000, 20_000);
    expect(bomb.length).toBeLessThan(100);
    const url = await image('bomb.png', bomb);
    if (global.gc) global.gc();
    const rssBefore = process.memoryUsage().rss;
    const res = await get(`${url}?w=100`);
    const grownBytes = process.memoryUsage().rss - rssBefore;
    const [error] = expectError(res, 422);
    expect(error).toMatchObject({ meta: { reason: 'image_too_large' } });
    expect(error!.detail).toMatch(/50 megapixels/);
    // Decoding it would need 1.2 GB (20000 * 20000 * 3 bytes).
    expect(grownBytes).toBeLessThan(64 * 1024 * 1024);
    // The original is served as bytes, never decoded.
    const original = await get(url);
    expect(original.status).toBe(200);
    expect(original.body.equals(bomb)).toBe(true);
  });

  test('the limit is 50 megapixels: one row more is refused before decoding, exactly 50 goes on to the decoder', async () => {
    const over = await image('over.png', pngDeclaring(10_000, 5_001));
    expect(expectError(await get(`${over}?w=10`), 422)[0]!.meta).toEqual({ reason: 'image_too_large' });
    // Exactly 50 MP passes the limit; this crafted file then fails to decode (its data is 64 bytes).
    const atLimit = await image('at-limit.png', pngDeclaring(10_000, 5_000));
    expect(expectError(await get(`${atLimit}?w=10`), 422)[0]!.meta).toEqual({ reason: 'image_undecodable' });
  });
});

describe('variants: cached, conditional, computed once', () => {
  test('a second request is served from the cache with the same bytes and ETag', async () => {
    const url = await image('cached.png', await solidImage(50, 50));
    const before = await stats();
    const first = await get(`${url}?w=25`);
    await variants().settled();
    const second = await get(`${url}?w=25`);
    expect(first.body.equals(second.body)).toBe(true);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect((await stats()).computed - before.computed).toBe(1);
    expect((await stats()).hits - before.hits).toBe(1);
    expect(fs.readdirSync(cacheDir).length).toBeGreaterThan(0);
  });

  test('requests that ask for the same output share one variant', async () => {
    const url = await image('same.png', await solidImage(50, 50));
    const before = await stats();
    const plain = await get(`${url}?w=25`);
    for (const query of ['w=25&fit=cover', 'fit=fill&w=25', 'w=25&fit=inside']) {
      const res = await get(`${url}?${query}`);
      expect(res.headers.etag).toBe(plain.headers.etag);
    }
    expect((await get(`${url}?w=25&h=25`)).headers.etag).toBe((await get(`${url}?h=25&w=25&fit=inside`)).headers.etag);
    expect((await get(`${url}?w=25&format=png&q=10`)).headers.etag).toBe((await get(`${url}?w=25&format=png`)).headers.etag);
    expect((await stats()).computed - before.computed).toBe(3);
  });

  test('If-None-Match gives 304 without computing; Range and HEAD work on variants', async () => {
    const url = await image('conditional.png', await solidImage(60, 60));
    const head = await app.http().head(`${url}?w=30&format=webp`);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('image/webp');
    const full = await get(`${url}?w=30&format=webp`);
    expect(head.headers['content-length']).toBe(String(full.body.length));
    expect(head.headers.etag).toBe(full.headers.etag);

    const notModified = await get(`${url}?w=30&format=webp`).set('If-None-Match', full.headers.etag!);
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);

    // A variant never computed is answered 304 from its tag alone.
    const before = await stats();
    const unseen = await get(`${url}?w=31`);
    expect((await stats()).computed - before.computed).toBe(1);
    const etag = unseen.headers.etag!;
    const again = await stats();
    expect((await get(`${url}?w=31`).set('If-None-Match', etag)).status).toBe(304);
    expect(await stats()).toEqual(again);

    const partial = await get(`${url}?w=30&format=webp`).set('Range', 'bytes=0-9');
    expect(partial.status).toBe(206);
    expect(partial.headers['content-range']).toBe(`bytes 0-9/${full.body.length}`);
    expect(partial.body.equals(full.body.subarray(0, 10))).toBe(true);
  });

  test('20 concurrent requests for one new variant compute it once and all get the same bytes', async () => {
    const noise = await sharp(randomBytes(800 * 600 * 3), { raw: { width: 800, height: 600, channels: 3 } })
      .jpeg()
      .toBuffer();
    const url = await image('crowd.jpg', noise, 'image/jpeg');
    const before = await stats();
    const responses = await Promise.all(Array.from({ length: 20 }, () => get(`${url}?w=300&format=avif`)));
    expect((await stats()).computed - before.computed).toBe(1);
    for (const res of responses) {
      expect(res.status).toBe(200);
      expect(res.body.equals(responses[0]!.body)).toBe(true);
    }
    // Later requests read it from disk.
    const later = await get(`${url}?w=300&format=avif`);
    expect(later.body.equals(responses[0]!.body)).toBe(true);
    expect((await stats()).computed - before.computed).toBe(1);
  });

  test('concurrent requests for a variant that cannot be made all get the error, and nothing is cached', async () => {
    const url = await image('broken-crowd.jpg', await truncatedJpeg(), 'image/jpeg');
    const before = await stats();
    const responses = await Promise.all(Array.from({ length: 5 }, () => get(`${url}?w=50`)));
    for (const res of responses) expect(res.status).toBe(422);
    expect((await stats()).entries).toBe(before.entries);
  });
});

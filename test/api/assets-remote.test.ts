/**
 * Asset URLs of files kept by a non-local upload provider (S3): `files` rows of provider `aws-s3` whose
 * absolute URLs point at a fake object store on 127.0.0.1 (test/helpers/object-store.ts). Originals,
 * 304, ranges and variants answer as for local files; a missing, oversized, slow or failing object gets a
 * clear JSON:API error, never a 500; a private provider's objects are read through its signed URLs.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { bootApp, type TestApp } from '../helpers/app';
import { asBytes, jsonOf, pathOf, solidImage, storeRemoteFile } from '../helpers/assets';
import { publish } from '../helpers/fixtures';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { createKey } from '../helpers/keys';
import { portOf } from '../helpers/raw-http';
import { startObjectStore, type ObjectStore, type StoredObject } from '../helpers/object-store';

const TIMEOUT_MS = 400;
const MAX_BYTES = 200_000;
const SOURCE_MAX_BYTES = 100_000;
const FETCHES_IN_FLIGHT = 2;

let app: TestApp;
let store: ObjectStore;
let key: { auth: string };
let cacheDir: string;
let slugs = 0;
/** What the server logged as errors: every answer here is deliberate, none is a 500. */
const serverErrors: string[] = [];

type AssetsService = {
  originFetches: () => number;
  originSources: () => { held: () => number };
  variants: () => { settled: () => Promise<void> };
};
const assets = () => app.strapi.plugin('public-api').service('assets') as AssetsService;

beforeAll(async () => {
  cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-asset-cache-'));
  store = await startObjectStore();
  app = await bootApp({
    PUBLIC_API_ASSET_CACHE_DIR: cacheDir,
    PUBLIC_API_ASSET_ORIGIN_TIMEOUT_MS: String(TIMEOUT_MS),
    PUBLIC_API_ASSET_ORIGIN_MAX_BYTES: String(MAX_BYTES),
    PUBLIC_API_TRANSFORM_SOURCE_MAX_BYTES: String(SOURCE_MAX_BYTES),
    PUBLIC_API_ASSET_ORIGIN_FETCHES_IN_FLIGHT: String(FETCHES_IN_FLIGHT),
  });
  jest.spyOn(app.strapi.log, 'error').mockImplementation(((message: unknown) => void serverErrors.push(String(message))) as never);
  key = await createKey(app.strapi, { resources: { 'native:buildings': { actions: ['read'], read: ['name', 'images'] } } });
});
afterEach(() => {
  expect(serverErrors).toEqual([]);
});
afterAll(async () => {
  await app?.close();
  await store?.close();
  fs.rmSync(cacheDir, { recursive: true, force: true });
});

const get = (url: string) => app.http().get(url).buffer(true).parse(asBytes);

/** An object in the store, its `files` row (provider aws-s3) referenced from a published record; its asset path. */
const remoteAsset = async (name: string, object: StoredObject, mime = 'image/png'): Promise<{ path: string; key: string }> => {
  const objectKey = `bucket/${Date.now()}-${name}`;
  store.put(objectKey, object);
  const file = await storeRemoteFile(app.strapi, { name, url: store.urlOf(objectKey), size: object.bytes.length, mime });
  slugs += 1;
  const slug = `remote-${slugs}`;
  await publish(app.strapi, 'api::building.building', { name: slug, slug, images: [file.id] });
  const res = await app.http().get(`/api/v2/buildings/${slug}`).set('Authorization', key.auth);
  expect(res.status).toBe(200);
  const [asset] = res.body.data.attributes.images as { url: string }[];
  return { path: pathOf(asset!.url), key: objectKey };
};

const requestsFor = (objectKey: string) => store.requests.filter((request) => request.path.startsWith(`/${objectKey}`));

const expectError = (res: { status: number; body: Buffer; headers: Record<string, string> }, status: number, reason: string) => {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/vnd\.api\+json/);
  const document = jsonOf(res);
  expectValidJsonApi(document);
  expect(document.errors[0]).toMatchObject({ status: String(status), meta: { reason } });
  // Nothing of the storage leaks: not its address, not its answer.
  expect(res.body.toString('utf8')).not.toContain('127.0.0.1');
};

describe('an original', () => {
  test('is relayed from the origin whole, with the tags and headers of a local file, asking for no compression', async () => {
    const bytes = await solidImage(64, 48);
    const asset = await remoteAsset('photo.png', { bytes });
    const res = await get(asset.path);
    expect(res.status).toBe(200);
    expect(Buffer.compare(res.body, bytes)).toBe(0);
    expect(res.headers).toMatchObject({
      'content-type': 'image/png',
      'content-length': String(bytes.length),
      'accept-ranges': 'bytes',
      'cache-control': 'public, max-age=31536000, immutable',
    });
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(requestsFor(asset.key)).toEqual([expect.objectContaining({ range: undefined, acceptEncoding: 'identity' })]);
    // The tag names the content, not the answer: the same on every request (and instance).
    expect((await get(asset.path)).headers.etag).toBe(res.headers.etag);
    expect(assets().originFetches()).toBe(0);
  });

  test('If-None-Match with its tag answers 304 without asking the origin', async () => {
    const asset = await remoteAsset('cached.png', { bytes: await solidImage(10, 10) });
    const first = await get(asset.path);
    const asked = requestsFor(asset.key).length;
    const res = await app.http().get(asset.path).set('If-None-Match', first.headers.etag!);
    expect(res.status).toBe(304);
    expect(res.headers.etag).toBe(first.headers.etag);
    expect(requestsFor(asset.key)).toHaveLength(asked);
  });

  test('HEAD answers the headers and no body', async () => {
    const bytes = await solidImage(20, 20);
    const asset = await remoteAsset('head.png', { bytes });
    const res = await app.http().head(asset.path);
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(bytes.length));
    expect(res.headers['content-type']).toBe('image/png');
    expect(assets().originFetches()).toBe(0);
  });

  test('a byte range is forwarded to the origin and answered 206; a suffix too; past the end 416', async () => {
    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
    const asset = await remoteAsset('data.bin', { bytes }, 'application/octet-stream');
    const etag = (await get(asset.path)).headers.etag!;

    const part = await get(asset.path).set('Range', 'bytes=100-199');
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 100-199/1000');
    expect(part.headers['content-length']).toBe('100');
    expect(Buffer.compare(part.body, bytes.subarray(100, 200))).toBe(0);
    expect(part.headers.etag).toBe(etag);
    expect(requestsFor(asset.key).at(-1)).toMatchObject({ range: 'bytes=100-199' });

    const suffix = await get(asset.path).set('Range', 'bytes=-10');
    expect(suffix.status).toBe(206);
    expect(suffix.headers['content-range']).toBe('bytes 990-999/1000');
    expect(Buffer.compare(suffix.body, bytes.subarray(990))).toBe(0);

    const past = await get(asset.path).set('Range', 'bytes=5000-');
    expectError(past, 416, 'range_not_satisfiable');
    expect(past.headers['content-range']).toBe('bytes */1000');

    // If-Range with another tag: the range is not answered, so it is not asked for either.
    const stale = await get(asset.path).set('Range', 'bytes=0-9').set('If-Range', '"other"');
    expect(stale.status).toBe(200);
    expect(stale.body.length).toBe(1000);
    expect(requestsFor(asset.key).at(-1)).toMatchObject({ range: undefined });

    // An origin that answers a range with the whole object: the range is cut from it.
    const plain = await remoteAsset('plain.bin', { bytes, ignoreRange: true }, 'application/octet-stream');
    const cut = await get(plain.path).set('Range', 'bytes=500-509');
    expect(cut.status).toBe(206);
    expect(cut.headers['content-range']).toBe('bytes 500-509/1000');
    expect(Buffer.compare(cut.body, bytes.subarray(500, 510))).toBe(0);
    expect(requestsFor(plain.key)).toEqual([expect.objectContaining({ range: 'bytes=500-509' })]);

    // Several ranges are ignored (200), as for local files.
    const several = await get(asset.path).set('Range', 'bytes=0-1,5-6');
    expect(several.status).toBe(200);
    expect(several.body.length).toBe(1000);
    expect(assets().originFetches()).toBe(0);
  });

  test('a redirect within the origin is followed; one to another host is not (502)', async () => {
    const bytes = await solidImage(12, 12);
    const target = await remoteAsset('target.png', { bytes });
    const within = await remoteAsset('moved.png', { bytes, redirectTo: `/${target.key}` });
    const res = await get(within.path);
    expect(res.status).toBe(200);
    expect(Buffer.compare(res.body, bytes)).toBe(0);

    const elsewhere = await remoteAsset('away.png', { bytes, redirectTo: store.urlOf(target.key).replace('127.0.0.1', 'localhost') });
    const before = requestsFor(target.key).length;
    expectError(await get(elsewhere.path), 502, 'asset_origin_failed');
    expect(requestsFor(target.key)).toHaveLength(before);
  });
});

describe('a variant', () => {
  test('is computed from a copy of the original, cached, and the copy deleted', async () => {
    const asset = await remoteAsset('wide.png', { bytes: await solidImage(120, 60) });
    const url = `${asset.path}?w=30&format=webp`;
    const res = await get(url);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/webp');
    const meta = await sharp(res.body).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: 30, height: 15 });
    expect(requestsFor(asset.key)).toHaveLength(1);
    await assets().variants().settled();

    // From the cache: the origin is not asked again, and the tag holds (304).
    const again = await get(url);
    expect(again.status).toBe(200);
    expect(Buffer.compare(again.body, res.body)).toBe(0);
    expect(again.headers.etag).toBe(res.headers.etag);
    expect((await app.http().get(url).set('If-None-Match', res.headers.etag!)).status).toBe(304);
    expect(requestsFor(asset.key)).toHaveLength(1);

    // A range of a variant, as for a local one.
    const part = await get(url).set('Range', 'bytes=0-9');
    expect(part.status).toBe(206);
    expect(Buffer.compare(part.body, res.body.subarray(0, 10))).toBe(0);

    expect(assets().originSources().held()).toBe(0);
    const sources = fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('public-api-sources-'));
    for (const dir of sources) expect(fs.readdirSync(path.join(os.tmpdir(), dir)).filter((name) => name.length > 0)).toEqual([]);
  });

  test('variants asked at the same time share one download', async () => {
    const asset = await remoteAsset('srcset.png', { bytes: await solidImage(200, 100), delayMs: 100 });
    const widths = [20, 40, 60, 80];
    const answers = await Promise.all(widths.map((w) => get(`${asset.path}?w=${w}&format=png`)));
    for (const [index, res] of answers.entries()) {
      expect(res.status).toBe(200);
      expect((await sharp(res.body).metadata()).width).toBe(widths[index]);
    }
    expect(requestsFor(asset.key)).toHaveLength(1);
    expect(assets().originSources().held()).toBe(0);
  });

  test('an original over the transform source bound is refused 422, its original still served', async () => {
    const bytes = Buffer.concat([await solidImage(10, 10), Buffer.alloc(SOURCE_MAX_BYTES)]);
    const asset = await remoteAsset('heavy.png', { bytes });
    expectError(await get(`${asset.path}?w=5`), 422, 'image_too_large');
    expect((await get(asset.path)).status).toBe(200);
  });
});

describe('what the origin cannot give', () => {
  test('a missing object: 404 asset_content_missing, for the original and a variant', async () => {
    const asset = await remoteAsset('gone.png', { bytes: await solidImage(10, 10) });
    store.remove(asset.key);
    expectError(await get(asset.path), 404, 'asset_content_missing');
    expectError(await get(`${asset.path}?w=5`), 404, 'asset_content_missing');
    expect(assets().originFetches()).toBe(0);
    expect(assets().originSources().held()).toBe(0);
  });

  test('an object larger than the relay bound: 502 asset_too_large, before its body is read', async () => {
    const asset = await remoteAsset('huge.bin', { bytes: Buffer.alloc(MAX_BYTES + 1) }, 'application/octet-stream');
    expectError(await get(asset.path), 502, 'asset_too_large');
    // Its range is refused too: the whole size is what counts.
    expectError(await get(asset.path).set('Range', 'bytes=0-9'), 502, 'asset_too_large');
  });

  test('an origin slower than the timeout: 504 asset_origin_timeout with Retry-After, for the original and a variant', async () => {
    const asset = await remoteAsset('slow.png', { bytes: await solidImage(10, 10), delayMs: TIMEOUT_MS * 3 });
    // The origin answers after three timeouts: a 504 rather than the image shows the wait was cut at the
    // timeout (no wall-clock bound here: a loaded machine stretches it, and the status already says it).
    const res = await get(asset.path);
    expectError(res, 504, 'asset_origin_timeout');
    expect(res.headers['retry-after']).toBe('5');
    expectError(await get(`${asset.path}?w=5`), 504, 'asset_origin_timeout');
    expect(assets().originFetches()).toBe(0);
  });

  test('an origin that fails: 502 asset_origin_failed; a private object without signature (403): 502', async () => {
    const failing = await remoteAsset('broken.png', { bytes: await solidImage(10, 10), status: 500 });
    expectError(await get(failing.path), 502, 'asset_origin_failed');
    expectError(await get(`${failing.path}?w=5`), 502, 'asset_origin_failed');
    const locked = await remoteAsset('locked.png', { bytes: await solidImage(10, 10), signature: 'not-given' });
    expectError(await get(locked.path), 502, 'asset_origin_failed');
  });

  test('a body that stalls after its headers is cut off at the timeout; the turn is given back', async () => {
    const bytes = await solidImage(100, 100);
    const asset = await remoteAsset('stall.png', { bytes, stallAfter: 10 });
    const port = await portOf(app);
    // The headers were sent: the response cannot become an error document, only end short (cut connection).
    const outcome = await new Promise<{ status: number; received: number; cut: boolean }>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: asset.path, agent: false }, (res) => {
          let received = 0;
          res.on('data', (chunk: Buffer) => (received += chunk.length));
          res.on('error', () => undefined);
          res.on('close', () => resolve({ status: res.statusCode ?? 0, received, cut: !res.complete }));
        })
        .on('error', reject);
    });
    expect(outcome).toEqual({ status: 200, received: 10, cut: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(assets().originFetches()).toBe(0);
    // A transform of a stalled object: its download times out (504).
    expectError(await get(`${asset.path}?w=5`), 504, 'asset_origin_timeout');
  });

  test('more reads from origins than allowed at once: 503 asset_origin_busy with Retry-After', async () => {
    const slow = await remoteAsset('busy.png', { bytes: await solidImage(10, 10), delayMs: TIMEOUT_MS / 2 });
    const other = await remoteAsset('waiting.png', { bytes: await solidImage(10, 10) });
    // `.then` sends the request now (supertest sends on the first then).
    const held = Array.from({ length: FETCHES_IN_FLIGHT }, () => get(slow.path).then((res) => res));
    while (requestsFor(slow.key).length < FETCHES_IN_FLIGHT) await new Promise((resolve) => setTimeout(resolve, 5));
    const refused = await get(other.path);
    expectError(refused, 503, 'asset_origin_busy');
    expect(refused.headers['retry-after']).toBe('5');
    for (const res of await Promise.all(held)) expect(res.status).toBe(200);
    expect((await get(other.path)).status).toBe(200);
  });
});

describe('a provider that keeps files private', () => {
  type Provider = { isPrivate: () => unknown; getSignedUrl: (file: { url: string; hash: string }) => Promise<{ url: string }> };
  let restore: () => void;

  beforeAll(() => {
    const upload = app.strapi.plugin('upload') as unknown as { provider: Provider };
    const saved = { isPrivate: upload.provider.isPrivate, getSignedUrl: upload.provider.getSignedUrl };
    const configured = app.strapi.config.get('plugin::upload.provider');
    // What the S3 provider does with ACL private: a short-lived URL signed for the object.
    app.strapi.config.set('plugin::upload.provider', 'aws-s3');
    upload.provider.isPrivate = () => true;
    upload.provider.getSignedUrl = async (file) => ({ url: `${file.url}?signature=sig-${file.hash}` });
    restore = () => {
      Object.assign(upload.provider, saved);
      app.strapi.config.set('plugin::upload.provider', configured);
    };
  });
  afterAll(() => restore());

  test('its objects are read through the signed URL, originals and variants alike', async () => {
    const bytes = await solidImage(40, 40);
    const objectKey = `bucket/${Date.now()}-private.png`;
    const file = await storeRemoteFile(app.strapi, {
      name: 'private.png',
      url: store.urlOf(objectKey),
      size: bytes.length,
      mime: 'image/png',
    });
    store.put(objectKey, { bytes, signature: `sig-${file.hash}` });
    await publish(app.strapi, 'api::building.building', { name: 'private', slug: 'private', images: [file.id] });
    const read = await app.http().get('/api/v2/buildings/private').set('Authorization', key.auth);
    const assetPath = pathOf((read.body.data.attributes.images as { url: string }[])[0]!.url);

    const res = await get(assetPath);
    expect(res.status).toBe(200);
    expect(Buffer.compare(res.body, bytes)).toBe(0);
    const variant = await get(`${assetPath}?w=10&format=png`);
    expect(variant.status).toBe(200);
    expect((await sharp(variant.body).metadata()).width).toBe(10);
    expect(requestsFor(objectKey).map((request) => request.path)).toEqual([
      `/${objectKey}?signature=sig-${file.hash}`,
      `/${objectKey}?signature=sig-${file.hash}`,
    ]);
  });
});

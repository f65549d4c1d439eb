/**
 * Files for asset tests: stored the way the upload plugin stores them (a `files` row and the bytes under
 * public/uploads), including bytes the upload plugin itself would refuse to process (crafted headers,
 * corrupt images); crafted images; and fetching asset URLs as bytes.
 */
import { randomBytes } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Core } from '@strapi/strapi';
import sharp from 'sharp';

export type StoredFile = { id: number; documentId: string; name: string; hash: string; url: string };

/** A `files` row and its bytes on disk, as the local upload provider leaves them. */
export const storeFile = async (
  strapi: Core.Strapi,
  {
    name,
    bytes,
    mime,
    width = null,
    height = null,
  }: { name: string; bytes: Buffer; mime: string; width?: number | null; height?: number | null },
): Promise<StoredFile> => {
  const ext = path.extname(name);
  const hash = `${path
    .basename(name, ext)
    .replace(/[^A-Za-z0-9]/g, '_')
    .slice(0, 40)}_${randomBytes(5).toString('hex')}`;
  const url = `/uploads/${hash}${ext}`;
  fs.mkdirSync(path.join(strapi.dirs.static.public, 'uploads'), { recursive: true });
  fs.writeFileSync(path.join(strapi.dirs.static.public, url), bytes);
  const documentId = randomBytes(12).toString('hex').slice(0, 24);
  return (await strapi.db.query('plugin::upload.file').create({
    // Kilobytes with two decimals, as Strapi's upload service stores them.
    data: { documentId, name, hash, ext, mime, size: Math.round(bytes.length / 10) / 100, url, provider: 'local', width, height },
  })) as StoredFile;
};

/**
 * A `files` row of the S3 provider (provider `aws-s3`, an absolute URL) whose object is at `url`: what the
 * provider leaves after an upload; the bytes are wherever the test put them (test/helpers/object-store.ts).
 */
export const storeRemoteFile = async (
  strapi: Core.Strapi,
  {
    name,
    url,
    size,
    mime,
    width = null,
    height = null,
  }: { name: string; url: string; size: number; mime: string; width?: number | null; height?: number | null },
): Promise<StoredFile> => {
  const ext = path.extname(name);
  const hash = `${path
    .basename(name, ext)
    .replace(/[^A-Za-z0-9]/g, '_')
    .slice(0, 40)}_${randomBytes(5).toString('hex')}`;
  const documentId = randomBytes(12).toString('hex').slice(0, 24);
  return (await strapi.db.query('plugin::upload.file').create({
    data: { documentId, name, hash, ext, mime, size: Math.round(size / 10) / 100, url, provider: 'aws-s3', width, height },
  })) as StoredFile;
};

/** Where a stored file's bytes are. */
export const diskPathOf = (strapi: Core.Strapi, file: { url: string }) => path.join(strapi.dirs.static.public, file.url);

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

const crc32 = (bytes: Buffer): number => {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
};

const pngChunk = (type: string, data: Buffer): Buffer => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
};

/**
 * A valid PNG header declaring `width` x `height` RGB pixels, followed by one tiny IDAT: under 100 bytes
 * that a decoder would expand to width * height * 3 bytes.
 */
export const pngDeclaring = (width: number, height: number): Buffer => {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', zlib.deflateSync(Buffer.alloc(64))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
};

export const solidImage = (width: number, height: number, format: 'png' | 'jpeg' | 'webp' = 'png') =>
  sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } })
    .toFormat(format)
    .toBuffer();

/** A JPEG whose header is fine but whose data stops short. */
export const truncatedJpeg = async (): Promise<Buffer> => {
  const whole = await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .jpeg()
    .toBuffer();
  return whole.subarray(0, 600);
};

/** A 40 x 20 JPEG that says, in EXIF, it must be turned 90 degrees (so it shows 20 x 40), with a camera make. */
export const sidewaysJpeg = () =>
  sharp({ create: { width: 40, height: 20, channels: 3, background: { r: 10, g: 200, b: 10 } } })
    .jpeg()
    .withMetadata({ orientation: 6, exif: { IFD0: { Make: 'TestCamera', Copyright: 'secret-owner' } } })
    .toBuffer();

/**
 * Reads any response body as bytes (images, PDFs, SVG, JSON alike): a parser for supertest's `.parse()`.
 * superagent calls it with the node response stream; its typings name that `res` its own Response (also
 * a Stream), so the parameter asks only for what is used, an event emitter.
 */
export const asBytes = (res: EventEmitter, done: (error: Error | null, body: Buffer) => void) => {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => done(null, Buffer.concat(chunks)));
  res.on('error', (error: Error) => done(error, Buffer.alloc(0)));
};

/** The path and query of an absolute asset URL, to ask the test server. */
export const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/** The JSON of a response read with `asBytes`. */
export const jsonOf = (res: { body: Buffer }) => JSON.parse(res.body.toString('utf8'));

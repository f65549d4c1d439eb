/**
 * Content coding of documents (contract section 14): br or gzip, with node's zlib.
 *
 * - Only bodies of COMPRESSION_THRESHOLD_BYTES or more: below it the coding saves less than its headers
 *   and CPU cost.
 * - Levels were chosen by measurement (bench/compression-levels.ts, docs/benchmarks.md): the level past
 *   which each further KB saved costs much more CPU.
 * - Bodies up to SYNC_LIMIT_BYTES are compressed at once (a thread-pool round trip costs more than the
 *   work); larger ones on zlib's thread pool, so a big page never blocks the event loop.
 * - A document serialized in several chunks (http/json-chunks.ts) is fed to one zlib stream chunk by
 *   chunk, never copied into one buffer first: a 42 MB include document was held twice while it was
 *   compressed (issue 34, memory under the deepest include).
 * - Compressed bytes are kept by their entity tag (bounded): a document asked for again (the OpenAPI
 *   document, a popular page) is compressed once.
 *
 * Files (assets) never come here: they are sent as stored, and the image and PDF formats served are
 * compressed already.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { ContentCoding } from './accept-encoding';
import { CompressedCache } from './compressed-cache';

export const COMPRESSION_THRESHOLD_BYTES = 1024;
export const BROTLI_LEVEL = 4;
export const GZIP_LEVEL = 6;
export const SYNC_LIMIT_BYTES = 64 * 1024;
/** What the kept compressed representations may take together, and one at most. */
export const COMPRESSED_CACHE_BYTES = 32 * 1024 * 1024;
export const COMPRESSED_ENTRY_BYTES = 4 * 1024 * 1024;

const brotliOptions = (level: number, size: number): zlib.BrotliOptions => ({
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: level,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size,
  },
});

const brotliAsync = promisify(zlib.brotliCompress);
const gzipAsync = promisify(zlib.gzip);

/** The bytes in `coding` at `level`: synchronously for small bodies, on the thread pool for big ones. */
export const encode = async (bytes: Buffer, coding: ContentCoding, level?: number): Promise<Buffer> => {
  const sync = bytes.length <= SYNC_LIMIT_BYTES;
  if (coding === 'br') {
    const options = brotliOptions(level ?? BROTLI_LEVEL, bytes.length);
    return sync ? zlib.brotliCompressSync(bytes, options) : brotliAsync(bytes, options);
  }
  const options = { level: level ?? GZIP_LEVEL };
  return sync ? zlib.gzipSync(bytes, options) : gzipAsync(bytes, options);
};

/**
 * The bytes of `chunks`, in order, in `coding`: one chunk as `encode` does; several through one zlib
 * stream on the thread pool, so that only one chunk at a time is in zlib's hands and the document is
 * never in memory twice. Decoded, the result is the chunks' bytes; its bytes may differ from `encode`'s
 * of the joined chunks (where the encoder ends its blocks), which no tag depends on (http/entity-tags.ts).
 */
export const encodeChunks = async (chunks: readonly Buffer[], coding: ContentCoding, level?: number): Promise<Buffer> => {
  if (chunks.length === 1) return encode(chunks[0]!, coding, level);
  const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const encoder =
    coding === 'br'
      ? zlib.createBrotliCompress(brotliOptions(level ?? BROTLI_LEVEL, length))
      : zlib.createGzip({ level: level ?? GZIP_LEVEL });
  const out: Buffer[] = [];
  await pipeline(Readable.from(chunks), encoder, async (coded: AsyncIterable<Buffer>) => {
    for await (const piece of coded) out.push(piece);
  });
  return out.length === 1 ? out[0]! : Buffer.concat(out);
};

const cache = new CompressedCache(COMPRESSED_CACHE_BYTES, COMPRESSED_ENTRY_BYTES);

/**
 * The representation in `coding` of the document whose identity bytes are `chunks` and whose coded tag is
 * `tag` (null: untagged, not kept): kept, or compressed now and kept.
 */
export const compressed = async (chunks: readonly Buffer[], coding: ContentCoding, tag: string | null): Promise<Buffer> => {
  const kept = tag === null ? undefined : cache.get(tag);
  if (kept) return kept;
  const encoded = await encodeChunks(chunks, coding);
  if (tag !== null) cache.set(tag, encoded);
  return encoded;
};

/** For tests and benchmarks: what is kept, and forgetting it. */
export const compressedCache = {
  stats: () => ({ entries: cache.size, bytes: cache.totalBytes }),
  clear: () => cache.clear(),
};

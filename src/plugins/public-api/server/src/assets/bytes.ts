/**
 * The bytes of a file or variant, whole or one range, from disk (streamed), from memory, or from a
 * provider's origin (streamed as it arrives).
 */
import fs from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import type { ByteRange } from '../http/conditional';

export type Bytes = {
  size: number;
  /** The whole content or one range. Call at most once; the edge closes what it returns. */
  read: (range: ByteRange | null) => Readable | Buffer;
  /** Frees the bytes when they will not be read (304, 416). */
  release: () => Promise<void>;
  /**
   * Whether `read` can give this range (null: the whole). Absent: any range. Bytes that hold part of
   * the content (the range an origin was asked for) cover only that part.
   */
  covers?: (range: ByteRange | null) => boolean;
};

export const bufferBytes = (buffer: Buffer): Bytes => ({
  size: buffer.length,
  read: (range) => (range ? buffer.subarray(range.start, range.end + 1) : buffer),
  release: async () => undefined,
});

const GONE = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

/**
 * Opens a regular file, or answers null when there is none at that path. The file stays open until it
 * is read through or released, so a file deleted meanwhile (evicted, replaced) is still sent whole.
 */
export const openFileBytes = async (file: string): Promise<Bytes | null> => {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    if (GONE.has((error as NodeJS.ErrnoException).code ?? '')) return null;
    throw error;
  }
  let size: number;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      await handle.close();
      return null;
    }
    size = stat.size;
  } catch (error) {
    await handle.close();
    throw error;
  }
  let taken = false;
  return {
    size,
    read: (range) => {
      taken = true;
      // The stream owns the handle from here and closes it when it ends or is destroyed.
      return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    },
    release: async () => {
      if (!taken) await handle.close();
    },
  };
};

/** The first bytes of a file (fewer when it is shorter), or null when there is no such file. */
export const readHead = async (file: string, length: number): Promise<Buffer | null> => {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    if (GONE.has((error as NodeJS.ErrnoException).code ?? '')) return null;
    throw error;
  }
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } catch (error) {
    if (GONE.has((error as NodeJS.ErrnoException).code ?? '')) return null;
    throw error;
  } finally {
    await handle.close();
  }
};

/**
 * Bytes `start` to `start + length - 1` of content of `size` bytes, arriving on `body` (an origin's answer,
 * assets/origin.ts). `read` gives any range inside them: the bytes before it are skipped, and the body is
 * closed as soon as the range has been sent.
 */
export const streamedBytes = ({ size, start, length, body }: { size: number; start: number; length: number; body: Readable }): Bytes => {
  const covers = (range: ByteRange | null) =>
    range === null ? start === 0 && length === size : range.start >= start && range.end < start + length;
  return {
    size,
    covers,
    read: (range) => {
      if (!covers(range)) throw new Error('The bytes read are not those received.');
      if (range === null || (range.start === start && range.end === start + length - 1)) return body;
      let skip = range.start - start;
      let remaining = range.end - range.start + 1;
      const slice = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          if (remaining <= 0) return done();
          let part = chunk;
          if (skip > 0) {
            const dropped = Math.min(skip, part.length);
            skip -= dropped;
            part = part.subarray(dropped);
          }
          if (part.length > remaining) part = part.subarray(0, remaining);
          remaining -= part.length;
          if (part.length > 0) this.push(part);
          done();
          // The range is sent: the rest of the body is not wanted.
          if (remaining === 0) {
            this.push(null);
            body.destroy();
          }
        },
      });
      body.on('error', (error) => slice.destroy(error));
      slice.on('close', () => body.destroy());
      return body.pipe(slice);
    },
    release: async () => {
      body.destroy();
    },
  };
};

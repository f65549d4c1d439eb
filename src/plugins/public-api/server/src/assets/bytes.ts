/**
 * The bytes of a file or variant, whole or one range, from disk (streamed) or from memory.
 */
import fs from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { ByteRange } from '../http/conditional';

export type Bytes = {
  size: number;
  /** The whole content or one range. Call at most once; the edge closes what it returns. */
  read: (range: ByteRange | null) => Readable | Buffer;
  /** Frees the bytes when they will not be read (304, 416). */
  release: () => Promise<void>;
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

/**
 * Transformed images on disk, computed once (contract section 11).
 *
 * - A variant is stored under its key (a hash of the file's identity, content hash and normalized
 *   parameters) as `<dir>/<key[0..1]>/<key>.<format>`, written to a temporary name and renamed, so a
 *   reader never sees half a file.
 * - Concurrent requests for a variant that is not stored yet share one computation (single flight);
 *   they are answered from memory while it is written.
 * - The total size is bounded: the least recently used variants are deleted first. A variant counts what
 *   its file takes on disk (`diskUsage`: its allocated blocks, never less than its length), not its byte
 *   length: a 315-byte variant takes a whole 4 KiB block. Recency is kept in memory; after a restart the
 *   index is rebuilt from the directory, oldest modification first.
 *
 * The bound and the single flight hold per process. Instances that share a directory each keep their own
 * index: at worst a variant is computed once per instance, and one instance's eviction makes another
 * recompute (the open file of a response in progress is never cut short).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { bufferBytes, openFileBytes, type Bytes } from './bytes';

export type Variant<Format extends string> = { format: Format; bytes: Bytes };

export type VariantCacheStats = {
  /** Variants computed by this process (each one a transform). */
  computed: number;
  /** Requests answered from disk. */
  hits: number;
  /** Variants deleted to stay within the bound. */
  evicted: number;
  /** Variants and the bytes their files take on disk (blocks), as this process knows them. */
  entries: number;
  bytes: number;
};

type Entry = { format: string; size: number };

/**
 * What a file takes on disk: its allocated blocks (`blocks` counts 512-byte units on every POSIX system),
 * never less than its length (a file system that reports no blocks, or keeps small files inline).
 */
export const diskUsage = (stat: { size: number; blocks?: number }): number => Math.max(stat.size, (stat.blocks ?? 0) * 512);

const KEY = /^[0-9a-f]{64}$/;
const TEMPORARY_MARK = '.tmp-';

export type VariantCacheOptions = {
  dir: string;
  maxBytes: number;
  /** Told about what could not be cleaned up; the cache carries on. */
  warn?: (message: string) => void;
};

export const createVariantCache = <Format extends string>({ dir, maxBytes, warn = () => undefined }: VariantCacheOptions) => {
  // Map order is recency order: the first entry is the least recently used.
  const index = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<{ format: Format; buffer: Buffer }>>();
  const stats = { computed: 0, hits: 0, evicted: 0 };
  const writes = new Set<Promise<void>>();
  let total = 0;
  let loading: Promise<void> | null = null;

  const fileOf = (key: string, format: string) => path.join(dir, key.slice(0, 2), `${key}.${format}`);

  const remember = (key: string, entry: Entry) => {
    forget(key);
    index.set(key, entry);
    total += entry.size;
  };

  function forget(key: string) {
    const entry = index.get(key);
    if (!entry) return;
    index.delete(key);
    total -= entry.size;
  }

  const touch = (key: string, entry: Entry) => {
    index.delete(key);
    index.set(key, entry);
  };

  const unlink = async (file: string) => {
    await fs.rm(file, { force: true }).catch((error: Error) => warn(`could not delete ${file}: ${error.message}`));
  };

  /** Reads what an earlier run left on disk; leftovers of interrupted writes are deleted. */
  const scan = async () => {
    await fs.mkdir(dir, { recursive: true });
    const found: { key: string; entry: Entry; mtime: number }[] = [];
    for (const shard of await fs.readdir(dir, { withFileTypes: true })) {
      if (!shard.isDirectory()) continue;
      const shardDir = path.join(dir, shard.name);
      for (const name of await fs.readdir(shardDir)) {
        const file = path.join(shardDir, name);
        if (name.includes(TEMPORARY_MARK)) {
          await unlink(file);
          continue;
        }
        const [key = '', format = ''] = name.split('.');
        if (!KEY.test(key) || !format) continue;
        const stat = await fs.stat(file).catch(() => null);
        if (stat?.isFile()) found.push({ key, entry: { format, size: diskUsage(stat) }, mtime: stat.mtimeMs });
      }
    }
    found.sort((a, b) => a.mtime - b.mtime);
    for (const { key, entry } of found) remember(key, entry);
    await evict(null);
  };

  const ready = () => (loading ??= scan());

  /** Deletes least recently used variants until the total fits; `keep` goes last. */
  async function evict(keep: string | null) {
    while (total > maxBytes && index.size > 0) {
      const [key, entry] = index.entries().next().value as [string, Entry];
      if (key === keep && index.size > 1) {
        touch(key, entry);
        continue;
      }
      forget(key);
      stats.evicted += 1;
      await unlink(fileOf(key, entry.format));
    }
  }

  const store = async (key: string, format: Format, buffer: Buffer) => {
    const file = fileOf(key, format);
    const temporary = `${file}${TEMPORARY_MARK}${process.pid}-${randomBytes(4).toString('hex')}`;
    let size: number;
    try {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(temporary, buffer);
      size = diskUsage(await fs.stat(temporary));
      await fs.rename(temporary, file);
    } catch (error) {
      // A variant that cannot be stored is still served; it is computed again next time.
      warn(`could not store variant ${key}: ${(error as Error).message}`);
      await unlink(temporary);
      return;
    }
    remember(key, { format, size });
    await evict(key);
  };

  /**
   * Produces a variant; the requests waiting for it are answered as soon as it exists, and it is written
   * after their answers are on their way (the write starts on the next turn of the event loop). It stays
   * in flight until written, so no request computes it again meanwhile.
   */
  const compute = (key: string, produce: () => Promise<{ format: Format; buffer: Buffer }>) => {
    const flight = produce().then(
      (produced) => {
        stats.computed += 1;
        const writing = new Promise<void>((resolve) => setImmediate(resolve))
          .then(() => store(key, produced.format, produced.buffer))
          .catch((error: Error) => warn(`could not store variant ${key}: ${error.message}`))
          .finally(() => {
            inFlight.delete(key);
            writes.delete(writing);
          });
        writes.add(writing);
        return produced;
      },
      (error: unknown) => {
        inFlight.delete(key);
        throw error;
      },
    );
    inFlight.set(key, flight);
    return flight;
  };

  return {
    /**
     * The variant under `key`: from disk when stored, else from `produce`, called once however many
     * requests ask at the same time. A failure of `produce` reaches every waiting request and is not
     * remembered.
     */
    async get(key: string, produce: () => Promise<{ format: Format; buffer: Buffer }>): Promise<Variant<Format>> {
      if (!KEY.test(key)) throw new Error(`Not a variant key: ${key}`);
      await ready();
      for (;;) {
        const flight = inFlight.get(key);
        if (flight) {
          const { format, buffer } = await flight;
          return { format, bytes: bufferBytes(buffer) };
        }
        const entry = index.get(key);
        if (!entry) {
          const { format, buffer } = await compute(key, produce);
          return { format, bytes: bufferBytes(buffer) };
        }
        touch(key, entry);
        const bytes = await openFileBytes(fileOf(key, entry.format));
        if (bytes) {
          stats.hits += 1;
          return { format: entry.format as Format, bytes };
        }
        // Deleted behind our back (another instance, an operator): forget it and look again.
        if (index.get(key) === entry) forget(key);
      }
    },

    stats(): VariantCacheStats {
      return { ...stats, entries: index.size, bytes: total };
    },

    /** Waits for the index to be read from disk (startup). */
    ready,

    /** Waits until every variant computed so far is on disk (tests, shutdown). */
    async settled(): Promise<void> {
      while (writes.size > 0) await Promise.all([...writes]);
    },
  };
};

export type VariantCache<Format extends string> = ReturnType<typeof createVariantCache<Format>>;

/**
 * The variant cache on a real temporary directory: single flight, the size bound with least recently
 * used eviction (counted in what files take on disk), rebuilding after a restart, and files that
 * disappear behind its back.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { createVariantCache, diskUsage } from '../../src/plugins/public-api/server/src/assets/variant-cache';

let dir: string;
/** What one 100-byte variant takes on this file system (a whole block: 4096 bytes on ext4). */
let SLOT: number;
beforeAll(() => {
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-variants-probe-'));
  fs.writeFileSync(path.join(probe, 'probe'), Buffer.alloc(100));
  SLOT = diskUsage(fs.statSync(path.join(probe, 'probe')));
  fs.rmSync(probe, { recursive: true, force: true });
});
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-variants-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const keyOf = (n: number) => n.toString(16).padStart(64, '0');

const readAll = async (content: Readable | Buffer): Promise<Buffer> => {
  if (Buffer.isBuffer(content)) return content;
  const chunks: Buffer[] = [];
  for await (const chunk of content) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/** A producer that counts its calls and makes `size` bytes of `n`. */
const producer = (n: number, size = 100) => {
  const calls = { count: 0 };
  const produce = async () => {
    calls.count += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { format: 'png' as const, buffer: Buffer.alloc(size, n) };
  };
  return { calls, produce };
};

const filesOnDisk = () =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((shard) => fs.readdirSync(path.join(dir, shard.name)));

test('a variant is produced once, stored, then read from disk', async () => {
  const cache = createVariantCache<'png'>({ dir, maxBytes: 100 * SLOT });
  const { calls, produce } = producer(1);
  const first = await cache.get(keyOf(1), produce);
  await cache.settled();
  expect(first.format).toBe('png');
  expect(await readAll(first.bytes.read(null))).toEqual(Buffer.alloc(100, 1));
  const second = await cache.get(keyOf(1), produce);
  expect(second.bytes.size).toBe(100);
  expect(await readAll(second.bytes.read({ start: 10, end: 19 }))).toEqual(Buffer.alloc(10, 1));
  expect(calls.count).toBe(1);
  expect(cache.stats()).toEqual({ computed: 1, hits: 1, evicted: 0, entries: 1, bytes: SLOT });
  expect(filesOnDisk()).toEqual([`${keyOf(1)}.png`]);
});

test('concurrent requests share one production (single flight), also while it is being written', async () => {
  const cache = createVariantCache<'png'>({ dir, maxBytes: 100 * SLOT });
  const { calls, produce } = producer(2);
  const results = await Promise.all(Array.from({ length: 50 }, () => cache.get(keyOf(2), produce)));
  // Answered before the write finished: a request now joins the flight rather than computing again.
  results.push(await cache.get(keyOf(2), produce));
  await cache.settled();
  results.push(await cache.get(keyOf(2), produce));
  expect(calls.count).toBe(1);
  expect(cache.stats()).toMatchObject({ computed: 1, hits: 1, entries: 1 });
  for (const result of results) expect(await readAll(result.bytes.read(null))).toEqual(Buffer.alloc(100, 2));
});

test('a failed production reaches every waiting request and is not remembered', async () => {
  const cache = createVariantCache<'png'>({ dir, maxBytes: 100 * SLOT });
  let calls = 0;
  const failing = async () => {
    calls += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    throw new Error('cannot decode');
  };
  const results = await Promise.allSettled(Array.from({ length: 5 }, () => cache.get(keyOf(3), failing)));
  expect(results.every((result) => result.status === 'rejected')).toBe(true);
  expect(calls).toBe(1);
  const { calls: later, produce } = producer(3);
  await cache.get(keyOf(3), produce);
  expect(later.count).toBe(1);
  await cache.settled();
  expect(filesOnDisk()).toEqual([`${keyOf(3)}.png`]);
});

test('the total stays within the bound, least recently used first', async () => {
  const cache = createVariantCache<'png'>({ dir, maxBytes: Math.floor(2.5 * SLOT) });
  const get = async (n: number, produce = producer(n).produce) => {
    const variant = await cache.get(keyOf(n), produce);
    await cache.settled();
    // A hit holds the file open until it is read or released.
    await variant.bytes.release();
  };
  await get(1);
  await get(2);
  // 1 is used again, so 2 is now the least recently used.
  await get(1);
  await get(3);
  expect(cache.stats()).toMatchObject({ evicted: 1, entries: 2, bytes: 2 * SLOT });
  expect(filesOnDisk().sort()).toEqual([`${keyOf(1)}.png`, `${keyOf(3)}.png`]);
  const again = producer(2);
  await get(2, again.produce);
  expect(again.calls.count).toBe(1);
  // Now 1 was least recently used.
  expect(filesOnDisk().sort()).toEqual([`${keyOf(2)}.png`, `${keyOf(3)}.png`]);
});

test('a variant larger than the whole bound is served but not kept', async () => {
  const cache = createVariantCache<'png'>({ dir, maxBytes: Math.floor(SLOT / 2) });
  const result = await cache.get(keyOf(9), producer(9, 100).produce);
  await cache.settled();
  expect(await readAll(result.bytes.read(null))).toHaveLength(100);
  expect(cache.stats()).toMatchObject({ entries: 0, bytes: 0, evicted: 1 });
  expect(filesOnDisk()).toEqual([]);
});

test('after a restart the index is read back from disk, oldest first, and leftovers are removed', async () => {
  const before = createVariantCache<'png'>({ dir, maxBytes: 100 * SLOT });
  for (const n of [1, 2, 3]) {
    await before.get(keyOf(n), producer(n).produce);
    await before.settled();
    // Distinct modification times, oldest first.
    const shard = path.join(dir, keyOf(n).slice(0, 2), `${keyOf(n)}.png`);
    fs.utimesSync(shard, new Date(1_000_000 * n), new Date(1_000_000 * n));
  }
  const shardDir = path.join(dir, keyOf(1).slice(0, 2));
  fs.writeFileSync(path.join(shardDir, `${keyOf(4)}.png.tmp-123-abcd`), 'half');
  fs.writeFileSync(path.join(shardDir, 'not-a-variant.txt'), 'x');

  const after = createVariantCache<'png'>({ dir, maxBytes: Math.floor(2.5 * SLOT) });
  await after.ready();
  expect(after.stats()).toMatchObject({ entries: 2, bytes: 2 * SLOT, evicted: 1 });
  expect(filesOnDisk().sort()).toEqual([`${keyOf(2)}.png`, `${keyOf(3)}.png`, 'not-a-variant.txt']);
  const { calls, produce } = producer(3);
  // A hit holds the file open until it is read or released.
  await (await after.get(keyOf(3), produce)).bytes.release();
  expect(calls.count).toBe(0);
});

test('a variant deleted behind the cache is produced again', async () => {
  const cache = createVariantCache<'png'>({ dir, maxBytes: 100 * SLOT });
  await cache.get(keyOf(5), producer(5).produce);
  await cache.settled();
  fs.rmSync(path.join(dir, keyOf(5).slice(0, 2), `${keyOf(5)}.png`));
  const { calls, produce } = producer(5);
  const result = await cache.get(keyOf(5), produce);
  await cache.settled();
  expect(calls.count).toBe(1);
  expect(result.bytes.size).toBe(100);
  expect(cache.stats().bytes).toBe(SLOT);
});

test('an evicted variant being streamed is still sent whole', async () => {
  const cache = createVariantCache<'png'>({ dir, maxBytes: Math.floor(1.5 * SLOT) });
  await cache.get(keyOf(1), producer(1).produce);
  await cache.settled();
  const open = await cache.get(keyOf(1), producer(1).produce);
  await cache.get(keyOf(2), producer(2).produce);
  await cache.settled();
  expect(filesOnDisk()).toEqual([`${keyOf(2)}.png`]);
  expect(await readAll(open.bytes.read(null))).toEqual(Buffer.alloc(100, 1));
});

test('keys are hex digests; anything else is refused before touching the disk', async () => {
  const cache = createVariantCache<'png'>({ dir, maxBytes: 100 * SLOT });
  await expect(cache.get('../../etc/passwd', producer(1).produce)).rejects.toThrow(/Not a variant key/);
});

test('the bound counts the blocks a file takes on disk, not its byte length', async () => {
  const cache = createVariantCache<'png'>({ dir, maxBytes: 100 * SLOT });
  await cache.get(keyOf(1), producer(1, 1).produce);
  await cache.settled();
  const file = path.join(dir, keyOf(1).slice(0, 2), `${keyOf(1)}.png`);
  const stat = fs.statSync(file);
  expect(stat.size).toBe(1);
  expect(cache.stats().bytes).toBe(Math.max(1, stat.blocks * 512));
  // A whole block for one byte wherever blocks are reported (every POSIX file system of a server).
  if (stat.blocks > 0) expect(cache.stats().bytes).toBeGreaterThanOrEqual(512);
});

test('two hundred one-byte variants fill a bound of a hundred blocks, not of two hundred bytes', async () => {
  const cache = createVariantCache<'png'>({ dir, maxBytes: 100 * SLOT });
  for (let n = 1; n <= 200; n += 1) await cache.get(keyOf(n), producer(n, 1).produce);
  await cache.settled();
  const onDisk = filesOnDisk().map((name) => diskUsage(fs.statSync(path.join(dir, name.slice(0, 2), name))));
  expect(onDisk.reduce((sum, size) => sum + size, 0)).toBeLessThanOrEqual(100 * SLOT);
  expect(cache.stats().bytes).toBe(onDisk.reduce((sum, size) => sum + size, 0));
  expect(cache.stats().entries).toBeLessThanOrEqual(100);
});

test('diskUsage is the allocated blocks, never less than the length', () => {
  expect(diskUsage({ size: 315, blocks: 8 })).toBe(4096);
  expect(diskUsage({ size: 315, blocks: 0 })).toBe(315);
  expect(diskUsage({ size: 315 })).toBe(315);
  expect(diskUsage({ size: 10_000, blocks: 8 })).toBe(10_000);
});

/**
 * The cache of resolved asset URLs (assets/lookup-cache): what it keeps, for how long, and what a write
 * makes it forget, including lookups running at that moment.
 */
import { createLookupCache } from '../../src/plugins/public-api/server/src/assets/lookup-cache';

const clock = () => {
  let time = 1_000;
  return { now: () => time, advance: (ms: number) => void (time += ms) };
};

test('a found value is kept until it expires; then it is looked up again', async () => {
  const { now, advance } = clock();
  const cache = createLookupCache<string>({ ttlMs: 5_000, maxEntries: 10, now });
  const load = jest.fn(async () => 'file');
  expect(await cache.get('a', load)).toBe('file');
  advance(4_999);
  expect(await cache.get('a', load)).toBe('file');
  expect(load).toHaveBeenCalledTimes(1);
  advance(1);
  expect(await cache.get('a', load)).toBe('file');
  expect(load).toHaveBeenCalledTimes(2);
});

test('nothing found is never kept: a URL that starts to name a file is served at once', async () => {
  const cache = createLookupCache<string>({ ttlMs: 5_000, maxEntries: 10 });
  expect(await cache.get('a', async () => null)).toBeNull();
  expect(cache.size).toBe(0);
  expect(await cache.get('a', async () => 'file')).toBe('file');
});

test('invalidate forgets every entry', async () => {
  const cache = createLookupCache<string>({ ttlMs: 5_000, maxEntries: 10 });
  await cache.get('a', async () => 'old');
  await cache.get('b', async () => 'old');
  cache.invalidate();
  expect(cache.size).toBe(0);
  expect(await cache.get('a', async () => 'new')).toBe('new');
});

test('a lookup running while a write happens is answered but not kept', async () => {
  const cache = createLookupCache<string>({ ttlMs: 5_000, maxEntries: 10 });
  let release!: (value: string) => void;
  const pending = cache.get('a', () => new Promise<string>((resolve) => (release = resolve)));
  cache.invalidate();
  release('read before the write');
  expect(await pending).toBe('read before the write');
  expect(cache.size).toBe(0);
  expect(await cache.get('a', async () => 'after')).toBe('after');
});

test('at most maxEntries are kept, the least recently used go first', async () => {
  const cache = createLookupCache<string>({ ttlMs: 5_000, maxEntries: 3 });
  for (const key of ['a', 'b', 'c']) await cache.get(key, async () => key);
  await cache.get('a', async () => 'reloaded');
  await cache.get('d', async () => 'd');
  expect(cache.size).toBe(3);
  // `b` was the least recently used; `a` was used again and stays.
  expect(await cache.get('a', async () => 'reloaded')).toBe('a');
  expect(await cache.get('b', async () => 'reloaded')).toBe('reloaded');
});

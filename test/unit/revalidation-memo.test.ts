/**
 * The revalidation memo's bound (services/revalidation.ts): whatever reads clients revalidate, the memo
 * keeps at most MEMO_BYTES of keys and headers, dropping the least recently used first.
 */
import revalidation, { MEMO_BYTES, type ReadState } from '../../src/plugins/public-api/server/src/services/revalidation';

const memo = () => revalidation({ strapi: {} as never });

const state: ReadState = { grants: { resources: {}, commands: [], origins: [] }, preview: false, websites: null, locales: 'en', hour: 0 };
const mark = { txid: 0, seq: 1 };
/** A remembered page whose Cache-Tag names `records` record ids. */
const page = (records: number) => ({
  tag: '"abcdefghijklmnopqrstuvwxyz0"',
  compressible: true,
  headers: {
    'Cache-Control': 'private, no-cache',
    'Cache-Tag': Array.from({ length: records }, (_, i) => `r-${i}-xxxxxxxxxxxxxxxxxxxxxxxx`).join(','),
  },
  vary: ['Authorization', 'Accept-Encoding'],
});

test('many large pages stay within the byte bound, the least recently used leaving first', () => {
  const service = memo();
  const big = page(200); // about 6 KB
  for (let i = 0; i < 5000; i += 1) service.remember(`read-${i}`, state, mark, big);
  const { bytes, entries, stored } = service.stats();
  expect(stored).toBe(5000);
  expect(bytes).toBeLessThanOrEqual(MEMO_BYTES);
  expect(entries).toBeLessThan(5000);
  expect(entries).toBeGreaterThan(1000);
  // Remembering one more drops the oldest, not the newest.
  service.remember('read-newest', state, mark, big);
  expect(service.stats().bytes).toBeLessThanOrEqual(MEMO_BYTES);
});

test('remembering the same read again replaces it without counting it twice', () => {
  const service = memo();
  service.remember('read', state, mark, page(10));
  const once = service.stats().bytes;
  service.remember('read', state, mark, page(10));
  expect(service.stats()).toMatchObject({ entries: 1, bytes: once });
  service.clear();
  expect(service.stats()).toMatchObject({ entries: 0, bytes: 0 });
});

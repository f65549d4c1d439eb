/**
 * Chunked JSON serialization (http/json-chunks.ts): the bytes are exactly JSON.stringify's, whatever the
 * chunk size and the size of the parts handed to JSON.stringify whole.
 */
import fc from 'fast-check';
import { serializeInChunks } from '../../src/plugins/public-api/server/src/http/json-chunks';

const joined = async (value: unknown, chunkBytes: number, nativeNodes: number) =>
  Buffer.concat(await serializeInChunks(value, { chunkBytes, nativeNodes })).toString('utf8');

test('property: the same text as JSON.stringify, for any chunk size and native part size', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.jsonValue({ maxDepth: 6 }),
      fc.integer({ min: 1, max: 200 }),
      fc.integer({ min: 0, max: 20 }),
      async (value, chunkBytes, nativeNodes) => {
        expect(await joined(value, chunkBytes, nativeNodes)).toBe(JSON.stringify(value));
      },
    ),
  );
});

test('values without a JSON form, toJSON and non-finite numbers are written as JSON.stringify writes them', async () => {
  const value = {
    skipped: undefined,
    fn: () => 1,
    date: new Date('2026-11-24T12:00:00.000Z'),
    list: [undefined, () => 1, Symbol('s'), NaN, Infinity, -0, 'ü\u2028"\\'],
    nested: { toJSON: (key: string) => ({ key }) },
  };
  expect(await joined(value, 4, 0)).toBe(JSON.stringify(value));
});

test('a large document comes in several chunks, each a turn of the event loop apart', async () => {
  const value = {
    data: Array.from({ length: 2_000 }, (_, n) => ({ id: String(n), attributes: { title: `Event ${n}`, body: 'x'.repeat(100) } })),
  };
  let turns = 0;
  const ticking = setInterval(() => (turns += 1), 0);
  const chunks = await serializeInChunks(value, { chunkBytes: 16 * 1024, nativeNodes: 50 });
  clearInterval(ticking);
  expect(chunks.length).toBeGreaterThan(10);
  expect(Buffer.concat(chunks).toString('utf8')).toBe(JSON.stringify(value));
  expect(turns).toBeGreaterThan(0);
});

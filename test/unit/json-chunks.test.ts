/**
 * Chunked JSON serialization (http/json-chunks.ts): the bytes are exactly JSON.stringify's, whatever the
 * chunk size, the size of the parts handed to JSON.stringify whole and how far one count goes; and a
 * document's values are counted once, not again at every level.
 */
import fc from 'fast-check';
import { serializeInChunks } from '../../src/plugins/public-api/server/src/http/json-chunks';

const joined = async (value: unknown, chunkBytes: number, nativeNodes: number, sizingNodes = 64) =>
  Buffer.concat(await serializeInChunks(value, { chunkBytes, nativeNodes, sizingNodes })).toString('utf8');

test('property: the same text as JSON.stringify, for any chunk size, native part size and count size', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.jsonValue({ maxDepth: 6 }),
      fc.integer({ min: 1, max: 200 }),
      fc.integer({ min: 0, max: 20 }),
      fc.integer({ min: 0, max: 200 }),
      async (value, chunkBytes, nativeNodes, sizingNodes) => {
        expect(await joined(value, chunkBytes, nativeNodes, sizingNodes)).toBe(JSON.stringify(value));
      },
    ),
  );
});

test('property: a value shared by several parents is written wherever it appears', async () => {
  await fc.assert(
    fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), fc.integer({ min: 0, max: 10 }), async (shared, nativeNodes) => {
      const value = { a: [shared, { b: shared }], c: shared };
      expect(await joined(value, 16, nativeNodes, 30)).toBe(JSON.stringify(value));
    }),
  );
});

test('each value is read once to count it and once to write it, however deep (a count covers a whole part)', async () => {
  let reads = 0;
  let leaves = 0;
  /** Four levels of ten children; each leaf counts how often it is read. */
  const tree = (depth: number): unknown => {
    if (depth === 0) {
      leaves += 1;
      const leaf = {};
      Object.defineProperty(leaf, 'value', {
        enumerable: true,
        get: () => {
          reads += 1;
          return 'x';
        },
      });
      return leaf;
    }
    return Array.from({ length: 10 }, () => tree(depth - 1));
  };
  const value = tree(4);
  const text = Buffer.concat(await serializeInChunks(value, { chunkBytes: 1024, nativeNodes: 50, sizingNodes: 1_000_000 })).toString(
    'utf8',
  );
  const written = reads;
  expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
  expect(leaves).toBe(10_000);
  // Counting up to `nativeNodes` at every level read each leaf once per level above it that was too large.
  expect(written).toBe(2 * leaves);
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
  expect(await joined(value, 4, 0, 0)).toBe(JSON.stringify(value));
});

test('a large document comes in several chunks, each a turn of the event loop apart', async () => {
  const value = {
    data: Array.from({ length: 2_000 }, (_, n) => ({ id: String(n), attributes: { title: `Event ${n}`, body: 'x'.repeat(100) } })),
  };
  let turns = 0;
  const ticking = setInterval(() => (turns += 1), 0);
  const chunks = await serializeInChunks(value, { chunkBytes: 16 * 1024, nativeNodes: 50, sizingNodes: 1_000 });
  clearInterval(ticking);
  expect(chunks.length).toBeGreaterThan(10);
  expect(Buffer.concat(chunks).toString('utf8')).toBe(JSON.stringify(value));
  expect(turns).toBeGreaterThan(0);
});

test('a chunk of many pieces (its text encoded in parts) is the UTF-8 of JSON.stringify, characters past Latin-1 included', async () => {
  const text = (n: number) => `Ausstellung ${n}, 1950–1980 ${n % 7 === 0 ? '😀 ' : ''}Zürich ${'x'.repeat(n % 300)}`;
  const value = { data: Array.from({ length: 3_000 }, (_, n) => ({ id: String(n), attributes: { title: text(n), tags: [text(n + 1)] } })) };
  const chunks = await serializeInChunks(value, { chunkBytes: 256 * 1024, nativeNodes: 20, sizingNodes: 1_000 });
  // Several chunks, each far over one piece (16 K characters): pieces are joined inside chunks.
  expect(chunks.length).toBeGreaterThan(1);
  expect(chunks[0]!.length).toBeGreaterThan(200 * 1024);
  expect(Buffer.concat(chunks)).toEqual(Buffer.from(JSON.stringify(value)));
});

/**
 * What a response holds while it is prepared (issue 34, memory under the deepest include):
 *
 * - a document serialized in several chunks is compressed chunk by chunk (http/compression.ts
 *   `encodeChunks`): decoded, the bytes are the chunks' bytes, whatever the chunks and the coding;
 * - the handler's response (its objects, a large include's records) is not held once its bytes exist:
 *   it can be collected while they are tagged and compressed (http/respond.ts). Before, async functions
 *   up the chain kept it alive until the bytes had been compressed and sent.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { encodeChunks } from '../../src/plugins/public-api/server/src/http/compression';
import { prepareResponse } from '../../src/plugins/public-api/server/src/http/respond';

const decode = (bytes: Buffer, coding: 'gzip' | 'br') => (coding === 'br' ? zlib.brotliDecompressSync(bytes) : zlib.gunzipSync(bytes));

test('property: chunks compressed one by one decode to the chunks joined, in gzip and br', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.uint8Array({ maxLength: 4096 }), { minLength: 1, maxLength: 12 }),
      fc.constantFrom<'gzip' | 'br'>('gzip', 'br'),
      async (pieces, coding) => {
        const chunks = pieces.map((piece) => Buffer.from(piece));
        expect(decode(await encodeChunks(chunks, coding), coding).equals(Buffer.concat(chunks))).toBe(true);
      },
    ),
    { numRuns: 60 },
  );
});

test('a large document in many chunks decodes to its bytes', async () => {
  const text = JSON.stringify({ data: Array.from({ length: 20_000 }, (_, i) => ({ id: String(i), title: `Event ${i}` })) });
  const chunks = [];
  for (let at = 0; at < text.length; at += 64 * 1024) chunks.push(Buffer.from(text.slice(at, at + 64 * 1024)));
  expect(chunks.length).toBeGreaterThan(5);
  for (const coding of ['gzip', 'br'] as const) expect(decode(await encodeChunks(chunks, coding), coding).toString('utf8')).toBe(text);
});

/** The collector, asked for by a test only: Jest's own process runs without --expose-gc. */
const collectGarbage = (): (() => void) => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
};

test('the response is not held once its bytes exist: collectable while they are compressed', async () => {
  const gc = collectGarbage();
  // Built inside a function: the test keeps only a weak reference to the response.
  const start = () => {
    const body = {
      data: Array.from({ length: 30_000 }, (_, i) => ({ type: 'events', id: String(i), attributes: { title: `Event ${i}`, n: i } })),
    };
    const response = { kind: 'document', status: 200, document: body } as const;
    const weak = new WeakRef(body);
    const preparing = prepareResponse(response, { method: 'GET', acceptEncoding: 'gzip', ifNoneMatch: undefined, cachePolicy: null });
    return { weak, preparing };
  };
  const { weak, preparing } = start();
  let prepared = false;
  void preparing.then(() => (prepared = true));
  let collectedFirst = false;
  // Turns of the event loop until the response is prepared: the document is serialized in chunks, then
  // tagged and compressed on the thread pool; the body must be gone before the response is ready.
  while (!prepared) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    if (weak.deref() === undefined && !prepared) {
      collectedFirst = true;
      break;
    }
  }
  const outgoing = await preparing;
  expect(outgoing.headers['Content-Encoding']).toBe('gzip');
  expect(collectedFirst).toBe(true);
  // A full collection at every turn of the event loop: seconds on a loaded machine, never an assertion.
}, 120_000);

/**
 * The local webhook receiver of docs/api.md (scripts/webhook-receiver.js): its signature check against what
 * the plugin sends, signed by the Standard Webhooks reference library.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { eventBody, signedHeaders } from '../../src/plugins/public-api/server/src/webhooks/message';
import { generateSecret } from '../../src/plugins/public-api/server/src/webhooks/secret';

const { signatureProblem, TOLERANCE_SECONDS } = require('../../scripts/webhook-receiver.js') as {
  signatureProblem: (secret: string, headers: Record<string, string | undefined>, body: Buffer, nowSeconds?: number) => string | null;
  TOLERANCE_SECONDS: number;
};

const secret = generateSecret();
const at = new Date('2026-12-07T12:00:00Z');
const now = Math.floor(at.getTime() / 1000);
const body = eventBody('record.updated', at, { type: 'events', id: 'x8k2', attributes: { title: 'Open rehearsal' } });

test('what the plugin sends is verified', () => {
  expect(signatureProblem(secret, signedHeaders('msg_1_2', body, [secret], at), Buffer.from(body), now)).toBeNull();
});

test('a rotated secret: either of the two signatures is enough', () => {
  const previous = generateSecret();
  const headers = signedHeaders('msg_1_2', body, [secret, previous], at);
  expect(signatureProblem(secret, headers, Buffer.from(body), now)).toBeNull();
  expect(signatureProblem(previous, headers, Buffer.from(body), now)).toBeNull();
  expect(signatureProblem(generateSecret(), headers, Buffer.from(body), now)).toBe('no signature matches the secret');
});

test('refused: another body, another id, another secret, an old or future timestamp, missing headers', () => {
  const headers = signedHeaders('msg_1_2', body, [secret], at);
  expect(signatureProblem(secret, headers, Buffer.from(body.replace('Open', 'Shut')), now)).toBe('no signature matches the secret');
  expect(signatureProblem(secret, { ...headers, 'webhook-id': 'msg_1_3' }, Buffer.from(body), now)).toBe('no signature matches the secret');
  expect(signatureProblem(generateSecret(), headers, Buffer.from(body), now)).toBe('no signature matches the secret');
  expect(signatureProblem(secret, headers, Buffer.from(body), now + TOLERANCE_SECONDS + 1)).toBe('timestamp too old or too new');
  expect(signatureProblem(secret, headers, Buffer.from(body), now - TOLERANCE_SECONDS - 1)).toBe('timestamp too old or too new');
  expect(signatureProblem(secret, { ...headers, 'webhook-signature': 'v2,abc' }, Buffer.from(body), now)).toBe(
    'no signature matches the secret',
  );
  expect(signatureProblem(secret, { ...headers, 'webhook-signature': undefined }, Buffer.from(body), now)).toContain('missing');
});

test('property: every body the plugin signs is verified, and any one changed byte is refused', () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.nat(), fc.integer({ min: 0, max: 255 }), (data, position, byte) => {
      const text = eventBody('record.published', at, data);
      const headers = signedHeaders('msg_7_9', text, [secret], at);
      const bytes = Buffer.from(text);
      expect(signatureProblem(secret, headers, bytes, now)).toBeNull();
      const changed = Buffer.from(bytes);
      const index = position % changed.length;
      if (changed[index] === byte) return;
      changed[index] = byte;
      expect(signatureProblem(secret, headers, changed, now)).toBe('no signature matches the secret');
    }),
    { numRuns: 200 },
  );
});

test("docs/api.md's example delivery is signed with its example secret, over its body byte for byte", () => {
  const docs = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'api.md'), 'utf8');
  const block = /```http\nPOST \/hooks HTTP\/1\.1\n([\s\S]*?)\n```/.exec(docs)![1]!;
  const [head, example] = block.split('\n\n') as [string, string];
  const headers = Object.fromEntries(head.split('\n').map((line) => line.split(': ') as [string, string]));
  const exampleSecret = /example secret\s+`(whsec_[^`]+)`/.exec(docs)![1]!;
  const timestamp = Number(headers['webhook-timestamp']);
  expect(signatureProblem(exampleSecret, headers, Buffer.from(example), timestamp)).toBeNull();
  // A payload carries relations as references in attributes, and the document id as `id`.
  const event = JSON.parse(example) as { data: Record<string, unknown> };
  expect(Object.keys(event.data).sort()).toEqual(['attributes', 'id', 'meta', 'type']);
  expect(event.data.id).not.toBe((event.data.meta as { slug: string }).slug);
});

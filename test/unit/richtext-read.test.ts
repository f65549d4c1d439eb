import { contentIdentity, deriveAssetKey } from '../../src/plugins/public-api/server/src/assets/token';
import { assetUrl } from '../../src/plugins/public-api/server/src/serialize/assets';
import type { RichtextDoc } from '../../src/plugins/public-api/server/src/richtext';
import {
  createRichtextReader,
  imageIdsOf,
  richtextIdentity,
  withCurrentImages,
} from '../../src/plugins/public-api/server/src/serialize/richtext-read';

const key = deriveAssetKey('a-server-secret-of-at-least-32-characters');
const blocks = (text: string) =>
  JSON.stringify([
    { type: 'paragraph', children: [{ type: 'text', text }] },
    {
      type: 'image',
      image: { documentId: 'file1', hash: 'h1', name: 'a b.png', url: '/uploads/h1.png', width: 2, height: 1, mime: 'image/png' },
      children: [{ type: 'text', text: '' }],
    },
  ]);

const identity = (rowId: number, updatedAt: unknown = 1_700_000_000_000) => richtextIdentity('api::event.event', rowId, 'body', updatedAt);

test('a cached conversion equals a fresh one, and the base URL is part of the key', () => {
  const read = createRichtextReader();
  const first = read(blocks('hello'), 'https://a.example/api/v2', key, identity(1));
  const again = read(blocks('hello'), 'https://a.example/api/v2', key, identity(1));
  const fresh = createRichtextReader()(blocks('hello'), 'https://a.example/api/v2', key);
  expect(again).toBe(first);
  expect(fresh).toEqual(first);
  const other = read(blocks('hello'), 'https://b.example/api/v2', key, identity(1)) as { content: { attrs?: { src: string } }[] };
  expect(other.content[1]!.attrs!.src).toMatch(/^https:\/\/b\.example\/api\/v2\/assets\/[A-Za-z0-9_-]{32}\/a%20b\.png$/);
});

test('the cache is keyed by record identity and version: a new updatedAt or another length converts again', () => {
  const read = createRichtextReader();
  const first = read(blocks('hello'), 'u', key, identity(1));
  // Another row, or the same row changed (a new updatedAt), is another conversion.
  expect(read(blocks('hello'), 'u', key, identity(2))).not.toBe(first);
  const changed = read(blocks('hello, changed'), 'u', key, identity(1, 1_700_000_000_001)) as RichtextDoc;
  expect(JSON.stringify(changed)).toContain('hello, changed');
  // A value changed behind Strapi's back (same updatedAt) is still seen when its length differs.
  const edited = read(blocks('hello!'), 'u', key, identity(1)) as RichtextDoc;
  expect(JSON.stringify(edited)).toContain('hello!');
  // PostgreSQL hands over parsed JSON, and dates as Date objects: the same identity.
  expect(identity(3, new Date(1_700_000_000_000))).toBe(identity(3, 1_700_000_000_000));
  const parsed = read(JSON.parse(blocks('pg')), 'u', key, identity(3));
  expect(read(JSON.parse(blocks('pg')), 'u', key, identity(3))).toBe(parsed);
});

test('without an identity nothing is kept', () => {
  const read = createRichtextReader();
  const first = read(blocks('hello'), 'u', key);
  expect(read(blocks('hello'), 'u', key)).not.toBe(first);
  expect(read(blocks('hello'), 'u', key)).toEqual(first);
});

test('parsed values are converted, unparseable text is null', () => {
  const read = createRichtextReader();
  expect(read(JSON.parse(blocks('x')), 'https://a.example/api/v2', key)).toEqual(read(blocks('x'), 'https://a.example/api/v2', key));
  expect(read('{not json', 'https://a.example/api/v2', key, identity(5))).toBeNull();
  expect(read('{"not":"blocks"}', 'https://a.example/api/v2', key, identity(6))).toBeNull();
});

test('the cache stays within its bound of characters: the least recently used go first', () => {
  const source = blocks('y'.repeat(100));
  const read = createRichtextReader(source.length * 30);
  const a = read(source.replace('yy', 'a1'), 'u', key, identity(0));
  for (let i = 1; i <= 40; i += 1) read(source.replace('yy', `n${String(i).padStart(2, '0')}`), 'u', key, identity(i));
  // `a` was evicted: a new conversion is a new object (equal, not identical).
  const aAgain = read(source.replace('yy', 'a1'), 'u', key, identity(0));
  expect(aAgain).toEqual(a);
  expect(aAgain).not.toBe(a);
});

test('the cache stays within its bound of entries', () => {
  const read = createRichtextReader(8_000_000, 10);
  const docs = Array.from({ length: 30 }, (_, i) => read(blocks('b'), 'u', key, identity(i)));
  // Ten at most are kept, the last ten (read newest first: a miss would put its value in again).
  const hits = docs.map((_, i) => 29 - i).filter((i) => read(blocks('b'), 'u', key, identity(i)) === docs[i]);
  expect(hits).toEqual([29, 28, 27, 26, 25, 24, 23, 22, 21, 20]);
});

test('an entry read again gets a second chance before it is dropped, once', () => {
  const read = createRichtextReader(8_000_000, 10);
  const a = read(blocks('a'), 'u', key, identity(0));
  expect(read(blocks('a'), 'u', key, identity(0))).toBe(a);
  // Ten more: the oldest entry was read, so the next one goes instead.
  for (let i = 1; i <= 10; i += 1) read(blocks('b'), 'u', key, identity(i));
  expect(read(blocks('a'), 'u', key, identity(0))).toBe(a);
  // Marked again by that read; twenty more without reading it, and it is gone.
  for (let i = 11; i <= 30; i += 1) read(blocks('b'), 'u', key, identity(i));
  expect(read(blocks('a'), 'u', key, identity(0))).not.toBe(a);
});

describe('images as their files are now', () => {
  const base = 'https://a.example/api/v2';
  const doc = createRichtextReader()(blocks('now'), base, key) as RichtextDoc;
  const stored = { documentId: 'file1', hash: 'h1', version: null, name: 'a b.png', width: 2, height: 1, mime: 'image/png' };

  test("the ids of a document's images", () => {
    expect(imageIdsOf(doc)).toEqual(['file1']);
    expect(imageIdsOf(null)).toEqual([]);
  });

  test('a file as stored leaves the very same document', () => {
    expect(withCurrentImages(doc, new Map([['file1', stored]]), base, key)).toBe(doc);
    expect(withCurrentImages(doc, new Map(), base, key)).toBe(doc);
    expect(withCurrentImages(doc, new Map([['other', { ...stored, documentId: 'other' }]]), base, key)).toBe(doc);
  });

  test('a renamed or replaced file changes src, fileName, dimensions and type, in a copy', () => {
    const before = JSON.stringify(doc);
    for (const now of [
      { ...stored, name: 'new name.png' },
      { ...stored, version: 'abc', width: 10, height: 20, mime: 'image/jpeg' },
    ]) {
      const current = withCurrentImages(doc, new Map([['file1', now]]), base, key)!;
      expect(current).not.toBe(doc);
      const attrs = current.content[1]!.type === 'image' ? current.content[1]!.attrs : null;
      expect(attrs!.src).toBe(assetUrl(base, key, now));
      expect(attrs!.fileName).toBe(now.name);
      expect([attrs!.width, attrs!.height, attrs!.mimeType]).toEqual([now.width, now.height, now.mime]);
      expect(attrs!.alt).toBe(null);
      expect(current.content[0]).toBe(doc.content[0]);
    }
    // The cached document itself is never changed.
    expect(JSON.stringify(doc)).toBe(before);
  });

  test('the content version is part of the identity only when there is one', () => {
    expect(contentIdentity(stored)).toBe('file1:h1');
    expect(contentIdentity({ ...stored, version: 'abc' })).toBe('file1:h1:abc');
  });
});

/**
 * Pages and single records written as bytes in the handler (serialize/document-bytes.ts): the bytes are
 * exactly those of JSON.stringify's text in UTF-8, whatever the members and wherever `meta.fields` is kept,
 * and a page whose records pass the budget is left to the chunked serializer.
 */
import fc from 'fast-check';
import { documentBytes, recordDocumentBytes } from '../../src/plugins/public-api/server/src/serialize/document-bytes';
import { createRecordTextCache } from '../../src/plugins/public-api/server/src/serialize/record-texts';

const jsonObject = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 }));
const utf8 = (value: unknown) => Buffer.from(JSON.stringify(value));

test('property: the same bytes as JSON.stringify in UTF-8 when the records fit the budget', () => {
  fc.assert(
    fc.property(jsonObject, fc.array(fc.jsonValue({ maxDepth: 5 }), { maxLength: 20 }), (head, data) => {
      const document = { ...head, data };
      delete (document as Record<string, unknown>).data;
      const ordered = { ...document, data };
      expect(documentBytes(ordered, Number.MAX_SAFE_INTEGER)).toEqual(utf8(ordered));
    }),
  );
});

test('property: text past Latin-1 anywhere (astral characters, lone surrogates) is encoded as a whole text would be', () => {
  const text = fc.string({ unit: 'binary' });
  fc.assert(
    fc.property(text, fc.array(fc.record({ title: text, tags: fc.array(text, { maxLength: 3 }) }), { maxLength: 8 }), (self, data) => {
      const document = { links: { self }, data };
      expect(documentBytes(document, Number.MAX_SAFE_INTEGER)).toEqual(utf8(document));
    }),
  );
});

test('property: null as soon as the records pass the budget, the bytes otherwise', () => {
  fc.assert(
    fc.property(fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 1, maxLength: 10 }), fc.nat(400), (data, budget) => {
      const document = { meta: { page: { nextCursor: null } }, data };
      const needed = data.reduce<number>((sum, item) => sum + JSON.stringify(item).length + 1, 0);
      expect(documentBytes(document, budget)).toEqual(needed > budget ? null : utf8(document));
    }),
  );
});

test('a page document: links, meta with undefined members left out, records with unicode', () => {
  const document = {
    jsonapi: { version: '1.1' },
    links: { self: 'https://example.test/api/v2/events?limit=2' },
    meta: {
      resource: { name: 'Events', slug: 'events', mode: 'collection' },
      fields: [{ key: 'title', hint: undefined }],
      page: { nextCursor: null },
    },
    data: [
      { type: 'events', id: 'a', attributes: { title: 'Fête \u2028 "quoted" 1950–1980 😀', skipped: undefined }, meta: { slug: 'a' } },
      { type: 'events', id: 'b', attributes: { title: null }, meta: { slug: null } },
      undefined,
    ],
  };
  expect(documentBytes(document, 10_000)).toEqual(utf8(document));
  expect(documentBytes({ data: [] }, 0)).toEqual(utf8({ data: [] }));
});

test('a document whose last member is not data is refused', () => {
  expect(() => documentBytes({ data: [], meta: {} }, 100)).toThrow(/end with its data/);
});

/** Documents with a `meta` of any members, `fields` among them (a list, or any other value), before `data`. */
const withMeta = fc.record({
  head: jsonObject,
  meta: fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.record({ before: jsonObject, fields: fc.jsonValue({ maxDepth: 4 }), after: jsonObject }),
  ),
});
type MetaParts = { before: Record<string, unknown>; fields: unknown; after: Record<string, unknown> };
const shaped = <T>({ head, meta }: { head: Record<string, unknown>; meta: unknown }, data: T) => {
  const { data: _data, meta: _meta, ...rest } = head;
  const parts = typeof meta === 'object' && meta !== null && 'before' in meta ? (meta as MetaParts) : null;
  const metaObject = parts ? { ...parts.before, fields: parts.fields, ...parts.after } : meta;
  return { ...rest, meta: metaObject, data };
};

test('property: a page with any meta, fields and all, is the bytes of JSON.stringify', () => {
  fc.assert(
    fc.property(withMeta, fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 6 }), (parts, data) => {
      const document = shaped(parts, data);
      expect(documentBytes(document, Number.MAX_SAFE_INTEGER)).toEqual(utf8(document));
    }),
  );
});

test('property: a single record document is the bytes of JSON.stringify, its record kept or not', () => {
  const cache = createRecordTextCache(1_000_000);
  const partition = cache.partition<object>('test');
  let row = 0;
  fc.assert(
    fc.property(withMeta, fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })), fc.boolean(), (parts, record, kept) => {
      if (kept) partition.keep((row += 1), [row], record);
      const document = shaped(parts, record);
      expect(recordDocumentBytes(document)).toEqual(utf8(document));
      // Twice: the second time from the kept record bytes and field list text.
      expect(recordDocumentBytes(document)).toEqual(utf8(document));
    }),
  );
});

test('a field list is written once and its text kept: the same list is not written again', () => {
  const fields = [{ key: 'title', type: 'string', readable: true }];
  const stringify = jest.spyOn(JSON, 'stringify');
  try {
    const document = {
      links: { self: 'https://example.test/api/v2/events/a' },
      meta: { resource: { slug: 'events' }, fields },
      data: { id: 'a' },
    };
    const first = recordDocumentBytes(document);
    const calls = () => stringify.mock.calls.filter(([value]) => value === fields).length;
    expect(calls()).toBe(1);
    expect(recordDocumentBytes({ ...document, links: { self: 'https://example.test/api/v2/events/b' } }).toString()).toBe(
      JSON.stringify({ ...document, links: { self: 'https://example.test/api/v2/events/b' } }),
    );
    expect(calls()).toBe(1);
    expect(first).toEqual(utf8(document));
  } finally {
    stringify.mockRestore();
  }
});

test('a single record document whose last member is not data is refused', () => {
  expect(() => recordDocumentBytes({ data: {}, meta: {} })).toThrow(/end with its data/);
});

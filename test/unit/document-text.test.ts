/**
 * A page written as text in the handler (serialize/document-text.ts): the bytes are exactly
 * JSON.stringify's, and a page whose records pass the budget is left to the chunked serializer.
 */
import fc from 'fast-check';
import { documentText } from '../../src/plugins/public-api/server/src/serialize/document-text';

const jsonObject = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 }));

test('property: the same text as JSON.stringify when the records fit the budget', () => {
  fc.assert(
    fc.property(jsonObject, fc.array(fc.jsonValue({ maxDepth: 5 }), { maxLength: 20 }), (head, data) => {
      const document = { ...head, data };
      delete (document as Record<string, unknown>).data;
      const ordered = { ...document, data };
      expect(documentText(ordered, Number.MAX_SAFE_INTEGER)).toBe(JSON.stringify(ordered));
    }),
  );
});

test('property: null as soon as the records pass the budget, the text otherwise', () => {
  fc.assert(
    fc.property(fc.array(fc.jsonValue({ maxDepth: 3 }), { minLength: 1, maxLength: 10 }), fc.nat(400), (data, budget) => {
      const document = { meta: { page: { nextCursor: null } }, data };
      const needed = data.reduce<number>((sum, item) => sum + JSON.stringify(item).length + 1, 0);
      expect(documentText(document, budget)).toBe(needed > budget ? null : JSON.stringify(document));
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
      { type: 'events', id: 'a', attributes: { title: 'Fête \u2028 "quoted"', skipped: undefined }, meta: { slug: 'a' } },
      { type: 'events', id: 'b', attributes: { title: null }, meta: { slug: null } },
    ],
  };
  expect(documentText(document, 10_000)).toBe(JSON.stringify(document));
});

test('a document whose last member is not data is refused', () => {
  expect(() => documentText({ data: [], meta: {} }, 100)).toThrow(/end with its data/);
});

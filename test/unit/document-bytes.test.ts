/**
 * Pages and single records written as bytes in the handler (serialize/document-bytes.ts): the bytes are
 * exactly those of JSON.stringify's text in UTF-8, whatever the members and wherever `meta.fields` is kept;
 * a page is written from its kept records' bytes whatever its size (issue 37), and gives the event loop a
 * turn after each budget of text it writes now.
 */
import fc from 'fast-check';
import { documentBytes, recordDocumentBytes } from '../../src/plugins/public-api/server/src/serialize/document-bytes';
import { createRecordTextCache } from '../../src/plugins/public-api/server/src/serialize/record-texts';

const jsonObject = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 }));
const utf8 = (value: unknown) => Buffer.from(JSON.stringify(value));

test('property: the same bytes as JSON.stringify in UTF-8, whatever the budget', async () => {
  await fc.assert(
    fc.asyncProperty(jsonObject, fc.array(fc.jsonValue({ maxDepth: 5 }), { maxLength: 20 }), fc.nat(400), async (head, data, budget) => {
      const document = { ...head, data };
      delete (document as Record<string, unknown>).data;
      const ordered = { ...document, data };
      expect(await documentBytes(ordered, budget)).toEqual(utf8(ordered));
    }),
  );
});

test('property: text past Latin-1 anywhere (astral characters, lone surrogates) is encoded as a whole text would be', async () => {
  const text = fc.string({ unit: 'binary' });
  await fc.assert(
    fc.asyncProperty(
      text,
      fc.array(fc.record({ title: text, tags: fc.array(text, { maxLength: 3 }) }), { maxLength: 8 }),
      async (self, data) => {
        const document = { links: { self }, data };
        expect(await documentBytes(document, Number.MAX_SAFE_INTEGER)).toEqual(utf8(document));
      },
    ),
  );
});

test('a page document: links, meta with undefined members left out, records with unicode', async () => {
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
  expect(await documentBytes(document, 10_000)).toEqual(utf8(document));
  expect(await documentBytes({ data: [] }, 0)).toEqual(utf8({ data: [] }));
});

/** `count` records of about `chars` characters of JSON each, kept by their inputs in `cache`. */
const keptRecords = (cache: ReturnType<typeof createRecordTextCache>, count: number, chars: number) => {
  const partition = cache.partition<object>('events');
  return Array.from({ length: count }, (_, index) => {
    const record = { type: 'events', id: `event-${index}`, attributes: { title: 'Fête 1950–1980', body: 'x'.repeat(chars) } };
    partition.keep(index + 1, [`event-${index}`], record);
    return record;
  });
};

/** The records among `data` that JSON.stringify is asked to write while `write` runs. */
const recordsWritten = async (data: readonly object[], write: () => Promise<unknown>): Promise<number> => {
  const records = new Set<unknown>(data);
  const stringify = jest.spyOn(JSON, 'stringify');
  try {
    await write();
    return stringify.mock.calls.filter(([value]) => records.has(value)).length;
  } finally {
    stringify.mockRestore();
  }
};

test('issue 37: a page of kept records is written from their bytes whether or not it passes the budget', async () => {
  // 90 records of about 2,700 characters fit in a budget of 256 KiB, 100 do not: the demo events' page.
  const budget = 256 * 1024;
  const records = keptRecords(createRecordTextCache(10_000_000), 100, 2_580);
  const page = (limit: number) => ({ links: { self: `https://example.test/api/v2/events?limit=${limit}` }, data: records.slice(0, limit) });
  const textOf = (limit: number) => JSON.stringify(page(limit).data).length;
  expect(textOf(90)).toBeLessThan(budget);
  expect(textOf(100)).toBeGreaterThan(budget);
  // The first read writes each record once, and keeps its bytes.
  expect(await recordsWritten(records, () => documentBytes(page(100), budget))).toBe(100);
  for (const limit of [90, 100]) {
    let bytes: Buffer | undefined;
    // Read again, neither page writes a record: both are their kept bytes, joined.
    expect(await recordsWritten(records, async () => (bytes = await documentBytes(page(limit), budget)))).toBe(0);
    expect(bytes).toEqual(utf8(page(limit)));
  }
});

test('issue 37: records written now give the event loop a turn after each budget of text; kept bytes do not', async () => {
  const budget = 10_000;
  const turnsWhile = async (write: () => Promise<Buffer>) => {
    let turns = 0;
    let counting = true;
    const count = () => {
      if (!counting) return;
      turns += 1;
      setImmediate(count);
    };
    setImmediate(count);
    const bytes = await write();
    counting = false;
    return { turns, bytes };
  };
  // 10 records of about 3,000 characters: two turns while they are written (after the 4th and the 8th record).
  const fresh = Array.from({ length: 10 }, (_, index) => ({ id: `r${index}`, body: 'y'.repeat(3_000) }));
  const written = await turnsWhile(() => documentBytes({ data: fresh }, budget));
  expect(written.bytes).toEqual(utf8({ data: fresh }));
  expect(written.turns).toBe(2);
  // Kept and written before: copied, no turn, however many.
  const kept = keptRecords(createRecordTextCache(10_000_000), 10, 3_000);
  await documentBytes({ data: kept }, budget);
  const copied = await turnsWhile(() => documentBytes({ data: kept }, budget));
  expect(copied.bytes).toEqual(utf8({ data: kept }));
  expect(copied.turns).toBe(0);
});

test('a document whose last member is not data is refused', async () => {
  await expect(documentBytes({ data: [], meta: {} }, 100)).rejects.toThrow(/end with its data/);
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

test('property: a page with any meta, fields and all, is the bytes of JSON.stringify', async () => {
  await fc.assert(
    fc.asyncProperty(withMeta, fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 6 }), async (parts, data) => {
      const document = shaped(parts, data);
      expect(await documentBytes(document, Number.MAX_SAFE_INTEGER)).toEqual(utf8(document));
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

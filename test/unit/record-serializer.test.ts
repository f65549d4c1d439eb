/**
 * The record serializer compiled per projection and read (serialize/record.ts `recordSerializer`), against
 * fixed expectations: every field type's storage (columns, to-one and to-many references, expanded records,
 * assets), the cut of long lists with meta.truncated, the order of attributes and meta, and only the
 * projection's readable fields.
 */
import type { Projection } from '../../src/plugins/public-api/server/src/grants/projection';
import type { Field, FieldType, Resource } from '../../src/plugins/public-api/server/src/registry/types';
import { recordSerializer, serializeRecord, type RecordParts } from '../../src/plugins/public-api/server/src/serialize/record';
import type { FileRow, RecordRow, TargetRef } from '../../src/plugins/public-api/server/src/serialize/rows';
import { createRecordTextCache, type RecordTextCache } from '../../src/plugins/public-api/server/src/serialize/record-texts';
import type { ComponentItem } from '../../src/plugins/public-api/server/src/fields/codec';
import fc from 'fast-check';

const field = (key: string, type: FieldType): Field => ({
  key,
  label: key,
  type,
  required: false,
  localized: false,
  attribute: { type: 'string' } as Field['attribute'],
});

const resource = (slug: string, fields: Field[]): Resource => ({
  id: `native:${slug}`,
  sourceType: 'native',
  slug,
  name: slug,
  mode: 'collection',
  uid: `api::${slug}.${slug}`,
  kind: 'collectionType',
  localized: false,
  draftAndPublish: true,
  identifiers: ['slug', 'id'],
  deleteMode: 'remove',
  slugAttribute: 'slug',
  sortAttribute: 'sort',
  fields,
});

const FIELDS = [
  field('title', 'string'),
  field('startsAt', 'datetime'),
  field('soldOut', 'boolean'),
  field('venue', 'relation'),
  field('speakers', 'relations'),
  field('cover', 'image'),
  field('secret', 'string'),
];
const venues = resource('buildings', []);
const people = resource('people', []);

/** A projection reading every field but `secret`. */
const projection = (readable: Field[] = FIELDS.filter((f) => f.key !== 'secret')): Projection => ({
  resource: resource('events', FIELDS),
  grant: { actions: ['read'], read: readable.map((f) => f.key), write: [] },
  readable,
  writable: [],
  targets: new Map([
    ['venue', venues],
    ['speakers', people],
  ]),
  fields: [],
  components: new Map(),
});

const row = (rowId: number, values: Record<string, unknown>): RecordRow => ({
  rowId,
  documentId: `doc${rowId}`,
  slug: `event-${rowId}`,
  sort: String(rowId * 10),
  createdAt: 1_700_000_000_000,
  updatedAt: '1700000000001',
  publishedAt: null,
  values,
});

const ref = (rowId: number): TargetRef => ({ rowId, documentId: `t${rowId}`, slug: rowId % 2 ? `target-${rowId}` : null });

const file: FileRow = {
  id: 7,
  documentId: 'file7',
  name: 'cover.jpg',
  alternativeText: 'A cover',
  caption: null,
  width: 800,
  height: 600,
  hash: 'cover_abc',
  version: null,
  ext: '.jpg',
  mime: 'image/jpeg',
  size: 12.5,
  bytes: 12_480,
  url: '/uploads/cover_abc.jpg',
  updatedAt: 0,
};

const parts = (): RecordParts => ({
  references: new Map([
    ['venue', new Map([[1, [ref(11), ref(12)]]])],
    [
      'speakers',
      new Map([
        [1, Array.from({ length: 101 }, (_, i) => ref(100 + i))],
        [2, [ref(3)]],
      ]),
    ],
  ]),
  files: new Map([['cover', new Map([[2, [file]]])]]),
  asset: (f) => ({
    id: f.documentId,
    url: `https://cdn.test/${f.name}`,
    fileName: f.name,
    mimeType: f.mime,
    size: f.bytes ?? 0,
    width: f.width,
    height: f.height,
    alt: f.alternativeText,
    caption: f.caption,
  }),
  richtext: () => null,
  expanded: new Map([
    [
      'speakers',
      new Map([
        [
          3,
          {
            type: 'people',
            id: 't3',
            attributes: { name: 'Ada' },
            meta: { slug: null, sort: null, createdAt: 1, updatedAt: 1, publishedAt: 1 },
          },
        ],
      ]),
    ],
  ]),
});

test('a record with a to-one reference, a cut to-many list and no cover', () => {
  const serialize = recordSerializer(projection(), parts());
  const record = serialize(row(1, { title: 'Opening', startsAt: 1_767_225_600_000, soldOut: 1, secret: 'never shown' }));
  expect(JSON.stringify(record)).toBe(
    JSON.stringify({
      type: 'events',
      id: 'doc1',
      attributes: {
        title: 'Opening',
        startsAt: '2026-01-01T00:00:00.000Z',
        soldOut: true,
        venue: { id: 't11', slug: 'target-11', collection: 'buildings' },
        speakers: Array.from({ length: 100 }, (_, i) => ({
          id: `t${100 + i}`,
          slug: (100 + i) % 2 ? `target-${100 + i}` : null,
          collection: 'people',
        })),
        cover: null,
      },
      meta: {
        slug: 'event-1',
        sort: 10,
        createdAt: 1_700_000_000_000,
        updatedAt: 1_700_000_000_001,
        publishedAt: null,
        truncated: ['speakers'],
      },
    }),
  );
});

test('a record with an expanded reference, an asset and missing values; the same serializer serves every row', () => {
  const serialize = recordSerializer(projection(), parts());
  const [first, second] = [row(2, { title: null, soldOut: 0 }), row(3, {})].map(serialize);
  expect(first).toEqual({
    type: 'events',
    id: 'doc2',
    attributes: {
      title: null,
      startsAt: null,
      soldOut: false,
      venue: null,
      speakers: [
        {
          type: 'people',
          id: 't3',
          attributes: { name: 'Ada' },
          meta: { slug: null, sort: null, createdAt: 1, updatedAt: 1, publishedAt: 1 },
        },
      ],
      cover: {
        id: 'file7',
        url: 'https://cdn.test/cover.jpg',
        fileName: 'cover.jpg',
        mimeType: 'image/jpeg',
        size: 12_480,
        width: 800,
        height: 600,
        alt: 'A cover',
        caption: null,
      },
    },
    meta: { slug: 'event-2', sort: 20, createdAt: 1_700_000_000_000, updatedAt: 1_700_000_000_001, publishedAt: null },
  });
  expect(second!.attributes).toEqual({ title: null, startsAt: null, soldOut: null, venue: null, speakers: [], cover: null });
  expect(first!.meta).not.toHaveProperty('truncated');
});

test('only readable fields appear, in the projection order, and serializeRecord gives the same record', () => {
  const readable = [FIELDS[2]!, FIELDS[0]!];
  const values = { title: 'T', soldOut: 1, secret: 'x', startsAt: 0 };
  const record = recordSerializer(projection(readable), parts())(row(1, values));
  expect(Object.keys(record.attributes)).toEqual(['soldOut', 'title']);
  expect(JSON.stringify(record)).not.toContain('secret');
  expect(serializeRecord(projection(readable), row(1, values), parts())).toEqual(record);
});

// ---------------------------------------------------------------------------------------------------------
// Records kept by their inputs (serialize/record-texts.ts)
// ---------------------------------------------------------------------------------------------------------

const WITH_SEO: Field[] = [
  ...FIELDS.filter((f) => f.key !== 'secret'),
  { ...field('seo', 'component'), components: [{ uid: 'shared.seo', category: 'shared', name: 'seo', label: 'SEO', fields: [] }] },
];

/** What a read of row 1 finds: its values and system columns, references, cover and SEO component. */
type Stored = {
  values: Record<string, unknown>;
  updatedAt: unknown;
  status?: 'draft' | 'published';
  venue: TargetRef[];
  speakers: number;
  speakerSlug: string | null;
  cover: FileRow[];
  seo: ComponentItem[];
};

const partsOf = (stored: Stored, kept?: RecordParts['kept']): RecordParts => ({
  ...parts(),
  references: new Map([
    ['venue', new Map([[1, stored.venue.map((target) => ({ ...target }))]])],
    [
      'speakers',
      new Map([
        [1, Array.from({ length: stored.speakers }, (_, i) => ({ rowId: 100 + i, documentId: `t${100 + i}`, slug: stored.speakerSlug }))],
      ]),
    ],
  ]),
  files: new Map([['cover', new Map([[1, stored.cover.map((f) => ({ ...f }))]])]]),
  components: new Map([['seo', new Map([[1, stored.seo.map((item) => ({ ...item, attributes: { ...item.attributes } }))]])]]),
  expanded: new Map(),
  kept,
});

const rowOf = (stored: Stored): RecordRow => ({ ...row(1, { ...stored.values }), updatedAt: stored.updatedAt, status: stored.status });

const keptIn = (cache: RecordTextCache, skip: (row: RecordRow) => boolean = () => false): RecordParts['kept'] => ({
  cache,
  partition: 'https://api.test\u00011',
  skip,
});

const change = fc.oneof(
  fc.constant((s: Stored) => s),
  fc.string({ maxLength: 6 }).map((title) => (s: Stored) => ({ ...s, values: { ...s.values, title } })),
  fc.constantFrom(null, 0, 1, '1').map((soldOut) => (s: Stored) => ({ ...s, values: { ...s.values, soldOut } })),
  fc.option(fc.integer({ min: 0, max: 2e12 })).map((startsAt) => (s: Stored) => ({ ...s, values: { ...s.values, startsAt } })),
  fc
    .constantFrom<unknown>('1700000000001', '1700000000002', new Date(1_700_000_000_001))
    .map((updatedAt) => (s: Stored) => ({ ...s, updatedAt })),
  fc.constantFrom<'draft' | 'published' | undefined>('draft', 'published', undefined).map((status) => (s: Stored) => ({ ...s, status })),
  fc
    .option(fc.constantFrom('hall', 'hall-2', 'Hall'))
    .map((slug) => (s: Stored) => ({ ...s, venue: [{ rowId: 11, documentId: 't11', slug }] })),
  fc
    .constantFrom('t11', 't12')
    .map((documentId) => (s: Stored) => ({ ...s, venue: s.venue.length ? [{ ...s.venue[0]!, documentId }] : [] })),
  fc.constant((s: Stored) => ({ ...s, venue: [] })),
  fc.constantFrom(0, 1, 2, 99, 100, 101, 102).map((speakers) => (s: Stored) => ({ ...s, speakers })),
  fc.option(fc.constantFrom('ada', 'grace')).map((speakerSlug) => (s: Stored) => ({ ...s, speakerSlug })),
  fc
    .option(fc.constantFrom('A cover', 'Another cover'))
    .map((alt) => (s: Stored) => ({ ...s, cover: [{ ...file, alternativeText: alt }] })),
  fc
    .constantFrom('cover_abc', 'cover_def')
    .map((hash) => (s: Stored) => ({ ...s, cover: s.cover.map((f) => ({ ...f, hash, name: `${hash}.jpg` })) })),
  fc.constant((s: Stored) => ({ ...s, cover: [] })),
  fc
    .option(fc.constantFrom('Welcome', 'Hello'))
    .map((title) => (s: Stored) => ({ ...s, seo: [{ component: 'shared.seo', attributes: { metaTitle: title } }] })),
  fc.constant((s: Stored) => ({ ...s, seo: [] })),
);

const INITIAL: Stored = {
  values: { title: 'Opening', startsAt: 1_767_225_600_000, soldOut: 1 },
  updatedAt: '1700000000001',
  venue: [{ rowId: 11, documentId: 't11', slug: 'hall' }],
  speakers: 2,
  speakerSlug: 'ada',
  cover: [file],
  seo: [],
};

test('a kept record is always the record its inputs make: any change among them is seen on the next read', () => {
  fc.assert(
    fc.property(fc.array(change, { maxLength: 25 }), (changes) => {
      const cache = createRecordTextCache(1_000_000);
      const fields = projection(WITH_SEO);
      let stored = INITIAL;
      let before = recordSerializer(fields, partsOf(stored, keptIn(cache)))(rowOf(stored));
      let previous = stored;
      for (const apply of changes) {
        stored = apply(stored);
        // Each read builds its own parts and row, as the reads do.
        const record = recordSerializer(fields, partsOf(stored, keptIn(cache)))(rowOf(stored));
        const made = recordSerializer(fields, partsOf(stored))(rowOf(stored));
        expect(JSON.stringify(record)).toBe(JSON.stringify(made));
        // Nothing changed that the record shows or is made of: the kept record itself.
        if (JSON.stringify(previous) === JSON.stringify(stored) && previous.updatedAt === stored.updatedAt) expect(record).toBe(before);
        before = record;
        previous = stored;
      }
    }),
    { numRuns: 300 },
  );
});

test('records that show what is not among their inputs are made every time', () => {
  const cache = createRecordTextCache(1_000_000);
  const fields = projection();
  // Expanded records (include): the whole level keeps none.
  const expandedParts = { ...parts(), kept: keptIn(cache) };
  const twice = [1, 2].map(() => recordSerializer(fields, expandedParts)(row(2, { title: 'Talk' })));
  expect(twice[0]).toEqual(twice[1]);
  expect(twice[0]).not.toBe(twice[1]);
  expect(cache.stats().records).toBe(0);
  // Rows the caller names (richtext images): made every time, others kept.
  const skipped = partsOf(
    INITIAL,
    keptIn(cache, (candidate) => candidate.values.title === 'With images'),
  );
  const withImages = { ...rowOf(INITIAL), values: { ...INITIAL.values, title: 'With images' } };
  expect(recordSerializer(fields, skipped)(withImages)).not.toBe(recordSerializer(fields, skipped)(withImages));
  expect(recordSerializer(fields, skipped)(rowOf(INITIAL))).toBe(recordSerializer(fields, skipped)(rowOf(INITIAL)));
});

test("records kept for one projection or base URL are not another one's", () => {
  const cache = createRecordTextCache(1_000_000);
  const full = projection();
  const all = recordSerializer(full, partsOf(INITIAL, keptIn(cache)))(rowOf(INITIAL));
  const titles = projection(FIELDS.filter((f) => f.key === 'title'));
  const fewer = recordSerializer(titles, partsOf(INITIAL, keptIn(cache)))(rowOf(INITIAL));
  expect(Object.keys(fewer.attributes)).toEqual(['title']);
  expect(Object.keys(all.attributes)).toContain('cover');
  const elsewhere = recordSerializer(full, partsOf(INITIAL, { ...keptIn(cache)!, partition: 'https://other.test\u00011' }))(rowOf(INITIAL));
  expect(elsewhere).not.toBe(all);
  expect(recordSerializer(full, partsOf(INITIAL, keptIn(cache)))(rowOf(INITIAL))).toBe(all);
  // The same fields of a resource, in a projection made again (sparse fieldsets make one per read): found.
  expect(recordSerializer({ ...full }, partsOf(INITIAL, keptIn(cache)))(rowOf(INITIAL))).toBe(all);
});

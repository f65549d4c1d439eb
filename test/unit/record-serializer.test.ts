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

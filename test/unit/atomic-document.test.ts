/**
 * The pure parts of Atomic Operations (contract section 17): reading the request document into operations
 * (write/atomic-document.ts), errors moved under their operation, lids replaced in references
 * (write/local-ids.ts), and the Content-Type an atomic request must carry (http/media-types.ts).
 */
import { ApiError, apiError } from '../../src/plugins/public-api/server/src/http/errors';
import { ATOMIC_EXTENSION, assertAtomicContentType } from '../../src/plugins/public-api/server/src/http/media-types';
import { MAX_OPERATIONS, parseAtomicDocument, underOperation } from '../../src/plugins/public-api/server/src/write/atomic-document';
import { parseHref } from '../../src/plugins/public-api/server/src/write/operation-href';
import { resolveLocalIds, type LocalRecord } from '../../src/plugins/public-api/server/src/write/local-ids';

const BASE = 'https://api.example.com/api/v2';

const refusal = (fn: () => unknown): { status: number; pointers: (string | undefined)[]; reasons: unknown[] } => {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return {
      status: error.status,
      pointers: error.errors.map((object) => (object.source && 'pointer' in object.source ? object.source.pointer : undefined)),
      reasons: error.errors.map((object) => object.meta?.reason),
    };
  }
  throw new Error('Expected a refusal.');
};

const add = (type: string, attributes: Record<string, unknown> = {}, lid?: string) => ({
  op: 'add',
  data: { type, ...(lid ? { lid } : {}), attributes },
});

describe('parseAtomicDocument', () => {
  test('native operations: the resource from the type, the record from ref, href or data', () => {
    const operations = parseAtomicDocument(
      {
        'atomic:operations': [
          add('events', { title: 'A' }, 'a'),
          { op: 'update', ref: { type: 'events', lid: 'a' }, data: { type: 'events', attributes: { title: 'B' } } },
          { op: 'update', href: '/events/jazz?locale=de', data: { type: 'events', attributes: {} } },
          { op: 'update', data: { type: 'events', id: 'abc', attributes: {} } },
          { op: 'remove', ref: { type: 'events', id: 'xyz' } },
        ],
      },
      BASE,
    );
    expect(operations.map((operation) => [operation.op, operation.resource, operation.record])).toEqual([
      ['add', { source: 'native', slug: 'events' }, null],
      ['update', { source: 'native', slug: 'events' }, { by: 'lid', value: 'a', at: '/ref/lid' }],
      ['update', { source: 'native', slug: 'events' }, { by: 'identifier', value: 'jazz', at: '/href' }],
      ['update', { source: 'native', slug: 'events' }, { by: 'identifier', value: 'abc', at: '/data/id' }],
      ['remove', { source: 'native', slug: 'events' }, { by: 'identifier', value: 'xyz', at: '/ref/id' }],
    ]);
    expect(operations[0]!.lid).toBe('a');
    expect(operations[2]!.query.get('locale')).toBe('de');
  });

  test('a CMS resource is named by href; a lid carries its resource to later operations', () => {
    const operations = parseAtomicDocument(
      {
        'atomic:operations': [
          { op: 'add', href: `${BASE}/cms/site-a/pages`, data: { type: 'pages', lid: 'p', attributes: {} } },
          { op: 'remove', ref: { type: 'pages', lid: 'p' } },
          { op: 'update', href: '/cms/site-a/settings', data: { type: 'settings', attributes: {} } },
        ],
      },
      BASE,
    );
    const cms = { source: 'cms', website: 'site-a', collection: 'pages' };
    expect(operations[0]!.resource).toEqual(cms);
    expect(operations[1]!.resource).toEqual(cms);
    expect(operations[2]!.record).toEqual({ by: 'singleton' });
  });

  test(`more than ${MAX_OPERATIONS} operations: 413 at the array`, () => {
    const body = { 'atomic:operations': Array.from({ length: MAX_OPERATIONS + 1 }, () => add('events')) };
    expect(refusal(() => parseAtomicDocument(body, BASE))).toEqual({
      status: 413,
      pointers: ['/atomic:operations'],
      reasons: ['too_many_operations'],
    });
    expect(parseAtomicDocument({ 'atomic:operations': body['atomic:operations'].slice(1) }, BASE)).toHaveLength(MAX_OPERATIONS);
  });

  test.each([
    ['not an object', [], ''],
    ['no operations', { 'atomic:operations': [] }, '/atomic:operations'],
    ['operations not an array', { 'atomic:operations': {} }, '/atomic:operations'],
    ['a stray member', { 'atomic:operations': [add('events')], included: [] }, '/included'],
    ['an operation that is no object', { 'atomic:operations': ['add'] }, '/atomic:operations/0'],
    ['an unknown op', { 'atomic:operations': [{ op: 'merge' }] }, '/atomic:operations/0/op'],
    ['an unknown member', { 'atomic:operations': [{ ...add('events'), extra: 1 }] }, '/atomic:operations/0/extra'],
    ['add without data', { 'atomic:operations': [{ op: 'add' }] }, '/atomic:operations/0/data'],
    ['add with a record href', { 'atomic:operations': [{ ...add('events'), href: '/events/x' }] }, '/atomic:operations/0/href'],
    [
      'remove with data',
      { 'atomic:operations': [{ op: 'remove', ref: { type: 'events', id: 'x' }, data: {} }] },
      '/atomic:operations/0/data',
    ],
    ['remove naming nothing', { 'atomic:operations': [{ op: 'remove' }] }, '/atomic:operations/0'],
    [
      'ref with id and lid',
      { 'atomic:operations': [{ op: 'remove', ref: { type: 'events', id: 'x', lid: 'y' } }] },
      '/atomic:operations/0/ref',
    ],
    ['ref without type or lid', { 'atomic:operations': [{ op: 'remove', ref: { id: 'x' } }] }, '/atomic:operations/0/ref'],
    [
      'the record named twice',
      { 'atomic:operations': [{ op: 'remove', href: '/events/a', ref: { type: 'events', id: 'b' } }] },
      '/atomic:operations/0/ref/id',
    ],
    ['a lid not yet added', { 'atomic:operations': [{ op: 'remove', ref: { type: 'events', lid: 'x' } }] }, '/atomic:operations/0/ref/lid'],
    ['a lid added twice', { 'atomic:operations': [add('events', {}, 'x'), add('events', {}, 'x')] }, '/atomic:operations/1/data/lid'],
    [
      'an empty lid',
      { 'atomic:operations': [add('events', {}, '')].map((op) => ({ ...op, data: { ...op.data, lid: '' } })) },
      '/atomic:operations/0/data/lid',
    ],
    [
      'a data.type that is no string',
      { 'atomic:operations': [{ op: 'add', data: { type: 1, attributes: {} } }] },
      '/atomic:operations/0/data/type',
    ],
    ['an href with a fragment', { 'atomic:operations': [{ op: 'remove', href: '/events/x#y' }] }, '/atomic:operations/0/href'],
    ['an href too deep', { 'atomic:operations': [{ op: 'remove', href: '/events/x/y' }] }, '/atomic:operations/0/href'],
  ])('%s: 400 at its pointer', (_name, body, pointer) => {
    const refused = refusal(() => parseAtomicDocument(body, BASE));
    expect(refused.status).toBe(400);
    expect(refused.pointers).toContain(pointer);
  });

  test('a lid whose record belongs to another resource than the href: 400', () => {
    const refused = refusal(() =>
      parseAtomicDocument({ 'atomic:operations': [add('events', {}, 'e'), { op: 'remove', href: '/products', ref: { lid: 'e' } }] }, BASE),
    );
    expect(refused.reasons).toContain('lid_type_mismatch');
  });
});

describe('parseHref', () => {
  test.each([
    ['/events', { source: 'native', slug: 'events' }, null],
    ['/events/jazz%20night', { source: 'native', slug: 'events' }, 'jazz night'],
    [`${BASE}/cms/w/pages/about`, { source: 'cms', website: 'w', collection: 'pages' }, 'about'],
  ])('%s', (href, resource, record) => {
    const problems: unknown[] = [];
    expect(parseHref(href, BASE, problems as never)).toMatchObject({ resource, record });
    expect(problems).toEqual([]);
  });

  test.each(['events', '//evil.example/events', 'https://other.example/api/v2/events', '/cms/w', '/', '/%E0%A4%A/x'])(
    '%s is refused',
    (href) => {
      const problems: unknown[] = [];
      expect(parseHref(href, BASE, problems as never)).toBeNull();
      expect(problems).toHaveLength(1);
    },
  );
});

describe('underOperation', () => {
  test('pointers, parameters and errors without a source move under the operation; headers stay', () => {
    const moved = underOperation(
      new ApiError(422, [
        ...apiError(422, 'a', { source: { pointer: '/data/attributes/title' } }).errors,
        ...apiError(422, 'b', { source: { parameter: 'locale' } }).errors,
        ...apiError(422, 'c').errors,
        ...apiError(422, 'd', { source: { header: 'Idempotency-Key' } }).errors,
      ]),
      7,
    );
    expect(moved.errors.map((object) => object.source)).toEqual([
      { pointer: '/atomic:operations/7/data/attributes/title' },
      { pointer: '/atomic:operations/7/href' },
      { pointer: '/atomic:operations/7' },
      { header: 'Idempotency-Key' },
    ]);
  });
});

describe('resolveLocalIds', () => {
  const lids = new Map<string, LocalRecord>([
    ['e', { resourceId: 'native:events', resourceSlug: 'events', documentId: 'doc-e' }],
    ['p', { resourceId: 'native:products', resourceSlug: 'products', documentId: 'doc-p' }],
  ]);
  const relations = {
    relations: [
      { key: 'event', resourceId: 'native:events' },
      { key: 'events', resourceId: 'native:events' },
    ],
    components: [],
  };

  test('to-one, list items and list changes: each lid becomes the id it names; other values stay as sent', () => {
    const { attributes, problems } = resolveLocalIds(
      {
        event: { type: 'events', lid: 'e' },
        events: [{ lid: 'e' }, 'jazz', { id: 'x' }],
        title: { lid: 'e' },
      },
      relations,
      lids,
    );
    expect(problems).toEqual([]);
    expect(attributes).toEqual({
      event: { type: 'events', id: 'doc-e' },
      events: [{ id: 'doc-e' }, 'jazz', { id: 'x' }],
      title: { lid: 'e' },
    });
    expect(resolveLocalIds({ events: { add: [{ lid: 'e' }], remove: [] } }, relations, lids).attributes).toEqual({
      events: { add: [{ id: 'doc-e' }], remove: [] },
    });
  });

  test('an unknown lid, a lid of another resource, a lid beside an id: 422 at the lid', () => {
    const { problems } = resolveLocalIds({ event: { lid: 'nope' }, events: [{ lid: 'p' }, { lid: 'e', id: 'x' }] }, relations, lids);
    expect(problems.map((problem) => [problem.status, problem.source])).toEqual([
      ['422', { pointer: '/data/attributes/event/lid' }],
      ['422', { pointer: '/data/attributes/events/0/lid' }],
      ['422', { pointer: '/data/attributes/events/1/lid' }],
    ]);
  });
});

describe('assertAtomicContentType', () => {
  test.each([
    [`application/vnd.api+json; ext="${ATOMIC_EXTENSION}"`, 'ok'],
    [`application/vnd.api+json;ext=${ATOMIC_EXTENSION}`, 'ok'],
    [`application/vnd.api+json; ext="${ATOMIC_EXTENSION}"; profile="https://example.com/p"`, 'ok'],
    ['application/json', 415],
    ['application/vnd.api+json', 415],
    ['application/vnd.api+json; ext="https://example.com/other"', 415],
    [`application/vnd.api+json; ext="${ATOMIC_EXTENSION}"; charset=utf-8`, 415],
    [undefined, 415],
  ])('%s: %s', (contentType, expected) => {
    if (expected === 'ok') expect(() => assertAtomicContentType(contentType)).not.toThrow();
    else expect(refusal(() => assertAtomicContentType(contentType)).status).toBe(expected);
  });
});

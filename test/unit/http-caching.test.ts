/**
 * The pure parts of HTTP caching and compression (contract section 14): Accept-Encoding negotiation
 * (a property over random headers), entity tags and their comparisons, If-Match parsing, Cache-Tag
 * building and its bound, Cache-Control, the cache policy of a key, the compressed-bytes cache, and
 * the edge's response preparation.
 */
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { acceptedCodings, chooseCoding, OFFERED_CODINGS } from '../../src/plugins/public-api/server/src/http/accept-encoding';
import { readCacheControl } from '../../src/plugins/public-api/server/src/http/cache-control';
import { cacheTagHeaders, MAX_CACHE_TAG_BYTES, recordTags } from '../../src/plugins/public-api/server/src/http/cache-tags';
import { CompressedCache } from '../../src/plugins/public-api/server/src/http/compressed-cache';
import { codedTag, entityTagOf, ifMatchHolds, noneMatch, parseIfMatch } from '../../src/plugins/public-api/server/src/http/entity-tags';
import { ApiError } from '../../src/plugins/public-api/server/src/http/errors';
import { prepareResponse } from '../../src/plugins/public-api/server/src/http/respond';
import { parseCachePolicy } from '../../src/plugins/public-api/server/src/config/cache-policy';
import { allGrants } from '../../src/plugins/public-api/server/src/grants/resolve';
import { buildOpenApiDocument } from '../../src/plugins/public-api/server/src/openapi/document';
import { demoResources } from '../helpers/registry';

describe('Accept-Encoding', () => {
  test.each([
    [undefined, null],
    ['', null],
    ['gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', null],
    ['*', 'br'],
    ['*;q=0', null],
    ['*;q=0, gzip', 'gzip'],
    ['br;q=0, *', 'gzip'],
    ['identity', null],
    ['identity;q=1, gzip;q=0.5', null],
    ['identity;q=0.1, gzip;q=0.5', 'gzip'],
    ['deflate, compress', null],
    ['x-gzip', 'gzip'],
    ['GZIP;Q=1', 'gzip'],
    ['br;q=2, gzip', 'gzip'],
    ['br;q=abc, gzip;q=0.1', 'gzip'],
    ['br;level=1, gzip;q=0.1', 'gzip'],
    ['gzip;q=0.5, gzip;q=0', 'gzip'],
    [' , br ; q=0.9 ,, ', 'br'],
  ])('%j -> %j', (header, coding) => {
    expect(chooseCoding(header)).toBe(coding);
  });

  const names = fc.constantFrom('br', 'gzip', 'identity', '*', 'deflate', 'x-gzip', 'zstd');
  const weight = fc.oneof(
    fc.constant(undefined),
    fc.constantFrom('0', '1', '0.5', '0.001', '1.000', '0.25', '0.0'),
    fc.constantFrom('2', '-1', 'x', '0.0001', ''),
  );
  const element = fc.record({ name: names, weight, upper: fc.boolean(), spaces: fc.boolean() });
  const headerOf = (elements: { name: string; weight: string | undefined; upper: boolean; spaces: boolean }[]) =>
    elements
      .map(({ name, weight: w, upper, spaces }) => {
        const shown = upper ? name.toUpperCase() : name;
        const q = w === undefined ? '' : spaces ? ` ; q=${w}` : `;q=${w}`;
        return `${spaces ? ' ' : ''}${shown}${q}`;
      })
      .join(',');

  test('the chosen coding is acceptable and none offered is preferred over it; case and spaces do not matter', () => {
    fc.assert(
      fc.property(fc.array(element, { maxLength: 8 }), (elements) => {
        const header = headerOf(elements);
        const chosen = chooseCoding(header);
        const weights = acceptedCodings(header);
        const weightOf = (coding: string) =>
          weights.get(coding) ?? (coding === 'gzip' ? weights.get('x-gzip') : undefined) ?? weights.get('*') ?? 0;
        // Every weight read is a valid one.
        for (const value of weights.values()) expect(value >= 0 && value <= 1).toBe(true);
        if (chosen === null) {
          const identity = weights.get('identity');
          const best = Math.max(...OFFERED_CODINGS.map(weightOf));
          expect(best === 0 || (identity !== undefined && identity > best)).toBe(true);
        } else {
          expect(weightOf(chosen)).toBeGreaterThan(0);
          for (const other of OFFERED_CODINGS) expect(weightOf(other)).toBeLessThanOrEqual(weightOf(chosen));
        }
        const plain = elements.map((entry) => ({ ...entry, upper: false, spaces: false }));
        expect(chooseCoding(headerOf(plain))).toBe(chosen);
      }),
      { numRuns: 500 },
    );
  });
});

describe('entity tags', () => {
  const tag = entityTagOf(Buffer.from('{"a":1}'));

  test('a strong tag of the bytes: equal bytes, equal tag; one byte more, another tag', () => {
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(entityTagOf('{"a":1}')).toBe(tag);
    expect(entityTagOf('{"a":2}')).not.toBe(tag);
    expect(codedTag(tag, 'br')).toBe(`${tag.slice(0, -1)}-br"`);
    expect(codedTag(tag, null)).toBe(tag);
  });

  test('If-None-Match compares weakly, across codings; a malformed header matches nothing', () => {
    expect(noneMatch(undefined, tag)).toBe(false);
    expect(noneMatch(tag, tag)).toBe(true);
    expect(noneMatch(`W/${tag}`, tag)).toBe(true);
    expect(noneMatch(`"x", ${codedTag(tag, 'gzip')}`, tag)).toBe(true);
    expect(noneMatch('*', tag)).toBe(true);
    expect(noneMatch('"x"', tag)).toBe(false);
    expect(noneMatch(tag.slice(1, -1), tag)).toBe(false);
  });

  test('If-Match: `*`, strong tags of any coding, weak tags never hold; anything else is 400', () => {
    expect(parseIfMatch(undefined)).toEqual({ kind: 'none' });
    expect(ifMatchHolds(parseIfMatch('*'), [])).toBe(true);
    expect(ifMatchHolds(parseIfMatch(`"x", ${codedTag(tag, 'br')}`), [tag])).toBe(true);
    expect(ifMatchHolds(parseIfMatch(`W/${tag}`), [tag])).toBe(false);
    expect(ifMatchHolds(parseIfMatch('"x"'), [tag])).toBe(false);
    for (const malformed of ['', 'abc', '"a" "b"', '"a",,', 'W/abc']) {
      let error: unknown;
      try {
        parseIfMatch(malformed);
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect((error as ApiError).errors[0]!.source).toEqual({ header: 'If-Match' });
    }
  });
});

describe('Cache-Tag', () => {
  type R = { slug: string; website?: { id: number; documentId: string; slug: string; name: string } };
  const site = { id: 1, documentId: 'w', slug: 'site-a', name: 'Site A' };
  const events: R = { slug: 'events' };
  const buildings: R = { slug: 'buildings' };
  const festivals: R = { slug: 'festivals' };
  const pages: R = { slug: 'pages', website: site };
  const home: R = { slug: 'home', website: site };
  const projections = new Map<R, { resource: R; targets: Map<string, R> }>([
    [
      events,
      {
        resource: events,
        targets: new Map([
          ['venue', buildings],
          ['festival', festivals],
        ]),
      },
    ],
    [buildings, { resource: buildings, targets: new Map([['events', events]]) }],
    [festivals, { resource: festivals, targets: new Map() }],
    [pages, { resource: pages, targets: new Map([['related', pages]]) }],
    // A CMS singleton whose relation leads to a native resource.
    [home, { resource: home, targets: new Map([['featured', events]]) }],
  ]);
  const projectionOf = (resource: R) => projections.get(resource)!;
  const record = (type: string, id: string, attributes: Record<string, unknown> = {}) => ({ type, id, attributes, meta: {} });
  const ref = (id: string, collection: string) => ({ id, slug: `${id}-slug`, collection });

  test('the resource, its records, and every record they show (expanded or referenced) under its own resource', () => {
    const venue = record('buildings', 'b1', { name: 'Hall', events: [ref('e9', 'events')] });
    const data = [
      record('events', 'e1', { venue, festival: ref('f1', 'festivals'), cover: { id: 'a1', url: 'x' } }),
      record('events', 'e2', { venue: ref('b1', 'buildings'), body: { type: 'doc', content: [] } }),
    ];
    expect(recordTags(projectionOf(events), projectionOf, data)).toEqual([
      'events',
      'buildings',
      'festivals',
      'events:e1',
      'events:e9',
      'events:e2',
      'buildings:b1',
      'festivals:f1',
    ]);
  });

  test('CMS resources carry their website; a relation to a native resource is tagged as native', () => {
    expect(recordTags(projectionOf(pages), projectionOf, [record('pages', 'p1', { related: [ref('p2', 'pages')] })])).toEqual([
      'site-a/pages',
      'site-a/pages:p1',
      'site-a/pages:p2',
    ]);
    expect(recordTags(projectionOf(home), projectionOf, [record('home', 'h1', { featured: [ref('e1', 'events')] })])).toEqual([
      'site-a/home',
      'events',
      'site-a/home:h1',
      'events:e1',
    ]);
  });

  test('past the bound, record tags give way to `<resource>:overflow`, and the header stays within it', () => {
    const data = Array.from({ length: 400 }, (_, i) =>
      record('events', `e${String(i).padStart(24, '0')}`, { venue: record('buildings', `b${i}`) }),
    );
    const tags = recordTags(projectionOf(events), projectionOf, data);
    expect(tags).toEqual(['events', 'buildings', 'events:overflow', 'buildings:overflow']);
    const fitting = recordTags(projectionOf(events), projectionOf, data.slice(0, 10));
    expect(fitting).toHaveLength(22);
    expect(Buffer.byteLength(cacheTagHeaders(fitting)['Cache-Tag']!)).toBeLessThanOrEqual(MAX_CACHE_TAG_BYTES);
    expect(cacheTagHeaders(['a', 'b'])).toEqual({ 'Cache-Tag': 'a,b', 'Surrogate-Key': 'a b' });
  });
});

describe('Cache-Control and a key cache policy', () => {
  test('private, no-cache without a policy; public with s-maxage and stale-while-revalidate with one', () => {
    expect(readCacheControl(null)).toBe('private, no-cache');
    expect(readCacheControl({ sharedMaxAge: 60 })).toBe('public, s-maxage=60, stale-while-revalidate=60');
  });

  test.each([
    [{ sharedMaxAge: 60 }, true],
    [{ sharedMaxAge: 31_536_000 }, true],
    [{ sharedMaxAge: 0 }, false],
    [{ sharedMaxAge: 1.5 }, false],
    [{ sharedMaxAge: 31_536_001 }, false],
    [{ sharedMaxAge: '60' }, false],
    [{ sharedMaxAge: 60, public: true }, false],
    [[], false],
    [null, false],
  ])('%j is a policy: %s', (value, ok) => {
    expect(parseCachePolicy(value).ok).toBe(ok);
  });
});

describe('the compressed-bytes cache', () => {
  test('bounded by bytes, least recently used first out; an entry too big is not kept', () => {
    const cache = new CompressedCache(10, 6);
    cache.set('a', Buffer.alloc(4));
    cache.set('b', Buffer.alloc(4));
    expect(cache.get('a')).toBeDefined();
    cache.set('c', Buffer.alloc(4));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.totalBytes).toBeLessThanOrEqual(10);
    cache.set('big', Buffer.alloc(7));
    expect(cache.get('big')).toBeUndefined();
  });
});

describe('preparing a response', () => {
  const big = {
    jsonapi: { version: '1.1' },
    data: Array.from({ length: 50 }, (_, i) => ({ type: 'events', id: `e${i}`, attributes: {} })),
  };
  const context = { method: 'GET', acceptEncoding: 'br', ifNoneMatch: undefined, cachePolicy: null };

  test('a read: serialized once to bytes, tagged, compressed, with Cache-Control and Vary', async () => {
    const out = await prepareResponse({ kind: 'document', status: 200, document: big, tags: ['events'] }, context);
    const identity = Buffer.from(JSON.stringify(big));
    expect(Buffer.isBuffer(out.body)).toBe(true);
    expect(zlib.brotliDecompressSync(out.body as Buffer).equals(identity)).toBe(true);
    expect(out.headers).toMatchObject({
      ETag: codedTag(entityTagOf(identity), 'br'),
      'Content-Encoding': 'br',
      'Cache-Control': 'private, no-cache',
      'Cache-Tag': 'events',
    });
    expect(out.vary).toEqual(['Authorization', 'Accept-Encoding']);
  });

  test('a matching If-None-Match: 304 without a body', async () => {
    const tag = entityTagOf(Buffer.from(JSON.stringify(big)));
    const out = await prepareResponse({ kind: 'document', status: 200, document: big }, { ...context, ifNoneMatch: tag });
    expect(out.status).toBe(304);
    expect(out.body).toBeNull();
    expect(out.headers.ETag).toBe(codedTag(tag, 'br'));
  });

  test('a document of many chunks: streamed uncompressed with its length, tagged as its whole bytes, compressed whole', async () => {
    // Over 256 KiB of JSON in values of more than 2,000 nodes: json-chunks writes it in several chunks.
    const huge = {
      data: Array.from({ length: 6_000 }, (_, i) => ({ type: 'events', id: `e${i}`, attributes: { n: i, text: 'x'.repeat(40) } })),
    };
    const identity = Buffer.from(JSON.stringify(huge));
    const plain = await prepareResponse({ kind: 'document', status: 200, document: huge }, { ...context, acceptEncoding: undefined });
    expect(plain.body).toBeInstanceOf(Readable);
    const streamed: Buffer[] = [];
    for await (const chunk of plain.body as Readable) streamed.push(chunk as Buffer);
    expect(streamed.length).toBeGreaterThan(1);
    expect(Buffer.concat(streamed).equals(identity)).toBe(true);
    expect(plain.headers['Content-Length']).toBe(String(identity.length));
    expect(plain.headers.ETag).toBe(entityTagOf(identity));
    const coded = await prepareResponse({ kind: 'document', status: 200, document: huge }, context);
    expect(zlib.brotliDecompressSync(coded.body as Buffer).equals(identity)).toBe(true);
    expect(coded.headers.ETag).toBe(codedTag(entityTagOf(identity), 'br'));
  });

  test('a write answers with an ETag and no-store; an error with no-store and no ETag; a file is left alone', async () => {
    const written = await prepareResponse({ kind: 'document', status: 200, document: { data: 1 } }, { ...context, method: 'PATCH' });
    expect(written.headers['Cache-Control']).toBe('no-store');
    expect(written.headers.ETag).toBeDefined();
    const failed = await prepareResponse(
      { kind: 'document', status: 404, document: { errors: [] } },
      { ...context, cachePolicy: undefined },
    );
    expect(failed.headers['Cache-Control']).toBe('no-store');
    expect(failed.headers.ETag).toBeUndefined();
    const file = await prepareResponse(
      { kind: 'file', status: 200, content: Buffer.from('x'), headers: { 'Content-Type': 'image/png' } },
      context,
    );
    expect(file.headers).toEqual({ 'Content-Type': 'image/png' });
  });
});

describe('the OpenAPI document', () => {
  const resources = demoResources();
  const document = buildOpenApiDocument({
    baseUrl: 'https://api.example.org/api/v2',
    grants: allGrants(resources, []),
    resources,
    locales: ['en'],
    commands: [],
  }) as unknown as {
    paths: Record<
      string,
      Record<string, { parameters?: { $ref?: string }[]; responses: Record<string, { $ref?: string; headers?: object }> }>
    >;
  };
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );

  test('every GET takes If-None-Match and answers 200 with ETag, Cache-Control, Cache-Tag and Surrogate-Key, or 304', () => {
    const gets = operations.filter((entry) => entry.method === 'get');
    expect(gets.length).toBeGreaterThan(10);
    for (const { operation } of gets) {
      expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/IfNoneMatch' });
      expect(operation.responses['304']).toEqual({ $ref: '#/components/responses/NotModified' });
      expect(Object.keys(operation.responses['200']!.headers ?? {})).toEqual(
        expect.arrayContaining(['ETag', 'Cache-Control', 'Cache-Tag', 'Surrogate-Key']),
      );
    }
  });

  test('every PATCH and DELETE takes If-Match and may answer 412; a 200 carries the ETag', () => {
    const writes = operations.filter((entry) => entry.method === 'patch' || entry.method === 'delete');
    expect(writes.length).toBeGreaterThan(3);
    for (const { operation } of writes) {
      expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/IfMatch' });
      expect(operation.responses['412']).toEqual({ $ref: '#/components/responses/PreconditionFailed' });
      if (operation.responses['200']) expect(Object.keys(operation.responses['200'].headers ?? {})).toContain('ETag');
    }
    // POST creates nothing conditional.
    for (const { operation } of operations.filter((entry) => entry.method === 'post')) {
      expect(operation.responses['412']).toBeUndefined();
    }
  });
});

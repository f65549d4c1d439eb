import { ceilingTable, compareBodies, compareHeaders, medianByRate, type CeilingRow } from '../../bench/ceiling';
import type { Measurement } from '../../bench/measure';

const documentHeaders = (overrides: Record<string, string | null> = {}) => {
  const fields: Record<string, string | null> = {
    'Content-Type': 'application/vnd.api+json',
    'Content-Length': '2203',
    ETag: '"NBIAKvJIoaiTmGe5xkncVT7oyfL"',
    'Cache-Control': 'private, no-cache',
    Vary: 'Authorization, Accept-Encoding',
    'Cache-Tag': 'events,events:abc',
    'Surrogate-Key': 'events events:abc',
    'X-Content-Type-Options': 'nosniff',
    'X-Request-Id': 'a-request',
    ...overrides,
  };
  const headers = new Headers();
  for (const [name, value] of Object.entries(fields)) if (value !== null) headers.set(name, value);
  return headers;
};

test('answers agree when every field is equal but those of the request alone and the rate counter', () => {
  expect(compareHeaders(documentHeaders(), documentHeaders({ 'X-Request-Id': 'another' }))).toBeNull();
  const perRequest = { Date: 'Sat, 28 Nov 2026 03:00:00 GMT', RateLimit: '"key";r=9;t=60', 'RateLimit-Policy': '"key";q=10;w=60' };
  expect(compareHeaders(documentHeaders(perRequest), documentHeaders({ Date: 'Sat, 28 Nov 2026 03:00:01 GMT' }))).toBeNull();
  expect(compareBodies('{"a":1}', '{"a":1}')).toBeNull();
});

test('a differing ETag, tag list or security field is named, with both values', () => {
  const difference = compareHeaders(documentHeaders(), documentHeaders({ ETag: '"other"', 'Surrogate-Key': 'events' }));
  expect(difference).toContain('etag: /api/v2 "\\"NBIAKvJIoaiTmGe5xkncVT7oyfL\\"", raw "\\"other\\""');
  expect(difference).toContain('surrogate-key');
  expect(difference).not.toContain('cache-tag');
  expect(compareHeaders(documentHeaders(), documentHeaders({ 'X-Content-Type-Options': null }))).toContain('x-content-type-options');
  // A field one side sends that the other does not, whatever it is.
  expect(compareHeaders(documentHeaders({ 'X-Powered-By': 'Strapi' }), documentHeaders())).toContain('x-powered-by');
});

test('a field one side leaves out, and a missing request id, are differences', () => {
  expect(compareHeaders(documentHeaders(), documentHeaders({ 'Cache-Tag': null }))).toContain(
    'cache-tag: /api/v2 "events,events:abc", raw null',
  );
  expect(compareHeaders(documentHeaders(), documentHeaders({ 'X-Request-Id': null }))).toContain('raw sent no x-request-id');
});

const measurement = (requestsPerSecond: number, cpuMicrosPerRequest: number | null): Measurement => ({
  label: 'm',
  requestsPerSecond,
  p50: 1,
  p99: 2,
  non2xx: 0,
  failedStatuses: {},
  errors: 0,
  cpuMicrosPerRequest,
});

test('the table shows each row CPU time per request and the ratio it gives', () => {
  const floor: CeilingRow = {
    name: 'floor',
    raw: measurement(50_000, 18),
    v2: measurement(6_000, 160),
    strapi: measurement(4_000, null),
    aim: '',
    met: () => null,
  };
  const page: CeilingRow = {
    name: '100-record page',
    raw: measurement(800, 1_250),
    v2: measurement(600, 1_600),
    strapi: measurement(5, null),
    aim: 'v2 >= 0.85x raw',
    met: (row) => row.v2!.requestsPerSecond / row.raw!.requestsPerSecond >= 0.85,
  };
  const lines = ceilingTable([page, floor]).split('\n');
  expect(lines[0]).toContain('| CPU us a request, raw / v2 | v2 / raw by CPU |');
  // 600 / 800 = 0.75 by rate; 1,250 / 1,600 = 0.78 by CPU.
  expect(lines[2]).toBe('| 100-record page | 800 | 600 | 5 | 0.75 | 120.00 | 0.10 | v2 >= 0.85x raw | no | 1,250 / 1,600 | 0.78 |');
  expect(lines[3]).toContain('| 18 / 160 | 0.11 |');
});

test('a row whose answers differ is reported without figures', () => {
  const floor: CeilingRow = { name: 'floor', raw: null, v2: null, strapi: null, aim: '', met: () => null };
  const unequal: CeilingRow = { name: 'single', raw: null, v2: null, strapi: null, unequal: 'etag', aim: 'aim', met: () => false };
  expect(ceilingTable([unequal, floor]).split('\n')[2]).toBe('| single | answers differ | | | | | | aim | no | | |');
});

test("a row shows the round of median rate, with that round's CPU time; the lower middle one of an even number", () => {
  const rounds = [measurement(900, 100), measurement(500, 300), measurement(700, 200)];
  expect(medianByRate(rounds)).toBe(rounds[2]);
  expect(medianByRate(rounds.slice(0, 2))).toBe(rounds[1]);
  expect(medianByRate([rounds[0]!])).toBe(rounds[0]);
  expect(medianByRate([])).toBeNull();
  // The rounds as they were measured are left in their order.
  expect(rounds.map((round) => round.requestsPerSecond)).toEqual([900, 500, 700]);
});

/**
 * http/canonical-url.ts writes `links.self` and `links.next` without parsing a URL where nothing needs it;
 * whatever the request target, the result is the one `URL` and `URLSearchParams` give.
 */
import fc from 'fast-check';
import { canonicalUrl, nextLink } from '../../src/plugins/public-api/server/src/http/canonical-url';

/** What the links were before: the URL parsed, its query rewritten. */
const byUrl = (raw: string): string => {
  const url = new URL(raw);
  url.search = new URLSearchParams(url.search).toString();
  return url.toString();
};

const nextByUrl = (selfUrl: string, cursor: string): string => {
  const url = new URL(selfUrl);
  const params = new URLSearchParams(url.search);
  params.delete('cursor');
  params.append('cursor', cursor);
  url.search = params.toString();
  return url.toString();
};

const ORIGINS = [
  'http://127.0.0.1:1337',
  'https://api.example.com',
  'https://API.Example.com',
  'http://example.com:80',
  'https://example.com/base',
  'https://example.com/a b',
  'http://[::1]:8080',
];
const pathChar = fc.constantFrom(...'aZ09-._~!$&\'()*+,;=:@%/\\|^`{} "<>éü€.[]'.split(''));
const queryChar = fc.constantFrom(...'aZ09-._~[]=&,+%/?:@ é€#;"\''.split(''));
const path = fc
  .array(fc.oneof(pathChar, fc.constantFrom('/./', '/../', '%2e', '/%2E%2e/', '%41', '%zz')), { maxLength: 20 })
  .map((parts) => `/${parts.join('')}`);
const query = fc.option(
  fc.array(queryChar, { maxLength: 30 }).map((chars) => `?${chars.join('')}`),
  { nil: '' },
);

test('any target on any origin gives what URL and URLSearchParams give', () => {
  fc.assert(
    fc.property(fc.constantFrom(...ORIGINS), path, query, (origin, target, search) => {
      expect(canonicalUrl(origin, `${target}${search}`)).toBe(byUrl(`${origin}${target}${search}`));
    }),
    { numRuns: 5_000 },
  );
});

test('the usual targets', () => {
  const origin = 'http://127.0.0.1:1337';
  for (const target of [
    '/api/v2/events',
    '/api/v2/events?',
    '/api/v2/events?filter[slug][startsWith]=bench-&limit=10',
    '/api/v2/events?sort=-startsAt,title&fields[events]=title',
    '/api/v2/cms/site/pages/a%20b?include=sections.author',
    '/api/v2/events/./x/../y',
    '/api/v2/events?q=a#fragment',
  ]) {
    expect(canonicalUrl(origin, target)).toBe(byUrl(`${origin}${target}`));
  }
});

test("the next page's link: the request's parameters, the cursor replaced", () => {
  fc.assert(
    fc.property(fc.constantFrom(...ORIGINS), path, query, fc.string(), (origin, target, search, cursor) => {
      const self = canonicalUrl(origin, `${target}${search}`);
      expect(nextLink(self, cursor)).toBe(nextByUrl(self, cursor));
    }),
    { numRuns: 3_000 },
  );
  expect(nextLink('http://h/api/v2/events?cursor=a&limit=2', 'b')).toBe('http://h/api/v2/events?limit=2&cursor=b');
});

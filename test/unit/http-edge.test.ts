import fc from 'fast-check';
import { ApiError } from '../../src/plugins/public-api/server/src/http/errors';
import { assertAcceptable, assertJsonContentType } from '../../src/plugins/public-api/server/src/http/media-types';
import { createRouter } from '../../src/plugins/public-api/server/src/http/router';
import { isValidOriginRule, normalizeRequestOrigin, originAllowed } from '../../src/plugins/public-api/server/src/http/origins';

const statusOf = (fn: () => unknown): number | 'ok' => {
  try {
    fn();
    return 'ok';
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
};

describe('router', () => {
  const router = createRouter([
    { method: 'GET', path: '/', name: 'index' },
    { method: 'GET', path: '/schema', name: 'schema' },
    { method: 'GET', path: '/commands/schema', name: 'commands-schema' },
    { method: 'POST', path: '/commands/:command', name: 'command' },
    { method: 'GET', path: '/:resource', name: 'collection' },
    { method: 'POST', path: '/:resource', name: 'create' },
    { method: 'GET', path: '/:resource/:record', name: 'record' },
    { method: 'DELETE', path: '/:resource/:record', name: 'delete' },
    { method: 'GET', path: '/cms/:website/:collection', name: 'cms-collection' },
  ]);

  test('literal segments win over parameters', () => {
    expect(router.match('GET', '/schema').route?.name).toBe('schema');
    expect(router.match('GET', '/commands/schema').route?.name).toBe('commands-schema');
    expect(router.match('GET', '/events/abc')).toMatchObject({ route: { name: 'record' }, params: { resource: 'events', record: 'abc' } });
    expect(router.match('GET', '/cms/site/pages')).toMatchObject({
      route: { name: 'cms-collection' },
      params: { website: 'site', collection: 'pages' },
    });
  });

  test('a literal path answers 405 for methods only a parameter route has', () => {
    // POST /commands/schema is not the create route of a resource called "commands".
    expect(statusOf(() => router.match('POST', '/commands/schema'))).toBe(405);
  });

  test('405 lists the allowed methods', () => {
    try {
      router.match('PATCH', '/events/abc');
      throw new Error('expected 405');
    } catch (error) {
      expect((error as ApiError).status).toBe(405);
      expect((error as ApiError).headers.Allow).toBe('GET, HEAD, DELETE, OPTIONS');
    }
  });

  test('HEAD matches GET routes; segments are decoded', () => {
    expect(router.match('HEAD', '/events').route?.name).toBe('collection');
    expect(router.match('GET', '/events/caf%C3%A9').params.record).toBe('café');
  });

  test('unknown shapes and malformed encodings are 404', () => {
    expect(statusOf(() => router.match('GET', '/a/b/c/d'))).toBe(404);
    expect(statusOf(() => router.match('GET', '/a//b'))).toBe(404);
    expect(statusOf(() => router.match('GET', '/%E0%A4%A'))).toBe(404);
  });

  test('any path and method gives a match, a 404 or a 405, never anything else', () => {
    fc.assert(
      fc.property(fc.constantFrom('GET', 'HEAD', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS', 'TRACE'), fc.string(), (method, path) => {
        const result = statusOf(() => router.match(method, path));
        expect(['ok', 404, 405]).toContain(result);
      }),
    );
  });
});

describe('Accept', () => {
  test.each([
    undefined,
    '',
    '*/*',
    'application/*',
    'application/vnd.api+json',
    'application/vnd.api+json; profile="b"',
    'text/html,*/*;q=0.8',
  ])('%s is acceptable', (accept) => expect(statusOf(() => assertAcceptable(accept))).toBe('ok'));
  test.each([
    'text/html',
    'application/json',
    'application/vnd.api+json;charset=utf-8',
    'application/vnd.api+json;q=0',
    'image/*',
    'application/vnd.api+json; ext="a"; profile="b"',
  ])('%s is 406', (accept) => expect(statusOf(() => assertAcceptable(accept))).toBe(406));
  test('any header value gives ok or 406', () => {
    fc.assert(fc.property(fc.string(), (accept) => expect(['ok', 406]).toContain(statusOf(() => assertAcceptable(accept)))));
  });
});

describe('Content-Type', () => {
  test.each(['application/json', 'application/json; charset=utf-8', 'application/vnd.api+json', 'application/vnd.api+json; profile="x"'])(
    '%s is accepted',
    (type) => expect(statusOf(() => assertJsonContentType(type))).toBe('ok'),
  );
  test.each([undefined, '', 'text/plain', 'multipart/form-data; boundary=x', 'application/vnd.api+json; charset=utf-8'])(
    '%s is 415',
    (type) => expect(statusOf(() => assertJsonContentType(type))).toBe(415),
  );
});

describe('origin rules', () => {
  test.each(['https://shop.example', 'http://localhost:3000', 'https://*.example.com', 'HTTPS://Shop.Example/'])(
    '%s is a valid rule',
    (rule) => expect(isValidOriginRule(rule)).toBe(true),
  );
  test.each([
    '*',
    'https://*',
    'shop.example',
    'https://shop.example/path',
    'ftp://shop.example',
    'https://a.*.example',
    'https://shop.example:99999',
    'https://*example.com',
  ])('%s is not a valid rule', (rule) => expect(isValidOriginRule(rule)).toBe(false));

  test('wildcards match subdomains only, at label boundaries', () => {
    const rules = ['https://*.example.com'];
    expect(originAllowed(rules, 'https://a.example.com')).toBe(true);
    expect(originAllowed(rules, 'https://a.b.example.com')).toBe(true);
    expect(originAllowed(rules, 'https://example.com')).toBe(false);
    expect(originAllowed(rules, 'https://aexample.com')).toBe(false);
    expect(originAllowed(rules, 'http://a.example.com')).toBe(false);
    expect(originAllowed(rules, 'https://a.example.com.evil')).toBe(false);
    expect(originAllowed(rules, 'https://a.example.com:444')).toBe(false);
  });

  test('an empty list allows nothing, and no string ever matches it', () => {
    fc.assert(fc.property(fc.string(), (origin) => expect(originAllowed([], origin)).toBe(false)));
  });

  test.each([
    'https://shop.example/path',
    'https://shop.example/',
    'https://shop.example?x=1',
    'https://shop.example#top',
    'https://user@shop.example',
    'https://user:pass@shop.example',
    'https://shop.example:443',
    'http://shop.example:80',
    'https://shop.example:0443',
    'https://shop.ex\tample',
    'https://shop.example\\',
    'https://%73hop.example',
    'https://shöp.example',
    'ftp://shop.example',
    'null',
    'shop.example',
    '',
  ])('%j is no serialized origin: never matched, never echoed (issue 33)', (origin) => {
    expect(normalizeRequestOrigin(origin)).toBeNull();
    expect(originAllowed(['https://shop.example', 'https://*.example', 'http://shop.example'], origin)).toBe(false);
  });

  test('a serialized origin is itself, lower-cased', () => {
    expect(normalizeRequestOrigin('https://shop.example')).toBe('https://shop.example');
    expect(normalizeRequestOrigin('HTTPS://Shop.Example:8443')).toBe('https://shop.example:8443');
    expect(normalizeRequestOrigin('http://[::1]:3000')).toBe('http://[::1]:3000');
    expect(normalizeRequestOrigin('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
  });

  test('whatever a URL adds to an origin, the result is no origin; the origin alone is', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        const { origin } = new URL(url);
        fc.pre(origin.startsWith('http'));
        expect(normalizeRequestOrigin(origin)).toBe(origin);
        expect(normalizeRequestOrigin(url)).toBe(url === origin ? origin : null);
        expect(normalizeRequestOrigin(`${origin}/`)).toBeNull();
      }),
    );
    // Nothing is ever returned but what URL itself serializes as an origin.
    fc.assert(
      fc.property(fc.string(), (text) => {
        const result = normalizeRequestOrigin(text);
        if (result !== null) expect(new URL(result).origin).toBe(result);
      }),
    );
  });

  test('an exact rule matches only its own origin', () => {
    fc.assert(
      fc.property(fc.webUrl(), (url) => {
        const origin = new URL(url).origin;
        expect(originAllowed(['https://shop.example'], origin)).toBe(origin === 'https://shop.example');
      }),
    );
  });
});

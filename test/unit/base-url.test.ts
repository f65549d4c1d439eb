/**
 * Where links point (issue 13, defect 9): PUBLIC_URL when configured, else a validated host from the Host
 * header or an absolute-form request target; the link path is the target's path, whatever its form.
 */
import fc from 'fast-check';
import { ApiError } from '../../src/plugins/public-api/server/src/http/errors';
import {
  configuredOrigin,
  linkOrigin,
  originOf,
  requestTarget,
  type LinkSource,
} from '../../src/plugins/public-api/server/src/http/base-url';

const source = (host: string, overrides: Partial<LinkSource> = {}): LinkSource => ({
  configured: '',
  protocol: 'http',
  host: { value: host, header: 'Host' },
  target: requestTarget('/api/v2/events'),
  ...overrides,
});

const outcome = (run: () => string): string | ApiError => {
  try {
    return run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
};

/** What a header may carry on the wire, and what a request target's authority may. */
const headerText = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c !== 0x7f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 30,
});
const hostLike = fc.oneof(
  headerText,
  fc
    .tuple(fc.domain(), fc.option(fc.integer({ min: 0, max: 99999 }), { nil: undefined }))
    .map(([domain, port]) => (port === undefined ? domain : `${domain}:${port}`)),
  fc.ipV4(),
  fc.ipV6().map((address) => `[${address}]`),
  fc.constantFrom(
    '127.0.0.1http',
    'evil.example/x',
    'user@evil.example',
    'evil.example:80:80',
    '',
    ' ',
    'a b',
    '[::1',
    'x:',
    ':80',
    'ex%41mple',
  ),
);

describe('request targets', () => {
  test('origin form is kept as sent; absolute form gives its authority and its path and query', () => {
    expect(requestTarget('/api/v2/events?limit=1')).toEqual({ authority: null, pathAndQuery: '/api/v2/events?limit=1' });
    expect(requestTarget('http://127.0.0.1/api/v2/events?limit=1')).toEqual({
      authority: '127.0.0.1',
      pathAndQuery: '/api/v2/events?limit=1',
    });
    expect(requestTarget('https://evil.example:8080/api/v2')).toEqual({ authority: 'evil.example:8080', pathAndQuery: '/api/v2' });
    expect(requestTarget('http://h?x=1')).toEqual({ authority: 'h', pathAndQuery: '/?x=1' });
    // An origin-form path that merely contains a scheme is a path.
    expect(requestTarget('/api/v2/http://evil')).toEqual({ authority: null, pathAndQuery: '/api/v2/http://evil' });
  });
});

describe('hosts', () => {
  test('property: a host is accepted only as a plain host[:port], and the origin is exactly scheme://host[:port]', () => {
    fc.assert(
      fc.property(fc.constantFrom('http' as const, 'https' as const), hostLike, (protocol, host) => {
        const origin = originOf(protocol, host);
        if (origin === null) return;
        const url = new URL(origin);
        expect(url.origin).toBe(origin);
        expect(`${url.protocol}//${url.host}`).toBe(origin);
        expect(url.username + url.password).toBe('');
        // Nothing but a host and a port came in: no user information, path, query or space to smuggle.
        expect(host).toMatch(/^[A-Za-z0-9._~\-[\]:]+$/);
        expect(host).not.toMatch(/@|\/|\?|#|\\|\s/);
      }),
      { numRuns: 3000 },
    );
  });

  test('the forms of issue 13 and their kin', () => {
    expect(originOf('http', '127.0.0.1')).toBe('http://127.0.0.1');
    expect(originOf('http', 'API.Example.com:8080')).toBe('http://api.example.com:8080');
    expect(originOf('https', 'api.example.com:443')).toBe('https://api.example.com');
    expect(originOf('http', '[::1]:1337')).toBe('http://[::1]:1337');
    for (const bad of [
      '',
      'evil.example/x',
      'user@evil.example',
      'x:99999',
      'a b',
      'evil.example:80:80',
      '999.1.1.1',
      'ex%41mple',
      'é.example',
    ]) {
      expect(originOf('http', bad)).toBeNull();
    }
  });
});

describe('link origins', () => {
  test('property: with PUBLIC_URL configured, nothing the client sends changes the links', () => {
    fc.assert(
      fc.property(hostLike, fc.option(hostLike, { nil: null }), fc.string({ maxLength: 8 }), (host, authority, protocol) => {
        const result = outcome(() =>
          linkOrigin(source(host, { configured: 'https://api.example.com/', protocol, target: { authority, pathAndQuery: '/api/v2' } })),
        );
        expect(result).toBe('https://api.example.com');
      }),
      { numRuns: 1000 },
    );
  });

  test('property: without it, a link starts with the validated host, or the request is 400 naming the header', () => {
    fc.assert(
      fc.property(hostLike, (host) => {
        const result = outcome(() => linkOrigin(source(host)));
        if (result instanceof ApiError) {
          expect(result.status).toBe(400);
          expect(result.errors).toEqual([expect.objectContaining({ source: { header: 'Host' }, meta: { reason: 'host_invalid' } })]);
          expect(originOf('http', host)).toBeNull();
        } else {
          expect(result).toBe(originOf('http', host));
        }
      }),
      { numRuns: 2000 },
    );
  });

  test('an absolute-form target decides the host (RFC 9112 3.2.2); a malformed one is 400 without a header source', () => {
    expect(linkOrigin(source('evil.example', { target: requestTarget('http://127.0.0.1:1337/api/v2/events') }))).toBe(
      'http://127.0.0.1:1337',
    );
    const error = outcome(() => linkOrigin(source('127.0.0.1', { target: requestTarget('http://user@evil.example/api/v2/events') })));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).errors[0]).toMatchObject({ status: '400', meta: { reason: 'host_invalid' } });
    expect((error as ApiError).errors[0]!.source).toBeUndefined();
  });

  test('behind a trusted proxy: the forwarded host is judged and named; a forwarded protocol other than http(s) is 400', () => {
    const error = outcome(() => linkOrigin(source('evil/x', { host: { value: 'evil/x', header: 'X-Forwarded-Host' } })));
    expect((error as ApiError).errors[0]!.source).toEqual({ header: 'X-Forwarded-Host' });
    const proto = outcome(() => linkOrigin(source('api.example.com', { protocol: 'javascript' })));
    expect((proto as ApiError).errors[0]!.source).toEqual({ header: 'X-Forwarded-Proto' });
    expect(linkOrigin(source('api.example.com', { protocol: 'HTTPS' }))).toBe('https://api.example.com');
  });

  test('PUBLIC_URL counts only when it is an http(s) URL', () => {
    expect(configuredOrigin('https://api.example.com//')).toBe('https://api.example.com');
    expect(configuredOrigin('https://api.example.com/base')).toBe('https://api.example.com/base');
    for (const bad of ['', undefined, 'api.example.com', 'ftp://x', 'https://', 'http://exa mple.com'])
      expect(configuredOrigin(bad)).toBeNull();
  });
});

/**
 * Links and the request target (issue 13, defect 9). A request in absolute form (`GET http://host/api/v2/events
 * HTTP/1.1`, RFC 9112 3.2.2) is answered like any other, with links built from PUBLIC_URL when configured,
 * else from a host[:port] that was checked: the Host header, or the target's own authority in absolute
 * form. A malformed Host is 400, never a link. Spoken over raw sockets: supertest cannot send these.
 */
import fc from 'fast-check';
import { bootApp, type TestApp } from '../helpers/app';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { publish, uploadImage } from '../helpers/fixtures';
import { parseRawResponse, portOf, sendBytes, sendBytesUntilClosed, sendRequest, type RawResponse } from '../helpers/raw-http';

type Setup = { app: TestApp; port: number; auth: string };

const setUp = async (env: Record<string, string> = {}): Promise<Setup> => {
  const app = await bootApp(env);
  const image = await uploadImage(app.strapi, 'cover.png');
  for (const slug of ['a-night', 'b-night']) {
    await publish(app.strapi, 'api::event.event', {
      title: slug,
      slug,
      category: 'concert',
      startsAt: '2027-06-01T19:00:00.000Z',
      cover: image.id,
    });
  }
  const { auth } = await createKey(app.strapi, { resources: { 'native:events': { actions: ['read'], read: '*' } } });
  return { app, port: await portOf(app), auth };
};

/** Every absolute URL anywhere in a document. */
const urlsIn = (value: unknown): string[] => {
  if (typeof value === 'string') return /^[a-z][a-z0-9+.-]*:/i.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(urlsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(urlsIn);
  return [];
};

/** A page with a next link and an asset URL, every URL under `base`. */
const expectLinksUnder = (response: RawResponse, base: string) => {
  expect(response.status).toBe(200);
  const body = JSON.parse(response.text);
  expectValidJsonApi(body);
  const urls = urlsIn(body);
  expect(body.links.next).toBeDefined();
  expect(urls.some((url) => url.includes('/assets/'))).toBe(true);
  for (const url of urls) {
    expect(url.startsWith(`${base}/api/v2/`)).toBe(true);
    expect(new URL(url).origin).toBe(new URL(base).origin);
  }
  return body as { links: { self: string; next: string } };
};

const expectHostRefused = (response: RawResponse, header: string | null) => {
  expect(response.status).toBe(400);
  expect(response.headers['content-type']).toBe('application/vnd.api+json');
  const body = JSON.parse(response.text);
  expectValidJsonApi(body);
  expect(body.errors).toEqual([
    expect.objectContaining({
      status: '400',
      code: 'bad_request',
      meta: { reason: 'host_invalid' },
      ...(header ? { source: { header } } : {}),
    }),
  ]);
  if (!header) expect(body.errors[0].source).toBeUndefined();
};

/** One request as bytes on a socket, answered and closed. */
const raw = async (port: number, requestLine: string, headers: string[]) =>
  parseRawResponse(await sendBytes(port, `${requestLine}\r\n${[...headers, 'Connection: close'].join('\r\n')}\r\n\r\n`));

const headerText = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c !== 0x7f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 30,
});

describe('without PUBLIC_URL', () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp();
  });
  afterAll(async () => {
    await s?.app.close();
  });

  describe("what Node's HTTP parser refuses before any middleware: the same status, as a JSON:API error", () => {
    const refusal = async (bytes: string) => {
      const response = parseRawResponse(await sendBytesUntilClosed(s.port, bytes));
      expect(response.headers['content-type']).toBe('application/vnd.api+json');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers.connection).toBe('close');
      expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.text));
      const body = JSON.parse(response.text);
      expectValidJsonApi(body);
      expect(body.errors).toHaveLength(1);
      return { status: response.status, error: body.errors[0] };
    };

    test('a URL of 20 KB (a filter or fields list too long): 431, naming the bound', async () => {
      const target = `/api/v2/events?filter[title][in]=${'a,'.repeat(10_000)}a`;
      const { status, error } = await refusal(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${s.auth}\r\n\r\n`);
      expect(status).toBe(431);
      expect(error).toMatchObject({
        status: '431',
        code: 'request_header_fields_too_large',
        title: 'Request Header Fields Too Large',
        meta: { reason: 'header_section_too_large' },
      });
      expect(error.detail).toContain('16384 bytes');
    });

    test('header fields of 20 KB: 431', async () => {
      const { status } = await refusal(`GET /api/v2/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'p'.repeat(20_000)}\r\n\r\n`);
      expect(status).toBe(431);
    });

    test('a request that is not HTTP, and a header line without a colon: 400 malformed_http', async () => {
      for (const bytes of ['HELLO\r\n\r\n', 'GET /api/v2/ HTTP/1.1\r\nHost: 127.0.0.1\r\nNo colon here\r\n\r\n']) {
        const { status, error } = await refusal(bytes);
        expect(status).toBe(400);
        expect(error).toMatchObject({ code: 'bad_request', meta: { reason: 'malformed_http' } });
      }
    });

    test('the server goes on answering after each', async () => {
      const response = await raw(s.port, 'GET /api/v2/events?limit=1 HTTP/1.1', ['Host: 127.0.0.1', `Authorization: ${s.auth}`]);
      expect(response.status).toBe(200);
    });
  });

  test('absolute form with a port-less Host (the issue): 200, links from the target, never glued to the Host', async () => {
    const response = await raw(s.port, 'GET http://evil.example/api/v2/events?limit=1 HTTP/1.1', [
      'Host: 127.0.0.1',
      `Authorization: ${s.auth}`,
    ]);
    const body = expectLinksUnder(response, 'http://evil.example');
    expect(body.links.self).toBe('http://evil.example/api/v2/events?limit=1');
    expect(response.text).not.toContain('http//');
  });

  test('absolute form naming this server: the same document as origin form, and links.next leads on', async () => {
    const authority = `127.0.0.1:${s.port}`;
    const absolute = await raw(s.port, `GET http://${authority}/api/v2/events?limit=1 HTTP/1.1`, [
      `Host: ${authority}`,
      `Authorization: ${s.auth}`,
    ]);
    const origin = await sendRequest(s.port, { method: 'GET', target: '/api/v2/events?limit=1', headers: { Authorization: s.auth } });
    const body = expectLinksUnder(absolute, `http://${authority}`);
    // The same document, but for the cursors, which carry their time of issue.
    const withoutCursor = (text: string) => {
      const document = JSON.parse(text);
      return { ...document, links: { self: document.links.self }, meta: { ...document.meta, page: undefined } };
    };
    expect(withoutCursor(absolute.text)).toEqual(withoutCursor(origin.text));
    const next = new URL(body.links.next);
    const second = await raw(s.port, `GET ${next.href} HTTP/1.1`, [`Host: ${authority}`, `Authorization: ${s.auth}`]);
    expect(second.status).toBe(200);
    // The default order ends on the record id (a random documentId): either night may come first, and the
    // next page holds the other one.
    const slugsOf = (text: string): string[] => JSON.parse(text).data.map((record: { meta: { slug: string } }) => record.meta.slug);
    const [first] = slugsOf(absolute.text);
    expect(slugsOf(second.text)).toEqual([first === 'a-night' ? 'b-night' : 'a-night']);
  });

  test.each(['evil.example/x', 'user@evil.example', 'a.example, b.example', 'x:99999', 'a b', 'evil.example:80:80', '', 'évil.example'])(
    'Host %p is 400, with no link built from it',
    async (host) => {
      expectHostRefused(
        await sendRequest(s.port, { method: 'GET', target: '/api/v2/events', headers: { Host: host, Authorization: s.auth } }),
        'Host',
      );
    },
  );

  test('a malformed authority in absolute form is 400 too, whatever the Host', async () => {
    expectHostRefused(
      await raw(s.port, 'GET http://user@evil.example/api/v2/events HTTP/1.1', [`Host: 127.0.0.1:${s.port}`, `Authorization: ${s.auth}`]),
      null,
    );
  });

  test('HTTP/1.0 without Host: 400 (there is no host to link to)', async () => {
    expectHostRefused(await raw(s.port, 'GET /api/v2/events HTTP/1.0', [`Authorization: ${s.auth}`]), 'Host');
  });

  test('property: for any Host, every link starts with that host as checked, or the answer is 400', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(headerText, fc.domain(), fc.ipV4()), async (host) => {
        const response = await sendRequest(s.port, {
          method: 'GET',
          target: '/api/v2/events?limit=1',
          headers: { Host: host, Authorization: s.auth },
        });
        if (response.status === 400) return expectHostRefused(response, 'Host');
        expectLinksUnder(response, new URL(`http://${host}`).origin);
      }),
      { numRuns: 150, seed: 9_2026 },
    );
  });
});

describe('with PUBLIC_URL', () => {
  const PUBLIC_URL = 'https://api.example.com';
  let s: Setup;
  beforeAll(async () => {
    s = await setUp({ PUBLIC_URL });
  });
  afterAll(async () => {
    await s?.app.close();
    delete process.env.PUBLIC_URL;
  });

  test('links come from PUBLIC_URL whatever the Host or the target names', async () => {
    const cases = [
      await sendRequest(s.port, {
        method: 'GET',
        target: '/api/v2/events?limit=1',
        headers: { Host: 'evil.example', Authorization: s.auth },
      }),
      await sendRequest(s.port, {
        method: 'GET',
        target: '/api/v2/events?limit=1',
        headers: { Host: 'evil.example/x@y', Authorization: s.auth },
      }),
      await raw(s.port, 'GET http://evil.example/api/v2/events?limit=1 HTTP/1.1', ['Host: 127.0.0.1', `Authorization: ${s.auth}`]),
      await raw(s.port, 'GET http://user@evil.example:1/api/v2/events?limit=1 HTTP/1.1', ['Host: evil', `Authorization: ${s.auth}`]),
    ];
    for (const response of cases) {
      expect(expectLinksUnder(response, PUBLIC_URL).links.self).toBe(`${PUBLIC_URL}/api/v2/events?limit=1`);
    }
  });

  test('property: no Host changes a link', async () => {
    await fc.assert(
      fc.asyncProperty(headerText, async (host) => {
        expectLinksUnder(
          await sendRequest(s.port, { method: 'GET', target: '/api/v2/events?limit=1', headers: { Host: host, Authorization: s.auth } }),
          PUBLIC_URL,
        );
      }),
      { numRuns: 100, seed: 9_2026 },
    );
  });
});

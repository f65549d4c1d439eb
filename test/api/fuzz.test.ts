/**
 * Fuzzing the whole edge of /api/v2 (issue 13, "How we know"): random paths (native, CMS, records,
 * assets, commands), query parameters, headers and bodies, sent as raw HTTP so that nothing is
 * re-encoded on the way. Every answer is below 500, and every refusal is one JSON:API error document
 * whose status and code agree with the response (contract section 8).
 *
 * Inputs lean on what databases cannot store or compare (NUL, lone surrogates, years 0 and 10000, huge
 * numbers), on both SQLite and PostgreSQL (TEST_DATABASE=postgres). The seed is fixed so that a failure
 * can be replayed: FUZZ_SEED overrides it, FUZZ_RUNS the number of requests per property.
 */
import fc from 'fast-check';
import { bootApp, type TestApp } from '../helpers/app';
import { createKey } from '../helpers/keys';
import { expectValidJsonApi } from '../helpers/jsonapi';
import { publish, uploadImage, website } from '../helpers/fixtures';
import { portOf, sendRequest, type RawRequest, type RawResponse } from '../helpers/raw-http';
import { ERROR_STATUSES, type ErrorStatus } from '../../src/plugins/public-api/server/src/http/errors';
import { FILTER_OPERATORS } from '../../src/plugins/public-api/server/src/query/types';
import type { Field, Resource } from '../../src/plugins/public-api/server/src/registry/types';

const SEED = Number(process.env.FUZZ_SEED ?? 1_306_2026);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

let app: TestApp;
let port: number;
let auth: string;
let resources: Resource[];
/** Path segments that name something real, so that requests get past 404 often enough to matter. */
const known = { records: [] as string[], assetPath: '', cursor: '' };

const ALL = { actions: ['read', 'create', 'update', 'delete'], read: '*', write: '*' };

beforeAll(async () => {
  app = await bootApp();
  const s = app.strapi;
  port = await portOf(app);
  const site = await website(s, 'site-a', [
    { collection: 'pages', contentType: 'api::page.page', mode: 'collection' },
    { collection: 'settings', contentType: 'api::setting.setting', mode: 'singleton' },
  ]);
  const image = await uploadImage(s, 'cover.png');
  const hall = await publish(s, 'api::building.building', { name: 'Main Hall', slug: 'main-hall' });
  const fest = await publish(s, 'api::festival.festival', {
    name: 'Summer Fest',
    slug: 'summer-fest',
    startsOn: '2027-06-01',
    endsOn: '2027-06-03',
  });
  await publish(s, 'api::event.event', {
    title: 'Jazz Night',
    slug: 'jazz-night',
    category: 'concert',
    startsAt: '2027-06-01T19:00:00.000Z',
    tags: ['jazz'],
    venue: hall.documentId,
    festival: fest.documentId,
    cover: image.id,
  });
  await publish(s, 'api::job.job', {
    title: 'Engineer',
    slug: 'engineer',
    department: 'engineering',
    employmentType: 'full-time',
    closesOn: '2099-12-31',
  });
  await publish(s, 'api::product.product', { name: 'Ticket', slug: 'ticket', sku: 'T-1', price: 10, currency: 'EUR' });
  await publish(s, 'api::page.page', { title: 'About', slug: 'about', website: site.documentId });
  await publish(s, 'api::setting.setting', { siteName: 'Site A', website: site.documentId });
  known.records.push('main-hall', 'summer-fest', 'jazz-night', 'engineer', 'ticket', 'about', hall.documentId);

  resources = (await (s.plugin('public-api').service('resources') as { all: () => Promise<Resource[]> }).all()).filter(
    (resource) => resource.sourceType === 'native' || resource.website?.slug === 'site-a',
  );
  const grants = Object.fromEntries(
    resources.map((resource) => [
      resource.id,
      resource.mode === 'singleton' ? { actions: ['read', 'update'], read: '*', write: '*' } : ALL,
    ]),
  );
  auth = (await createKey(s, { resources: grants, commands: '*', origins: ['https://shop.example'] })).auth;

  const event = await sendRequest(port, { method: 'GET', target: '/api/v2/events/jazz-night', headers: { Authorization: auth } });
  known.assetPath = new URL(JSON.parse(event.text).data.attributes.cover.url).pathname.replace('/api/v2', '');
  await publish(s, 'api::event.event', { title: 'Film Night', slug: 'film-night', category: 'film', startsAt: '2027-07-01T19:00:00.000Z' });
  const page = await sendRequest(port, { method: 'GET', target: '/api/v2/events?limit=1', headers: { Authorization: auth } });
  known.cursor = JSON.parse(page.text).meta.page.nextCursor;
});
afterAll(async () => {
  await app?.close();
});

// ---------------------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------------------

/** What databases choke on, and what parsers get wrong. */
const NASTY = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00',
  '\udc00\ud800',
  '\ud83d\ude00',
  '0000-01-01',
  '10000-01-01',
  '0000-12-31T23:59:59Z',
  '0001-01-01T00:00:00+01:00',
  '9999-12-31T23:59:59-01:00',
  '+010000-01-01T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '1e309',
  '-1e309',
  '1e-400',
  '99999999999999999999999',
  '9007199254740993',
  '-0',
  'NaN',
  'Infinity',
  '',
  ' ',
  'null',
  'true',
  '%',
  '..',
  '__proto__',
  'constructor',
  'x'.repeat(1001),
  '\u202e',
  "'; DROP TABLE x; --",
  '\\',
  '*',
  ',,',
  '-',
];

const nastyText = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.string({ maxLength: 4 }), fc.constantFrom(...NASTY), fc.string({ maxLength: 4 })).map((parts) => parts.join('')),
  },
);

const DATES = ['2027-06-01', '0000-01-01', '0001-01-01', '9999-12-31', '10000-01-01', '2027-02-29', '2028-02-29'];
const DATETIMES = [
  '2027-06-01T19:00:00Z',
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '0001-01-01T00:30:00+01:00',
  '9999-12-31T23:59:59Z',
  '9999-12-31T23:30:00-01:00',
  '2027-06-01T19:00:00',
];
const NUMBERS = ['0', '-1', '1.5', '1e308', '1e309', '2147483648', '-2147483649', '99999999.99', '100000000', '9007199254740993', '0x10'];

/** A text that the parameter might accept, or junk. */
const parameterValue = fc.oneof(
  { weight: 3, arbitrary: nastyText },
  { weight: 2, arbitrary: fc.constantFrom(...DATES, ...DATETIMES, ...NUMBERS) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'title',
      '-title',
      'sort,-startsAt',
      'venue',
      'festival.events',
      'en',
      'de',
      'true',
      'false',
      'jazz-night,about',
    ),
  },
);

/** Percent-encodes every byte that is not unreserved; a lone surrogate as its (invalid) three UTF-8 bytes. */
const percentEncode = (text: string): string => {
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    const pair = unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const char = pair ? text.slice(i, i + 2) : text[i]!;
    if (pair) i += 1;
    const bytes =
      unit >= 0xd800 && unit <= 0xdfff && !pair
        ? Buffer.from([0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)])
        : Buffer.from(char, 'utf8');
    for (const byte of bytes) {
      const c = String.fromCharCode(byte);
      out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
};

/** Encodings no encoder makes: overlong NUL, a lone surrogate, a stray byte, broken escapes. */
const RAW_SEGMENTS = ['%00', '%C0%80', '%ED%A0%80', '%FF', '%', '%zz', '%E0%A4%A', '%2F', '..', '.'];

const segment = (names: string[]) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...names) },
    { weight: 3, arbitrary: nastyText.map(percentEncode) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...names), fc.constantFrom(...RAW_SEGMENTS)).map(([name, raw]) => `${name}${raw}`) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
  );

const resourceSlugs = () => [...new Set(resources.filter((r) => r.sourceType === 'native').map((r) => r.slug))];
const fieldNames = () => [
  ...new Set(resources.flatMap((r) => r.fields.map((f) => f.key))),
  'slug',
  'createdAt',
  'updatedAt',
  'publishedAt',
];

const pathArbitrary = () => {
  const resource = segment(resourceSlugs());
  const record = segment(known.records);
  const site = segment(['site-a', 'site-b']);
  const collection = segment(['pages', 'settings']);
  const command = segment(['job-application', 'newsletter-signup', 'schema']);
  return fc.oneof(
    fc.constantFrom('/', '/schema', '/openapi.json', '/commands/schema', '', '//', known.assetPath),
    resource.map((r) => `/${r}`),
    fc.tuple(resource, record).map(([r, id]) => `/${r}/${id}`),
    fc.tuple(site, collection).map(([w, c]) => `/cms/${w}/${c}`),
    fc.tuple(site, collection, record).map(([w, c, id]) => `/cms/${w}/${c}/${id}`),
    command.map((c) => `/commands/${c}`),
    fc.tuple(segment([known.assetPath.split('/')[2]!]), segment([known.assetPath.split('/')[3]!])).map(([t, f]) => `/assets/${t}/${f}`),
  );
};

const parameterName = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('limit', 'cursor', 'sort', 'locale', 'include', 'w', 'h', 'fit', 'format', 'q') },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom(...fieldNames()), fc.option(fc.constantFrom(...FILTER_OPERATORS), { nil: undefined }))
        .map(([f, op]) => `filter[${f}]${op ? `[${op}]` : ''}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(nastyText, fc.option(nastyText, { nil: undefined }))
        .map(([f, op]) => `filter[${f}]${op !== undefined ? `[${op}]` : ''}`),
    },
    { weight: 1, arbitrary: nastyText },
  );

/** Writes and commands judge the query before the body: a query on every request would hide the bodies. */
const rarely = (query: fc.Arbitrary<string>) => fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: query });

/** Parameters a collection of this resource takes, with values of the field's type, out of range, or junk. */
const collectionQuery = (resource: Resource) => {
  const fields = [...resource.fields.map((field) => field.key), 'slug', 'createdAt', 'updatedAt', 'publishedAt'];
  const name = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom(...fields), fc.option(fc.constantFrom(...FILTER_OPERATORS), { nil: undefined }))
        .map(([f, op]) => `filter[${f}]${op ? `[${op}]` : ''}`),
    },
    { weight: 1, arbitrary: fc.constantFrom('limit', 'cursor', 'sort', 'locale', 'include') },
  );
  return fc
    .uniqueArray(fc.tuple(name, parameterValue), { maxLength: 3, selector: ([n]) => n })
    .map((pairs) => (pairs.length ? `?${pairs.map(([n, v]) => `${percentEncode(n)}=${percentEncode(v)}`).join('&')}` : ''));
};

const resourcePath = (resource: Resource) =>
  resource.sourceType === 'native' ? `/${resource.slug}` : `/cms/${resource.website!.slug}/${resource.slug}`;

const queryArbitrary = () =>
  fc
    .array(fc.tuple(parameterName(), parameterValue), { maxLength: 4 })
    .map((pairs) => (pairs.length ? `?${pairs.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&')}` : ''));

// ---------------------------------------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------------------------------------

/** What a header value may hold on the wire: tab, printable ASCII and obs-text (Node refuses the rest). */
const headerText = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c !== 0x7f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 40,
});

/** Absent `oneIn - 1` times out of `oneIn`: each header that fails a request must leave most of them alone. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>, oneIn: number) =>
  fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

const headersArbitrary = (withBody: boolean) =>
  fc
    .record({
      Authorization: fc.oneof(
        { weight: 12, arbitrary: fc.constant('KEY') },
        { weight: 1, arbitrary: headerText },
        { weight: 1, arbitrary: headerText.map((t) => `Bearer pdk_${t}`) },
      ),
      Accept: fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(undefined, 'application/vnd.api+json', '*/*') },
        {
          weight: 1,
          arbitrary: fc.constantFrom('application/json', 'text/html', 'application/vnd.api+json; ext="x"', 'application/vnd.api+json;q=0'),
        },
        { weight: 1, arbitrary: headerText },
      ),
      'Content-Type': withBody
        ? fc.oneof(
            { weight: 12, arbitrary: fc.constantFrom('application/vnd.api+json', 'application/json') },
            { weight: 1, arbitrary: fc.constantFrom('text/plain', 'multipart/form-data; boundary=x', 'application/vnd.api+json; ext="x"') },
            { weight: 1, arbitrary: headerText },
          )
        : sometimes(headerText, 8),
      'Idempotency-Key': sometimes(fc.oneof({ weight: 4, arbitrary: fc.uuid() }, { weight: 1, arbitrary: headerText }), 4),
      Origin: sometimes(
        fc.oneof(
          { weight: 3, arbitrary: fc.constant('https://shop.example') },
          { weight: 1, arbitrary: fc.constantFrom('https://evil.example', 'null') },
          { weight: 1, arbitrary: headerText },
        ),
        5,
      ),
      Host: sometimes(
        fc.oneof(
          fc.constantFrom(
            'evil.example',
            'evil.example:8080',
            '[::1]:80',
            '',
            'a b',
            'x:99999',
            'host/path',
            'h?x',
            'user@host',
            'EVIL.example.',
          ),
          headerText,
        ),
        10,
      ),
    })
    .map((headers) => {
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value === 'KEY' ? auth : value;
      return out;
    });

// ---------------------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------------------

const jsonValue = fc.jsonValue({ maxDepth: 3 });

/** A value for one field: of its type but out of range or unstorable, or of another shape. */
const valueFor = (field: Field): fc.Arbitrary<unknown> => {
  const nasty = fc.oneof(nastyText, jsonValue);
  switch (field.type) {
    case 'date':
      return fc.oneof(fc.constantFrom(...DATES), nasty);
    case 'datetime':
      return fc.oneof(fc.constantFrom(...DATETIMES), nasty);
    case 'number':
      return fc.oneof(fc.double(), fc.integer(), fc.constantFrom(1e308, -1e308, 2 ** 31, 2 ** 53 + 2, 1e8, 0.001), nasty);
    case 'tags':
      return fc.oneof(fc.array(nastyText, { maxLength: 3 }), nasty);
    case 'richtext':
      return fc.oneof(
        nastyText.map((text) => ({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text }] }] })),
        nasty,
      );
    case 'relation':
    case 'image':
    case 'file':
      return fc.oneof(
        fc.constantFrom(...known.records),
        nastyText,
        nastyText.map((id) => ({ id })),
        nastyText.map((slug) => ({ slug })),
        nasty,
      );
    case 'relations':
    case 'images':
    case 'files':
      return fc.oneof(
        fc.array(
          fc.oneof(
            fc.constantFrom(...known.records),
            nastyText,
            nastyText.map((id) => ({ id })),
          ),
          { maxLength: 3 },
        ),
        nasty,
      );
    default:
      return fc.oneof(nastyText, nasty);
  }
};

const COMMAND_ATTRIBUTES: Record<string, fc.Arbitrary<unknown>> = {
  job: fc.oneof(fc.constantFrom('engineer'), nastyText),
  name: nastyText,
  email: fc.oneof(
    fc.constantFrom('ada@example.com'),
    nastyText.map((t) => `${t}@example.com`),
    nastyText,
  ),
  phone: nastyText,
  coverLetter: nastyText,
  consent: fc.oneof(fc.constant(true), jsonValue),
  locale: fc.oneof(fc.constantFrom('en'), nastyText),
  topics: fc.oneof(fc.array(nastyText, { maxLength: 3 }), jsonValue),
};

const attributesFor = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc
    .subarray(Object.keys(fields), { maxLength: 4 })
    .chain((names) => fc.tuple(...names.map((name) => fields[name]!.map((value) => [name, value] as const))))
    .chain((entries) =>
      sometimes(fc.tuple(nastyText, jsonValue), 6).map((extra) => ({
        ...(extra ? { [extra[0]]: extra[1] } : {}),
        ...Object.fromEntries(entries),
      })),
    );

const documentFor = (type: fc.Arbitrary<string>, fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc
    .tuple(type, attributesFor(fields), sometimes(nastyText, 10))
    .map(([t, attributes, id]) => ({ data: { type: t, ...(id !== undefined ? { id } : {}), attributes } }));

const bodyText = (document: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 8, arbitrary: document.map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: jsonValue.map((value) => JSON.stringify(value)) },
    // JSON with escapes JSON.stringify never writes: a lone surrogate, NUL, or not JSON at all.
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"data":{"type":"events","attributes":{"title":"\\ud800"}}}',
        '{"data":{"type":"events","attributes":{"title":"a\\u0000"}}}',
        '{',
        '',
        'null',
        '\u0000',
      ),
    },
  );

// ---------------------------------------------------------------------------------------------------------
// Checking an answer
// ---------------------------------------------------------------------------------------------------------

const describeRequest = (request: RawRequest) =>
  JSON.stringify({
    method: request.method,
    target: request.target,
    headers: { ...request.headers, Authorization: request.headers?.Authorization === auth ? '<key>' : request.headers?.Authorization },
    body: request.body?.toString().slice(0, 500),
  });

/** Below 500; a refusal is one JSON:API error document with this status and its code. */
const expectWellAnswered = (request: RawRequest, response: RawResponse) => {
  const context = `${response.status} for ${describeRequest(request)}\n${response.text.slice(0, 1000)}`;
  if (response.status >= 500) throw new Error(`Server error: ${context}`);
  if (response.status < 400 || request.method === 'HEAD') return;
  if (response.headers['content-type'] !== 'application/vnd.api+json')
    throw new Error(`Not a JSON:API error (${response.headers['content-type']}): ${context}`);
  const body = JSON.parse(response.text) as { errors?: { status: string; code: string; title: string }[] };
  expectValidJsonApi(body);
  const expected = ERROR_STATUSES[response.status as ErrorStatus];
  if (!expected || !body.errors?.length) throw new Error(`No error object for this status: ${context}`);
  for (const error of body.errors) {
    if (error.status !== String(response.status) || error.code !== expected.code || error.title !== expected.title) {
      throw new Error(`An error object disagrees with the status: ${context}`);
    }
  }
};

/** FUZZ_STATS=1 prints how often each answer came, to see that requests get past the first refusals. */
const answers = new Map<string, number>();
afterAll(() => {
  if (!process.env.FUZZ_STATS) return;
  const lines = [...answers].sort((a, b) => b[1] - a[1]).map(([answer, count]) => `${String(count).padStart(5)}  ${answer}`);
  process.stdout.write(`${lines.join('\n')}\n`);
});

const reasonOf = (response: RawResponse): string => {
  try {
    return (JSON.parse(response.text) as { errors?: { meta?: { reason?: string } }[] }).errors?.[0]?.meta?.reason ?? '';
  } catch {
    return '';
  }
};

const check = async (request: RawRequest) => {
  const response = await sendRequest(port, request);
  const answer = `${expect.getState().currentTestName?.split(':')[0]} ${request.method} ${response.status} ${reasonOf(response)}`;
  answers.set(answer, (answers.get(answer) ?? 0) + 1);
  expectWellAnswered(request, response);
};

const run = (property: fc.IAsyncPropertyWithHooks<[RawRequest]> | fc.IAsyncProperty<[RawRequest]>) =>
  fc.assert(property, { seed: SEED, numRuns: RUNS, endOnFailure: true });

// ---------------------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------------------

test('reads: any path and query with any headers', async () => {
  const request = fc
    .tuple(
      fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'OPTIONS', 'DELETE', 'PUT'),
      pathArbitrary(),
      queryArbitrary(),
      headersArbitrary(false),
    )
    .map(([method, path, query, headers]): RawRequest => ({ method, target: `/api/v2${path}${query}`, headers }));
  await run(fc.asyncProperty(request, check));
});

test('collections: filters, sort, include and cursor of each resource, with any values', async () => {
  const filtered = fc
    .constantFrom(...resources)
    .chain((resource) => collectionQuery(resource).map((query) => `${resourcePath(resource)}${query}`));
  // A real cursor of /events (bound to no filter and the default sort), as issued or with one character changed.
  const paged = fc
    .tuple(
      fc.oneof(
        fc.constant(known.cursor),
        fc
          .tuple(fc.nat(known.cursor.length - 1), fc.constantFrom('A', '_', '-', '\u0000'))
          .map(([at, char]) => `${known.cursor.slice(0, at)}${char}${known.cursor.slice(at + 1)}`),
      ),
      fc.option(fc.constantFrom('1', '100', '0', '101'), { nil: undefined }),
    )
    .map(([cursor, limit]) => `/events?cursor=${percentEncode(cursor)}${limit ? `&limit=${limit}` : ''}`);
  const request = fc
    .tuple(fc.oneof({ weight: 5, arbitrary: filtered }, { weight: 1, arbitrary: paged }), headersArbitrary(false))
    .map(([path, headers]): RawRequest => ({ method: 'GET', target: `/api/v2${path}`, headers }));
  await run(fc.asyncProperty(request, check));
});

test('writes: any body to any resource path', async () => {
  const writable = resources.filter((resource) => resource.fields.length);
  const body = fc
    .constantFrom(...writable)
    .chain((resource) =>
      bodyText(
        documentFor(
          fc.oneof({ weight: 9, arbitrary: fc.constant(resource.slug) }, { weight: 1, arbitrary: nastyText }),
          Object.fromEntries(resource.fields.map((field) => [field.key, valueFor(field)])),
        ),
      ).map((text) => [resource, text] as const),
    );
  const request = fc
    .tuple(fc.constantFrom('POST', 'PATCH'), body, segment(known.records), rarely(queryArbitrary()), headersArbitrary(true))
    .map(([method, [resource, text], record, query, headers]): RawRequest => {
      const base = resourcePath(resource);
      const path = method === 'PATCH' && resource.mode === 'collection' ? `${base}/${record}` : base;
      return { method, target: `/api/v2${path}${query}`, headers, body: text };
    });
  await run(fc.asyncProperty(request, check));
});

test('commands: any body to any command', async () => {
  const request = fc
    .tuple(fc.constantFrom('job-application', 'newsletter-signup'), rarely(queryArbitrary()), headersArbitrary(true))
    .chain(([command, query, headers]) =>
      bodyText(
        documentFor(fc.oneof({ weight: 9, arbitrary: fc.constant(command) }, { weight: 1, arbitrary: nastyText }), COMMAND_ATTRIBUTES),
      ).map((text): RawRequest => ({ method: 'POST', target: `/api/v2/commands/${command}${query}`, headers, body: text })),
    );
  await run(fc.asyncProperty(request, check));
});

test('request targets: absolute form, with any Host', async () => {
  const request = fc
    .tuple(
      fc.constantFrom('http', 'https', 'HTTP'),
      fc.constantFrom('127.0.0.1', 'evil.example', 'evil.example:8080', '[::1]', 'a:b@evil.example', 'EVIL.example.'),
      pathArbitrary(),
      queryArbitrary(),
      headersArbitrary(false),
    )
    .map(([scheme, authority, path, query, headers]): RawRequest => ({
      method: 'GET',
      target: `${scheme}://${authority}/api/v2${path}${query}`,
      headers,
    }));
  await run(fc.asyncProperty(request, check));
});

test('repeated parameters: any query of repeated and bad parameters on any route gives unique errors', async () => {
  // Issue 33 item 6: `?sort=%00&sort=%00` gave two identical error objects; JSON:API's schema requires
  // unique errors (expectWellAnswered validates against it), and a name sent twice is `parameter_repeated`.
  const name = fc.constantFrom(
    'sort',
    'filter[title]',
    'filter[title][eq]',
    'locale',
    'include',
    'fields[events]',
    'limit',
    'cursor',
    'status',
    'token',
    'unknown',
    '%00',
    'filter%00',
    'w',
  );
  const value = fc.constantFrom('%00', '', 'x', 'title', '-title', 'en', 'venue', '1', '%ED%A0%80', 'a%00b');
  const pairs = fc.array(fc.tuple(name, value, fc.integer({ min: 1, max: 3 })), { minLength: 1, maxLength: 4 });
  const target = fc.constantFrom(
    ['GET', '/events'],
    ['GET', '/events/jazz-night'],
    ['GET', '/cms/site-a/pages'],
    ['GET', '/cms/site-a/settings'],
    ['GET', '/sync'],
    ['GET', '/'],
    ['GET', '/schema'],
    ['OPTIONS', '/events'],
    ['PATCH', '/events/jazz-night'],
    ['DELETE', '/events/jazz-night'],
    ['GET', known.assetPath],
  );
  const request = fc.tuple(target, pairs).map(([[method, path], chosen]): RawRequest => {
    const query = chosen.flatMap(([n, v, times]) => Array.from({ length: times }, () => `${n}=${v}`)).join('&');
    return {
      method: method!,
      target: `/api/v2${path}?${query}`,
      headers: {
        Authorization: auth,
        Accept: 'application/vnd.api+json',
        ...(method === 'PATCH' ? { 'Content-Type': 'application/vnd.api+json' } : {}),
      },
      ...(method === 'PATCH' ? { body: '{"data":{"type":"events","id":"jazz-night","attributes":{}}}' } : {}),
    };
  });
  await run(
    fc.asyncProperty(request, async (sent) => {
      const response = await sendRequest(port, sent);
      expectWellAnswered(sent, response);
      if (response.status !== 400 || sent.method === 'HEAD') return;
      // A name sent more than once is named once, as `parameter_repeated`, whatever its values.
      const errors = (JSON.parse(response.text) as { errors: { source?: { parameter?: string }; meta?: { reason?: string } }[] }).errors;
      const counts = new Map<string, number>();
      for (const [n] of new URLSearchParams(sent.target.split('?')[1])) counts.set(n, (counts.get(n) ?? 0) + 1);
      const named = errors.map((error) => error.source?.parameter).filter((parameter) => parameter !== undefined);
      expect(new Set(named).size).toBe(named.length);
      for (const error of errors) {
        const parameter = error.source?.parameter;
        if (parameter !== undefined && (counts.get(parameter) ?? 0) > 1 && error.meta?.reason !== 'unstorable_text') {
          expect(error.meta?.reason).toBe('parameter_repeated');
        }
      }
    }),
  );
});

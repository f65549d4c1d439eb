/**
 * JSON:API 1.1 content negotiation (contract section 12, JSON:API 1.1 "Content Negotiation"), on the
 * pure functions the edge runs: Accept (406) and Content-Type (415), for an endpoint that supports no
 * extension (every endpoint today) and for one that supports Atomic Operations (the future /operations).
 *
 * Headers are generated as structured media ranges and written out the ways clients write them (case,
 * spacing, quoting, order), then judged against the rules as JSON:API words them.
 */
import fc from 'fast-check';
import { ApiError } from '../../src/plugins/public-api/server/src/http/errors';
import { ATOMIC_EXTENSION, assertAcceptable, assertJsonContentType } from '../../src/plugins/public-api/server/src/http/media-types';

const JSONAPI = 'application/vnd.api+json';
const OTHER_EXTENSION = 'https://example.com/ext/other';
const SUPPORT = { none: [] as string[], atomic: [ATOMIC_EXTENSION] };

const outcome = (fn: () => void): { status: number | 'ok'; reason?: unknown } => {
  try {
    fn();
    return { status: 'ok' };
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, reason: error.errors[0]?.meta?.reason };
    throw error;
  }
};

type Param = { name: string; value: string };
type Range = { type: string; params: Param[]; q: number | null };

const extValue = fc.subarray([ATOMIC_EXTENSION, OTHER_EXTENSION], { minLength: 1 }).map((uris) => uris.join(' '));
const param: fc.Arbitrary<Param> = fc.oneof(
  extValue.map((value) => ({ name: 'ext', value })),
  fc.constant({ name: 'profile', value: 'https://example.com/profile' }),
  fc.constant({ name: 'charset', value: 'utf-8' }),
  fc.constant({ name: 'foo', value: 'bar' }),
);
const range: fc.Arbitrary<Range> = fc.record({
  type: fc.constantFrom(JSONAPI, JSONAPI, '*/*', 'application/*', 'application/json', 'text/html'),
  params: fc.array(param, { maxLength: 2 }),
  q: fc.constantFrom(null, null, 0, 0.5, 1),
});

/** One way a client may write the range: any case for the type and names, spaces, quoted or bare values. */
const written = (value: Range): fc.Arbitrary<string> =>
  fc
    .record({
      upper: fc.boolean(),
      space: fc.constantFrom('', ' ', '  '),
      quote: fc.array(fc.boolean(), { minLength: value.params.length, maxLength: value.params.length }),
    })
    .map(({ upper, space, quote }) => {
      const type = upper ? value.type.toUpperCase() : value.type;
      const params = value.params.map((p, i) => {
        const bare = quote[i] === false && !/[\s,;"]/.test(p.value);
        return `;${space}${upper ? p.name.toUpperCase() : p.name}=${bare ? p.value : `"${p.value}"`}`;
      });
      return `${type}${params.join('')}${value.q === null ? '' : `;${space}q=${value.q}`}`;
    });

const acceptHeader = fc
  .array(range, { minLength: 1, maxLength: 4 })
  .chain((ranges) => fc.tuple(fc.constant(ranges), fc.tuple(...ranges.map(written)), fc.constantFrom(',', ', ', ' , ')))
  .map(([ranges, texts, separator]) => ({ ranges, header: texts.join(separator) }));

const weight = (r: Range) => r.q ?? 1;
const extensions = (r: Range) => r.params.filter((p) => p.name === 'ext').flatMap((p) => p.value.split(' '));
const onlyExtProfile = (r: Range) => r.params.every((p) => p.name === 'ext' || p.name === 'profile');

describe('Accept', () => {
  test.each(Object.entries(SUPPORT))(
    'JSON:API instances decide, whatever else is listed (supported extensions: %s)',
    (_name, supported) => {
      fc.assert(
        fc.property(acceptHeader, ({ ranges, header }) => {
          const { status } = outcome(() => assertAcceptable(header, supported));
          const instances = ranges.filter((r) => r.type === JSONAPI && weight(r) > 0);
          // JSON:API: 406 when all instances carry a parameter other than ext and profile ...
          if (instances.length > 0 && instances.every((r) => !onlyExtProfile(r))) expect(status).toBe(406);
          // ... and when every instance names an extension the server does not support.
          if (instances.length > 0 && instances.every((r) => extensions(r).some((uri) => !supported.includes(uri))))
            expect(status).toBe(406);
          // One instance the server can honour is enough.
          if (instances.some((r) => onlyExtProfile(r) && extensions(r).every((uri) => supported.includes(uri)))) expect(status).toBe('ok');
          // Without JSON:API named, a wildcard is needed (RFC 9110).
          if (ranges.every((r) => r.type !== JSONAPI)) {
            const wildcard = ranges.some((r) => (r.type === '*/*' || r.type === 'application/*') && weight(r) > 0);
            expect(status).toBe(wildcard ? 'ok' : 406);
          }
          // JSON:API named, but only with q=0: refused, a wildcard notwithstanding.
          if (ranges.some((r) => r.type === JSONAPI) && instances.length === 0) expect(status).toBe(406);
        }),
        { numRuns: 3000 },
      );
    },
  );

  test('adding a wildcard never makes an Accept that names JSON:API acceptable', () => {
    fc.assert(
      fc.property(acceptHeader, fc.constantFrom('*/*', 'application/*'), ({ ranges, header }, wildcard) => {
        if (!ranges.some((r) => r.type === JSONAPI)) return;
        expect(outcome(() => assertAcceptable(`${header}, ${wildcard}`)).status).toBe(outcome(() => assertAcceptable(header)).status);
      }),
      { numRuns: 2000 },
    );
  });

  test.each([
    [`${JSONAPI};foo=bar, */*`, 'media_type_parameters'],
    [`${JSONAPI};charset=utf-8, application/*`, 'media_type_parameters'],
    [`${JSONAPI}; ext="${ATOMIC_EXTENSION}"`, 'extension_unsupported'],
    [`${JSONAPI}; ext="${OTHER_EXTENSION}", */*`, 'extension_unsupported'],
    [`${JSONAPI};q=0, */*`, 'not_acceptable'],
  ])('%s is 406 (%s)', (accept, reason) => {
    expect(outcome(() => assertAcceptable(accept))).toEqual({ status: 406, reason });
  });

  test.each([
    `${JSONAPI}; ext="${ATOMIC_EXTENSION}", ${JSONAPI}`,
    `${JSONAPI};foo=bar, ${JSONAPI};profile="https://example.com/p"`,
    `${JSONAPI}; profile="https://a.example/p https://b.example/p"`,
    `${JSONAPI}; ext=""`,
  ])('%s is acceptable', (accept) => {
    expect(outcome(() => assertAcceptable(accept)).status).toBe('ok');
  });

  test('an endpoint that supports Atomic Operations accepts its ext, and only it', () => {
    expect(outcome(() => assertAcceptable(`${JSONAPI}; ext="${ATOMIC_EXTENSION}"`, SUPPORT.atomic)).status).toBe('ok');
    expect(outcome(() => assertAcceptable(`${JSONAPI}; ext="${ATOMIC_EXTENSION} ${OTHER_EXTENSION}"`, SUPPORT.atomic)).status).toBe(406);
  });

  test('a comma or semicolon inside a quoted value does not split the header', () => {
    expect(outcome(() => assertAcceptable(`${JSONAPI}; profile="https://example.com/a,b;c"`)).status).toBe('ok');
    expect(outcome(() => assertAcceptable(`${JSONAPI}; foo="a, */*"`)).status).toBe(406);
  });

  test('any header value gives ok or 406', () => {
    fc.assert(fc.property(fc.string(), (accept) => expect(['ok', 406]).toContain(outcome(() => assertAcceptable(accept)).status)));
  });
});

describe('Content-Type', () => {
  const contentType = fc
    .tuple(
      range.filter((r) => r.type !== '*/*' && r.type !== 'application/*'),
      fc.boolean(),
    )
    .chain(([r]) => written({ ...r, q: null }).map((header) => ({ r: { ...r, q: null }, header })));

  test.each(Object.entries(SUPPORT))(
    'JSON:API with ext/profile and supported extensions only, or plain JSON (supported: %s)',
    (_name, supported) => {
      fc.assert(
        fc.property(contentType, ({ r, header }) => {
          const { status, reason } = outcome(() => assertJsonContentType(header, supported));
          if (r.type === 'application/json') expect(status).toBe('ok');
          else if (r.type !== JSONAPI) expect({ status, reason }).toEqual({ status: 415, reason: 'unsupported_media_type' });
          else if (!onlyExtProfile(r)) expect({ status, reason }).toEqual({ status: 415, reason: 'media_type_parameters' });
          else if (extensions(r).some((uri) => !supported.includes(uri)))
            expect({ status, reason }).toEqual({ status: 415, reason: 'extension_unsupported' });
          else expect(status).toBe('ok');
        }),
        { numRuns: 2000 },
      );
    },
  );

  test('any header value gives ok or 415', () => {
    fc.assert(fc.property(fc.string(), (type) => expect(['ok', 415]).toContain(outcome(() => assertJsonContentType(type)).status)));
  });
});

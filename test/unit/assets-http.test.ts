/**
 * The pure parts of serving assets: conditional requests and ranges, transform parameters, format
 * sniffing and delivery headers.
 */
import fc from 'fast-check';
import sharp from 'sharp';
import { deliveryHeaders, deliveredMime, isActiveType, SANDBOX_POLICY } from '../../src/plugins/public-api/server/src/assets/delivery';
import { sniffRaster } from '../../src/plugins/public-api/server/src/assets/sniff';
import {
  normalizeTransformQuery,
  parseTransformQuery,
  resolveTransform,
  TRANSFORM_PARAMETERS,
  type TransformQuery,
} from '../../src/plugins/public-api/server/src/assets/transform-query';
import { decideRange, noneMatchHits } from '../../src/plugins/public-api/server/src/http/conditional';
import { ApiError } from '../../src/plugins/public-api/server/src/http/errors';

const ETAG = '"abc123"';

describe('If-None-Match', () => {
  test.each([
    [ETAG, true],
    [`W/${ETAG}`, true],
    [`"x", ${ETAG}`, true],
    [`"x",${ETAG} , "y"`, true],
    ['*', true],
    [' * ', true],
    ['"abc"', false],
    ['abc123', false],
    [`${ETAG}junk`, false],
    ['', false],
  ])('%s matches: %s', (header, expected) => {
    expect(noneMatchHits(header, ETAG)).toBe(expected);
  });

  test('no header matches nothing', () => {
    expect(noneMatchHits(undefined, ETAG)).toBe(false);
  });

  test('any header is judged without throwing', () => {
    fc.assert(fc.property(fc.string(), (header) => expect(typeof noneMatchHits(header, ETAG)).toBe('boolean')));
  });
});

describe('Range', () => {
  test.each([
    ['bytes=0-0', { kind: 'partial', range: { start: 0, end: 0 } }],
    ['bytes=0-99', { kind: 'partial', range: { start: 0, end: 99 } }],
    ['bytes=10-', { kind: 'partial', range: { start: 10, end: 99 } }],
    ['bytes=-1', { kind: 'partial', range: { start: 99, end: 99 } }],
    ['bytes=-100', { kind: 'partial', range: { start: 0, end: 99 } }],
    ['bytes=-1000', { kind: 'partial', range: { start: 0, end: 99 } }],
    ['bytes=50-1000', { kind: 'partial', range: { start: 50, end: 99 } }],
    ['bytes=99-99999999999999999999999', { kind: 'partial', range: { start: 99, end: 99 } }],
    ['Bytes = 1 - 2', { kind: 'partial', range: { start: 1, end: 2 } }],
    ['bytes=100-', { kind: 'unsatisfiable' }],
    ['bytes=100-200', { kind: 'unsatisfiable' }],
    ['bytes=99999999999999999999999-', { kind: 'unsatisfiable' }],
    ['bytes=-0', { kind: 'unsatisfiable' }],
    ['bytes=5-4', { kind: 'unsatisfiable' }],
    ['bytes=0-1,3-4', { kind: 'full' }],
    ['bytes=0-1,', { kind: 'full' }],
    ['bytes=', { kind: 'full' }],
    ['bytes=-', { kind: 'full' }],
    ['bytes=a-b', { kind: 'full' }],
    ['bytes=1.5-2', { kind: 'full' }],
    ['bytes=+1-2', { kind: 'full' }],
    ['bytes=0x10-', { kind: 'full' }],
    ['items=0-1', { kind: 'full' }],
    ['0-1', { kind: 'full' }],
  ])('%s on 100 bytes', (header, expected) => {
    expect(decideRange(header, undefined, 100, ETAG)).toEqual(expected);
  });

  test('no Range, or an If-Range that is not our strong tag, sends everything', () => {
    expect(decideRange(undefined, undefined, 100, ETAG)).toEqual({ kind: 'full' });
    expect(decideRange('bytes=0-1', ETAG, 100, ETAG)).toEqual({ kind: 'partial', range: { start: 0, end: 1 } });
    for (const ifRange of [`W/${ETAG}`, '"other"', 'Wed, 21 Oct 2015 07:28:00 GMT', '']) {
      expect(decideRange('bytes=0-1', ifRange, 100, ETAG)).toEqual({ kind: 'full' });
    }
  });

  test('an empty file has no satisfiable range', () => {
    expect(decideRange('bytes=0-', undefined, 0, ETAG)).toEqual({ kind: 'unsatisfiable' });
    expect(decideRange('bytes=-5', undefined, 0, ETAG)).toEqual({ kind: 'unsatisfiable' });
  });

  test('every partial answer lies inside the file and is not empty', () => {
    fc.assert(
      fc.property(fc.nat(10_000), fc.string(), (size, spec) => {
        const decision = decideRange(`bytes=${spec}`, undefined, size, ETAG);
        if (decision.kind !== 'partial') return;
        expect(decision.range.start).toBeGreaterThanOrEqual(0);
        expect(decision.range.end).toBeLessThan(size);
        expect(decision.range.start).toBeLessThanOrEqual(decision.range.end);
      }),
    );
  });

  test('a well-formed first-last range is honoured exactly when it starts inside the file', () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(2000), fc.nat(2000), (size, first, last) => {
        const decision = decideRange(`bytes=${first}-${last}`, undefined, size, ETAG);
        if (first < size && last >= first)
          expect(decision).toEqual({ kind: 'partial', range: { start: first, end: Math.min(last, size - 1) } });
        else expect(decision).toEqual({ kind: 'unsatisfiable' });
      }),
    );
  });
});

describe('transform parameters', () => {
  const parse = (query: string) => parseTransformQuery(new URLSearchParams(query));
  const problems = (query: string) => {
    try {
      parse(query);
    } catch (error) {
      if (error instanceof ApiError)
        return error.errors.map((e) => [e.source && 'parameter' in e.source ? e.source.parameter : null, e.meta?.reason]);
      throw error;
    }
    return [];
  };

  test('no parameters: the original', () => {
    expect(parse('')).toBeNull();
  });

  test('each parameter, read', () => {
    expect(parse('w=1&h=4096&fit=cover&format=avif&q=100')).toEqual({ width: 1, height: 4096, fit: 'cover', format: 'avif', quality: 100 });
    expect(parse('q=1')).toEqual({ width: null, height: null, fit: null, format: null, quality: 1 });
  });

  test('problems, in order, one per parameter', () => {
    expect(problems('w=0&w=1&x=1&fit=a&q=1e2&format=')).toEqual([
      ['w', 'parameter_repeated'],
      ['x', 'unknown_parameter'],
      ['fit', 'parameter_invalid'],
      ['q', 'parameter_invalid'],
      ['format', 'parameter_invalid'],
    ]);
  });

  test('any query either parses or is a 400 whose every error names a parameter that was sent', () => {
    const name = fc.oneof(fc.constantFrom(...TRANSFORM_PARAMETERS), fc.string({ maxLength: 6 }));
    const value = fc.oneof(
      fc.integer({ min: -10, max: 5000 }).map(String),
      fc.constantFrom('cover', 'webp', 'png', ''),
      fc.string({ maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { maxLength: 6 }), (pairs) => {
        const query = new URLSearchParams(pairs);
        try {
          const parsed = parseTransformQuery(query);
          if (parsed === null) expect(pairs).toEqual([]);
          else {
            for (const dimension of [parsed.width, parsed.height]) if (dimension !== null) expect(dimension).toBeGreaterThanOrEqual(1);
          }
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError);
          const apiError = error as ApiError;
          expect(apiError.status).toBe(400);
          for (const object of apiError.errors) {
            expect(pairs.map(([n]) => n)).toContain((object.source as { parameter: string }).parameter);
          }
        }
      }),
    );
  });

  const asked = (partial: Partial<TransformQuery>): TransformQuery => ({
    width: null,
    height: null,
    fit: null,
    format: null,
    quality: null,
    ...partial,
  });

  test('normalization drops what cannot change the output', () => {
    expect(normalizeTransformQuery(asked({ width: 10, fit: 'cover' }))).toEqual(asked({ width: 10 }));
    expect(normalizeTransformQuery(asked({ width: 10, height: 10 }))).toEqual(asked({ width: 10, height: 10, fit: 'inside' }));
    expect(normalizeTransformQuery(asked({ format: 'png', quality: 30 }))).toEqual(asked({ format: 'png' }));
    expect(normalizeTransformQuery(asked({ quality: 30 }))).toEqual(asked({ quality: 30 }));
  });

  test('resolving fills in the format and quality from the source', () => {
    expect(resolveTransform(asked({ width: 10 }), { format: 'jpeg', hasAlpha: false })).toEqual({
      width: 10,
      height: null,
      fit: null,
      format: 'jpeg',
      quality: 80,
    });
    expect(resolveTransform(asked({}), { format: 'webp', hasAlpha: true })).toMatchObject({ format: 'webp', quality: 80 });
    expect(resolveTransform(asked({}), { format: 'avif', hasAlpha: false })).toMatchObject({ format: 'avif', quality: 50 });
    expect(resolveTransform(asked({ quality: 5 }), { format: 'png', hasAlpha: false })).toMatchObject({ format: 'png', quality: null });
    expect(resolveTransform(asked({}), { format: 'gif', hasAlpha: false })).toMatchObject({ format: 'png' });
    expect(resolveTransform(asked({}), { format: 'tiff', hasAlpha: true })).toMatchObject({ format: 'png' });
    expect(resolveTransform(asked({}), { format: 'heif', hasAlpha: false })).toMatchObject({ format: 'jpeg' });
    expect(resolveTransform(asked({ format: 'webp', quality: 7 }), { format: 'png', hasAlpha: false })).toMatchObject({
      format: 'webp',
      quality: 7,
    });
  });
});

describe('sniffing raster formats', () => {
  const create = () => sharp({ create: { width: 4, height: 4, channels: 3, background: { r: 1, g: 2, b: 3 } } });

  test.each([
    ['jpeg', () => create().jpeg().toBuffer()],
    ['png', () => create().png().toBuffer()],
    ['gif', () => create().gif().toBuffer()],
    ['webp', () => create().webp().toBuffer()],
    ['avif', () => create().avif().toBuffer()],
    ['tiff', () => create().tiff().toBuffer()],
  ])('%s from its first bytes', async (format, make) => {
    expect(sniffRaster((await make()).subarray(0, 32))).toBe(format);
  });

  test.each([
    ['SVG', '<svg xmlns="http://www.w3.org/2000/svg"/>'],
    ['SVG after an XML declaration', '<?xml version="1.0"?><svg/>'],
    ['PDF', '%PDF-1.7'],
    ['HTML', '<!doctype html>'],
    ['nothing', ''],
    ['a PNG signature cut short', '\x89PNG'],
  ])('%s is not a raster image', (_label, text) => {
    expect(sniffRaster(Buffer.from(text, 'latin1'))).toBeNull();
  });

  test('an ISO media file that is not an image (MP4) is not a raster image', () => {
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(12)]);
    expect(sniffRaster(mp4)).toBeNull();
    const heic = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypheic'), Buffer.alloc(12)]);
    expect(sniffRaster(heic)).toBe('heif');
  });
});

describe('delivery headers', () => {
  test.each(['image/png', 'image/jpeg', 'application/pdf', 'text/plain', 'video/mp4', 'application/octet-stream'])(
    '%s is served as declared',
    (mime) => {
      expect(deliveryHeaders(mime)).toEqual({ 'Content-Type': mime });
    },
  );

  test('SVG is sandboxed but shown inline', () => {
    expect(deliveryHeaders('image/svg+xml')).toEqual({ 'Content-Type': 'image/svg+xml', 'Content-Security-Policy': SANDBOX_POLICY });
  });

  test.each(['text/html', 'application/xhtml+xml', 'text/xml', 'application/xml', 'application/rss+xml', 'text/javascript', 'TEXT/HTML'])(
    '%s is sandboxed and downloaded',
    (mime) => {
      expect(deliveryHeaders(mime)).toEqual({
        'Content-Type': mime.toLowerCase(),
        'Content-Security-Policy': SANDBOX_POLICY,
        'Content-Disposition': 'attachment',
      });
    },
  );

  test.each(['', 'png', 'image/png; charset=x', 'text/html\r\nSet-Cookie: a=b', 'image/', '/png', null, undefined])(
    '%p is not a media type: octet-stream',
    (mime) => {
      expect(deliveredMime(mime)).toBe('application/octet-stream');
      expect(isActiveType(deliveredMime(mime))).toBe(false);
    },
  );

  test('a header value never carries a line break', () => {
    fc.assert(
      fc.property(fc.string(), (mime) => {
        for (const value of Object.values(deliveryHeaders(mime))) expect(value).not.toMatch(/[\r\n]/);
      }),
    );
  });
});

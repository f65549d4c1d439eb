/**
 * The estimated cost of a transform (assets/transform-cost.ts): the output size for each fit without
 * enlargement, the pixels decoded (shrink-on-load for JPEG and WebP sources), the encoder's weight, and
 * which transforms count as cheap (the queue's lane for them).
 */
import {
  CHEAP_TRANSFORM_COST,
  CLIENT_TRANSFORM_COST,
  EXPENSIVE_TRANSFORM_COST,
  isCheapTransform,
  outputSize,
  transformCost,
  type SourceGeometry,
} from '../../src/plugins/public-api/server/src/assets/transform-cost';
import type { Transform } from '../../src/plugins/public-api/server/src/assets/transform-query';

const photo: SourceGeometry = { format: 'jpeg', width: 2400, height: 1600, orientation: 1 };
const ask = (asked: Partial<Transform>): Transform => ({ width: null, height: null, fit: null, format: 'webp', quality: 80, ...asked });

test.each([
  [{ width: 400 }, { width: 400, height: 267 }],
  [{ height: 400 }, { width: 600, height: 400 }],
  [{ width: 4000 }, { width: 2400, height: 1600 }],
  [{}, { width: 2400, height: 1600 }],
  [
    { width: 400, height: 400, fit: 'inside' as const },
    { width: 400, height: 267 },
  ],
  [
    { width: 400, height: 400, fit: 'outside' as const },
    { width: 600, height: 400 },
  ],
  [
    { width: 400, height: 400, fit: 'cover' as const },
    { width: 400, height: 400 },
  ],
  [
    { width: 3000, height: 100, fit: 'fill' as const },
    { width: 2400, height: 100 },
  ],
])('output of %j from 2400 x 1600: %j', (asked, size) => {
  expect(outputSize(photo, ask(asked))).toEqual(size);
});

test('a small thumbnail of a large JPEG is cheap; a large AVIF of it is not; a PNG source pays its whole decode', () => {
  expect(isCheapTransform(transformCost(photo, ask({ width: 400 })))).toBe(true);
  expect(isCheapTransform(transformCost(photo, ask({ width: 200, format: 'avif' })))).toBe(true);
  expect(isCheapTransform(transformCost(photo, ask({ width: 640 })))).toBe(false);
  expect(isCheapTransform(transformCost(photo, ask({ width: 1000, format: 'avif' })))).toBe(false);
  const png = { ...photo, format: 'png' as const };
  expect(transformCost(png, ask({ width: 100 }))).toBeGreaterThan(CHEAP_TRANSFORM_COST);
  // A 24-megapixel JPEG still shrinks while it loads: its thumbnail stays cheap.
  expect(isCheapTransform(transformCost({ format: 'jpeg', width: 6000, height: 4000, orientation: 1 }, ask({ width: 200 })))).toBe(true);
});

test('cost grows with output pixels and with the encoder: AVIF > WebP > PNG > JPEG for the same size', () => {
  const of = (format: Transform['format']) => transformCost(photo, ask({ width: 800, format }));
  expect(of('avif')).toBeGreaterThan(of('webp'));
  expect(of('webp')).toBeGreaterThan(of('png'));
  expect(of('png')).toBeGreaterThan(of('jpeg'));
  expect(transformCost(photo, ask({ width: 800 }))).toBeGreaterThan(transformCost(photo, ask({ width: 400 })));
});

test('an EXIF-rotated source is fitted upright: a width limit applies to its stored height', () => {
  const rotated = { ...photo, orientation: 6 };
  // Upright it is 1600 x 2400: 400 wide is 400 x 600, more than twice the pixels of 400 x 267 unrotated.
  expect(transformCost(rotated, ask({ width: 400 }))).toBeGreaterThan(2 * transformCost(photo, ask({ width: 400 })));
});

test("a client's share of cost (the transform queue's) fits three medium WebPs of a 24-megapixel photo, one AVIF of the same size", () => {
  const large: SourceGeometry = { format: 'jpeg', width: 6000, height: 4000, orientation: 1 };
  const webp = transformCost(large, ask({ width: 1000, format: 'webp' }));
  const avif = transformCost(large, ask({ width: 1000, format: 'avif' }));
  const fullAvif = transformCost(large, ask({ format: 'avif' }));
  expect(webp).toBeCloseTo(2.17, 2);
  expect(avif).toBeCloseTo(6.84, 2);
  expect(fullAvif).toBe(246);
  expect(3 * webp).toBeLessThanOrEqual(CLIENT_TRANSFORM_COST);
  expect(4 * webp).toBeGreaterThan(CLIENT_TRANSFORM_COST);
  expect(avif).toBeLessThanOrEqual(CLIENT_TRANSFORM_COST);
  expect(avif + webp).toBeGreaterThan(CLIENT_TRANSFORM_COST);
  // Expensive (held to all general turns but one): the AVIF, not the WebP.
  expect(avif).toBeGreaterThan(EXPENSIVE_TRANSFORM_COST);
  expect(webp).toBeLessThanOrEqual(EXPENSIVE_TRANSFORM_COST);
  expect(transformCost(photo, ask({ width: 1000, format: 'avif' }))).toBeGreaterThan(EXPENSIVE_TRANSFORM_COST);
  expect(transformCost(large, ask({ width: 2000, format: 'webp' }))).toBeGreaterThan(EXPENSIVE_TRANSFORM_COST);
  // A first thumbnail always fits beside anything cheap of the same client.
  expect(isCheapTransform(transformCost(large, ask({ width: 200, format: 'webp' })))).toBe(true);
});

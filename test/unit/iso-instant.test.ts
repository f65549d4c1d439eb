/**
 * values/iso-instant.ts writes every instant exactly as `Date.prototype.toISOString` does.
 */
import fc from 'fast-check';
import { isoInstant } from '../../src/plugins/public-api/server/src/values/iso-instant';

const FIRST = -62_167_219_200_000;
const LAST = 253_402_300_799_999;

test('any whole millisecond of the years 0000-9999 is written as toISOString writes it', () => {
  fc.assert(
    fc.property(fc.integer({ min: FIRST, max: LAST }), (ms) => {
      expect(isoInstant(ms)).toBe(new Date(ms).toISOString());
    }),
    { numRuns: 20_000 },
  );
});

test('the edges: the epoch, leap days, century years, the first and last four-digit instants', () => {
  const instants = [
    FIRST,
    LAST,
    0,
    -1,
    Date.UTC(2000, 1, 29, 23, 59, 59, 999),
    Date.UTC(1900, 1, 28, 12),
    Date.UTC(2100, 2, 1),
    Date.UTC(2024, 11, 31, 23, 59, 59, 999),
    Date.UTC(1969, 11, 31, 0, 0, 0, 1),
  ];
  for (const ms of instants) expect(isoInstant(ms)).toBe(new Date(ms).toISOString());
  expect(isoInstant(Date.UTC(2027, 5, 1, 19, 30))).toBe('2027-06-01T19:30:00.000Z');
});

test('outside the four-digit years and for fractions of a millisecond it is toISOString itself', () => {
  for (const ms of [FIRST - 1, LAST + 1, 8.64e15, -8.64e15, 1_788_080_400_000.7, -0.5]) {
    expect(isoInstant(ms)).toBe(new Date(ms).toISOString());
  }
  // An instant no date can hold throws as toISOString throws.
  expect(() => isoInstant(8.64e15 + 1)).toThrow(RangeError);
  expect(() => isoInstant(Number.NaN)).toThrow(RangeError);
});

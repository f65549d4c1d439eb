/**
 * What a request costs a key's budget (http/request-cost.ts, contract section 13, issue 34): the weights
 * of docs/api.md's table, counts from the request (untrusted: any number) never priced below nothing or
 * as a fraction, and the 429 of a charge the key cannot pay.
 */
import fc from 'fast-check';
import { MAX_REQUESTS } from '../../src/plugins/public-api/server/src/config/rate-limits';
import { MAX_BODY_BYTES } from '../../src/plugins/public-api/server/src/http/body';
import { costRefused } from '../../src/plugins/public-api/server/src/http/rate-limit';
import {
  COST_WEIGHTS,
  describeCost,
  expansionUnits,
  operationUnits,
  unitsOf,
  uploadUnits,
} from '../../src/plugins/public-api/server/src/http/request-cost';

const MiB = 1024 * 1024;

describe('the weights (docs/api.md, Rate limits)', () => {
  test('a request is one unit; the work beyond it is priced by the table', () => {
    expect(COST_WEIGHTS.request).toBe(1);
    expect(unitsOf({})).toBe(0);
    // Records expanded by include: a unit per started 50.
    expect([0, 1, 50, 51, 100, 1000].map(expansionUnits)).toEqual([0, 1, 1, 2, 2, 20]);
    // Atomic operations: a unit each.
    expect([0, 1, 100].map(operationUnits)).toEqual([0, 1, 100]);
    // Uploaded bytes: the first MiB is the request's, then a unit per started MiB.
    expect([0, MiB, MiB + 1, 2 * MiB, 3 * MiB + 400, 11 * MiB].map(uploadUnits)).toEqual([0, 0, 1, 1, 3, 10]);
  });

  test("the testers' flood: an atomic request of 100 adds spends 100 operations' worth, a maximal include 21 units", () => {
    expect(COST_WEIGHTS.request + unitsOf({ operations: 100 })).toBe(101);
    expect(COST_WEIGHTS.request + unitsOf({ expandedRecords: 1000 })).toBe(21);
  });

  test("the bytes a request's unit covers are the JSON body limit", () => {
    expect(COST_WEIGHTS.uploadBytesIncluded).toBe(MAX_BODY_BYTES);
  });

  test('a price past every quota is the largest quota: with the unit, more than any key may spend', () => {
    expect(uploadUnits(9.4e21)).toBe(MAX_REQUESTS);
    expect(expansionUnits(Number.MAX_SAFE_INTEGER)).toBe(MAX_REQUESTS);
    expect(COST_WEIGHTS.request + operationUnits(MAX_REQUESTS)).toBeGreaterThan(MAX_REQUESTS);
  });

  test('the parts add up, and the detail names each', () => {
    expect(unitsOf({ expandedRecords: 60, operations: 3, uploadedBytes: 3 * MiB })).toBe(2 + 3 + 2);
    expect(describeCost({ operations: 100 })).toBe('101 units (1 for the request, 100 for 100 atomic operations)');
    expect(describeCost({ expandedRecords: 60, uploadedBytes: 2 * MiB + 1 })).toBe(
      '5 units (1 for the request, 2 for 60 expanded records, 2 for 2097153 uploaded bytes)',
    );
    expect(describeCost({ expandedRecords: 0 })).toBe('1 units (1 for the request)');
  });
});

describe('counts of any kind (property)', () => {
  const anyNumber = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(NaN, Infinity, -Infinity, -0, Number.MAX_SAFE_INTEGER));

  test('every cost is a whole number of units, never below nothing', () => {
    fc.assert(
      fc.property(anyNumber, anyNumber, anyNumber, (expandedRecords, operations, uploadedBytes) => {
        const units = unitsOf({ expandedRecords, operations, uploadedBytes });
        expect(Number.isSafeInteger(units)).toBe(true);
        expect(units).toBeGreaterThanOrEqual(0);
        // However large: never more than three kinds at the largest quota each, and above any quota with the unit.
        expect(units).toBeLessThanOrEqual(3 * MAX_REQUESTS);
      }),
    );
  });

  test('more work never costs less, and the parts are priced on their own', () => {
    const count = fc.integer({ min: 0, max: 10_000_000 });
    fc.assert(
      fc.property(count, count, count, count, (a, b, c, more) => {
        const units = unitsOf({ expandedRecords: a, operations: b, uploadedBytes: c });
        expect(units).toBe(expansionUnits(a) + operationUnits(b) + uploadUnits(c));
        expect(unitsOf({ expandedRecords: a + more, operations: b, uploadedBytes: c })).toBeGreaterThanOrEqual(units);
        expect(unitsOf({ expandedRecords: a, operations: b + more, uploadedBytes: c })).toBeGreaterThanOrEqual(units);
        expect(unitsOf({ expandedRecords: a, operations: b, uploadedBytes: c + more })).toBeGreaterThanOrEqual(units);
      }),
    );
  });
});

describe('the 429 of a charge', () => {
  const limit = { requests: 20, window: 60 };

  test('more than what is left: rate_limited with Retry-After, the cost and what is left named', () => {
    const error = costRefused(limit, { remaining: 7, resetMs: 41_500 }, { operations: 10 });
    expect(error.status).toBe(429);
    expect(error.errors).toEqual([
      expect.objectContaining({
        status: '429',
        code: 'too_many_requests',
        detail:
          'This request costs 11 units (1 for the request, 10 for 10 atomic operations); this key has 7 of its 20 units of the 60-second window left. Nothing of it was done; retry after the time in Retry-After.',
        meta: { reason: 'rate_limited' },
      }),
    ]);
    expect(error.headers).toEqual({ 'RateLimit-Policy': '"key";q=20;w=60', RateLimit: '"key";r=7;t=42', 'Retry-After': '42' });
  });

  test('more than the whole quota: cost_over_quota, and no Retry-After (no wait helps)', () => {
    const error = costRefused(limit, { remaining: 19, resetMs: 59_000 }, { operations: 20 });
    expect(error.errors[0]).toMatchObject({ code: 'too_many_requests', meta: { reason: 'cost_over_quota' } });
    expect(error.errors[0]!.detail).toContain('costs 21 units');
    expect(error.errors[0]!.detail).toContain('whole quota of 20 units per 60-second window');
    expect(error.headers).toEqual({ 'RateLimit-Policy': '"key";q=20;w=60', RateLimit: '"key";r=19;t=59' });
    // Exactly the quota is not over it.
    expect(costRefused(limit, { remaining: 3, resetMs: 1 }, { operations: 19 }).errors[0]!.meta).toEqual({ reason: 'rate_limited' });
  });
});

/**
 * read/expansion.ts: the records an include tree expands, counted from ids before any is loaded, and the
 * largest `limit` that fits the bound.
 */
import fc from 'fast-check';
import {
  expandedFor,
  largestFittingLimit,
  MAX_EXPANDED_RECORDS,
  reachOf,
  type Reach,
} from '../../src/plugins/public-api/server/src/read/expansion';

const refs = (...ids: number[]) => ids.map((rowId) => ({ rowId }));

describe('reachOf', () => {
  test('each target once, at the first position that reaches it', () => {
    const owners = new Map([
      [10, 0],
      [11, 1],
      [12, 2],
    ]);
    const references = new Map([
      [12, refs(1, 2)],
      [11, refs(2, 3)],
      [10, refs(3)],
    ]);
    expect(reachOf(owners, references)).toEqual(
      new Map([
        [1, 2],
        [2, 1],
        [3, 0],
      ]),
    );
  });

  test('references of rows that are not owners at this node count for nothing', () => {
    expect(reachOf(new Map([[10, 0]]), new Map([[99, refs(1)]]))).toEqual(new Map());
  });
});

describe('expandedFor and largestFittingLimit', () => {
  // Two nodes: venue (targets 1, 2) and venue.events (targets 5, 6, 7).
  const reaches: Reach[] = [
    new Map([
      [1, 0],
      [2, 2],
    ]),
    new Map([
      [5, 0],
      [6, 1],
      [7, 2],
    ]),
  ];

  test('the sum over the nodes of the distinct targets the first records reach', () => {
    expect(expandedFor(reaches, 3)).toBe(5);
    expect(expandedFor(reaches, 2)).toBe(3);
    expect(expandedFor(reaches, 1)).toBe(2);
    expect(expandedFor(reaches, 0)).toBe(0);
  });

  test('the largest limit within the bound', () => {
    expect(largestFittingLimit(reaches, 3, 5)).toBe(3);
    expect(largestFittingLimit(reaches, 3, 4)).toBe(2);
    expect(largestFittingLimit(reaches, 3, 3)).toBe(2);
    expect(largestFittingLimit(reaches, 3, 2)).toBe(1);
    expect(largestFittingLimit(reaches, 3, 1)).toBe(0);
  });

  test('the default bound is 1,000 records', () => {
    const many: Reach = new Map(Array.from({ length: 1001 }, (_, id) => [id, Math.floor(id / 11)]));
    expect(MAX_EXPANDED_RECORDS).toBe(1000);
    expect(expandedFor([many], 100)).toBe(1001);
    expect(largestFittingLimit([many], 100)).toBe(90);
  });

  test('the limit named always fits, and one more record would not', () => {
    const reachArb = fc
      .integer({ min: 1, max: 30 })
      .chain((pageSize) =>
        fc.tuple(
          fc.constant(pageSize),
          fc.array(fc.array(fc.integer({ min: 0, max: pageSize - 1 }), { maxLength: 60 }), { maxLength: 4 }),
          fc.integer({ min: 0, max: 100 }),
        ),
      );
    fc.assert(
      fc.property(reachArb, ([pageSize, nodes, max]) => {
        const reachesOf = nodes.map((positions) => new Map(positions.map((position, id) => [id, position])));
        const fitting = largestFittingLimit(reachesOf, pageSize, max);
        expect(expandedFor(reachesOf, fitting)).toBeLessThanOrEqual(max);
        if (fitting < pageSize) expect(expandedFor(reachesOf, fitting + 1)).toBeGreaterThan(max);
      }),
    );
  });
});

/**
 * Page segments (read/segments.ts): reading a page segment by segment, each segment with its own
 * condition and order, gives exactly the rows after the position in the total order, in that order.
 * Checked against the in-memory reference semantics of query/keyset.ts, which the SQL rendering agrees
 * with (test/api/read-pagination.test.ts walks the same orders on a real database).
 */
import fc from 'fast-check';
import {
  compareRows,
  evaluate,
  keysetAfter,
  positionOf,
  totalSort,
  type KeysetTerm,
  type Row,
} from '../../src/plugins/public-api/server/src/query/keyset';
import { pageSegments, type Segment } from '../../src/plugins/public-api/server/src/read/segments';
import type { SqlKey } from '../../src/plugins/public-api/server/src/read/sql';

const keys = (key: string): SqlKey => ({ column: key, kind: 'number', nullable: key !== 'id' });

const rowsArbitrary = fc
  .uniqueArray(fc.integer({ min: 1, max: 5_000 }), { minLength: 1, maxLength: 40 })
  .chain((ids) =>
    fc.tuple(
      ...ids.map((id) =>
        fc
          .record({
            a: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null, freq: 3 }),
            b: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
          })
          .map((values): Row => ({ id, ...values })),
      ),
    ),
  )
  .map((rows) => [...rows]);

const sortArbitrary = fc
  .tuple(fc.constantFrom('asc' as const, 'desc' as const), fc.option(fc.constantFrom('asc' as const, 'desc' as const), { nil: undefined }))
  .map(([lead, second]): KeysetTerm[] => totalSort([{ key: 'a', direction: lead }, ...(second ? [{ key: 'b', direction: second }] : [])]));

/** What the segments read after `after`, as the database would: each segment filtered and ordered alone. */
const readSegments = (rows: Row[], segments: Segment[]): Row[] =>
  segments.flatMap((segment) =>
    rows
      .filter((row) => segment.leadIsNull === undefined || (row.a === null || row.a === undefined) === segment.leadIsNull)
      .filter((row) => !segment.after || evaluate(keysetAfter(segment.sort, segment.after), row))
      .sort(compareRows(segment.order)),
  );

const ids = (rows: Row[]) => rows.map((row) => row.id);

test('from the start, the segments read every row in the total order', () => {
  fc.assert(
    fc.property(rowsArbitrary, sortArbitrary, (rows, total) => {
      expect(ids(readSegments(rows, pageSegments(total, null, true, keys)))).toEqual(ids([...rows].sort(compareRows(total))));
    }),
  );
});

test('after any row, the segments read exactly the rows after it, in order', () => {
  fc.assert(
    fc.property(rowsArbitrary, sortArbitrary, fc.nat(), (rows, total, pick) => {
      const ordered = [...rows].sort(compareRows(total));
      const position = ordered[pick % ordered.length]!;
      const after = positionOf(total, position);
      expect(ids(readSegments(rows, pageSegments(total, after, true, keys)))).toEqual(ids(ordered.slice(ordered.indexOf(position) + 1)));
    }),
  );
});

test('a nullable lead splits the order into a valued and a null segment; nulls last ascending, first descending', () => {
  const asc = pageSegments(totalSort([{ key: 'a', direction: 'asc' }]), null, true, keys);
  expect(asc.map((segment) => segment.leadIsNull)).toEqual([false, true]);
  const desc = pageSegments(totalSort([{ key: 'a', direction: 'desc' }]), null, true, keys);
  expect(desc.map((segment) => segment.leadIsNull)).toEqual([true, false]);
  // Inside the valued segment the lead is declared never null: no null tests, so the index range holds.
  expect(asc[0]!.keys('a').nullable).toBe(false);
  expect(JSON.stringify(keysetAfter(asc[0]!.sort, [2, 7]))).not.toMatch(/isNull|notNull/);
  // The null segment's keyset is the rest alone; its order names the (null) lead for the index.
  expect(asc[1]!.sort.map((term) => term.key)).toEqual(['id']);
  expect(asc[1]!.order.map((term) => term.key)).toEqual(['a', 'id']);
});

test('after a position in the valued segment of a descending lead, nothing else is read; after a null, the valued segment follows', () => {
  const total = totalSort([{ key: 'a', direction: 'desc' }]);
  expect(pageSegments(total, [3, 10], true, keys).map((segment) => segment.leadIsNull)).toEqual([false]);
  expect(pageSegments(total, [null, 10], true, keys).map((segment) => [segment.leadIsNull, segment.after])).toEqual([
    [true, [10]],
    [false, null],
  ]);
});

test('a lead that cannot be null, or the id alone, is one segment with the plain keyset', () => {
  const total = totalSort([{ key: 'a', direction: 'asc' }]);
  expect(pageSegments(total, [1, 5], false, keys)).toEqual([{ sort: total, after: [1, 5], order: total, keys }]);
  const idOnly = totalSort([]);
  expect(pageSegments(idOnly, [5], true, keys)).toEqual([{ sort: idOnly, after: [5], order: idOnly, keys }]);
});

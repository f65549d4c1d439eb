/**
 * Keyset conditions: walking pages returns every row once, in order, with nulls last ascending and first
 * descending, also while rows come and go between pages.
 */
import fc from 'fast-check';
import {
  compareRows,
  evaluate,
  keysetAfter,
  keysetAfterPosition,
  orderBy,
  positionOf,
  totalSort,
  type Condition,
  type KeysetTerm,
  type Row,
} from '../../src/plugins/public-api/server/src/query/keyset';
import type { SortTerm } from '../../src/plugins/public-api/server/src/query/types';

// ---------------------------------------------------------------------------------------------------------
// Generators: few distinct values so that ties and nulls are common
// ---------------------------------------------------------------------------------------------------------

/** Column -> its values; `n` never holds null, so it may be declared not nullable. */
const COLUMNS = {
  a: fc.option(fc.integer({ min: -2, max: 2 }), { nil: null, freq: 3 }),
  b: fc.option(fc.constantFrom('', 'a', 'ab', 'B', 'é'), { nil: null, freq: 3 }),
  c: fc.option(fc.boolean(), { nil: null, freq: 3 }),
  d: fc.option(fc.constantFrom(0.5, -1.25, 3), { nil: null, freq: 2 }),
  n: fc.integer({ min: 0, max: 3 }),
} as const;
type Column = keyof typeof COLUMNS;
const COLUMN_NAMES = Object.keys(COLUMNS) as Column[];

const rowValues = fc.record(COLUMNS);

/** Rows with unique ids, the tiebreaker. */
const rowsArbitrary = (maxLength = 40) =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: 10_000 }), { maxLength })
    .chain((ids) => fc.tuple(...ids.map((id) => rowValues.map((values): Row => ({ id, ...values })))))
    .map((rows) => [...rows]);

const sortArbitrary: fc.Arbitrary<KeysetTerm[]> = fc
  .uniqueArray(fc.constantFrom(...COLUMN_NAMES), { maxLength: 4 })
  .chain((keys) =>
    fc.tuple(
      ...keys.map((key) =>
        fc.record({
          key: fc.constant(key),
          direction: fc.constantFrom('asc' as const, 'desc' as const),
          nullable: key === 'n' ? fc.boolean() : fc.constant(true),
        }),
      ),
    ),
  )
  .map((terms) => [...terms]);

const sorted = (rows: readonly Row[], sort: readonly SortTerm[]) => [...rows].sort(compareRows(sort));

/** The pages a client reads: the first `limit` rows, then the first `limit` after the last one, and so on. */
const walk = (
  sort: readonly KeysetTerm[],
  limit: number,
  table: () => readonly Row[],
  between: (page: number) => void = () => undefined,
): Row[] => {
  const order = totalSort(sort);
  const seen: Row[] = [];
  let condition: Condition = { type: 'constant', value: true };
  for (let page = 0; page < 10_000; page += 1) {
    const rows = sorted(
      table().filter((row) => evaluate(condition, row)),
      order,
    ).slice(0, limit);
    seen.push(...rows);
    if (rows.length < limit) return seen;
    condition = keysetAfter(order, positionOf(order, rows.at(-1)!));
    between(page);
  }
  throw new Error('The walk did not end');
};

const ids = (rows: readonly Row[]) => rows.map((row) => row.id);

/** Every key a condition tests for null. */
const nullTests = (condition: Condition): string[] => {
  switch (condition.type) {
    case 'and':
    case 'or':
      return condition.conditions.flatMap(nullTests);
    case 'isNull':
    case 'notNull':
      return [condition.key];
    default:
      return [];
  }
};

// ---------------------------------------------------------------------------------------------------------

describe('the order', () => {
  it('is described as data, nulls first exactly when descending', () => {
    expect(
      orderBy(
        totalSort([
          { key: 'price', direction: 'desc' },
          { key: 'title', direction: 'asc' },
        ]),
      ),
    ).toEqual([
      { key: 'price', direction: 'desc', nullsFirst: true },
      { key: 'title', direction: 'asc', nullsFirst: false },
      { key: 'id', direction: 'asc', nullsFirst: false },
    ]);
  });

  it('puts nulls last ascending and first descending', () => {
    const rows: Row[] = [{ id: 1, a: 2 }, { id: 2, a: null }, { id: 3, a: -1 }, { id: 4 }];
    expect(ids(sorted(rows, totalSort([{ key: 'a', direction: 'asc' }])))).toEqual([3, 1, 2, 4]);
    expect(ids(sorted(rows, totalSort([{ key: 'a', direction: 'desc' }])))).toEqual([2, 4, 1, 3]);
  });
});

describe('conditions', () => {
  const TITLE_ASC: KeysetTerm[] = totalSort([{ key: 'title', direction: 'asc' }]);

  it('leads with an index range on the first key, then compares term by term', () => {
    expect(keysetAfter(TITLE_ASC, ['Jazz', 7])).toEqual({
      type: 'and',
      conditions: [
        {
          type: 'or',
          conditions: [
            { type: 'cmp', key: 'title', op: 'gte', value: 'Jazz' },
            { type: 'isNull', key: 'title' },
          ],
        },
        {
          type: 'or',
          conditions: [
            { type: 'cmp', key: 'title', op: 'gt', value: 'Jazz' },
            { type: 'isNull', key: 'title' },
            {
              type: 'and',
              conditions: [
                { type: 'cmp', key: 'title', op: 'eq', value: 'Jazz' },
                { type: 'cmp', key: 'id', op: 'gt', value: 7 },
              ],
            },
          ],
        },
      ],
    });
  });

  it('uses a plain range when the first key is descending or cannot be null', () => {
    const descending = keysetAfter(totalSort([{ key: 'price', direction: 'desc' }]), [10, 7]);
    expect(descending.type === 'and' && descending.conditions[0]).toEqual({ type: 'cmp', key: 'price', op: 'lte', value: 10 });
    const notNull = keysetAfter(totalSort([{ key: 'createdAt', direction: 'asc', nullable: false }]), [5, 7]);
    expect(notNull.type === 'and' && notNull.conditions[0]).toEqual({ type: 'cmp', key: 'createdAt', op: 'gte', value: 5 });
    expect(nullTests(notNull)).toEqual([]);
  });

  it('continues among the nulls after a null, ascending', () => {
    expect(keysetAfter(TITLE_ASC, [null, 7])).toEqual({
      type: 'and',
      conditions: [
        { type: 'isNull', key: 'title' },
        { type: 'cmp', key: 'id', op: 'gt', value: 7 },
      ],
    });
  });

  it('continues with the nulls, then every value, after a null descending', () => {
    expect(keysetAfter(totalSort([{ key: 'title', direction: 'desc' }]), [null, 7])).toEqual({
      type: 'or',
      conditions: [
        { type: 'notNull', key: 'title' },
        {
          type: 'and',
          conditions: [
            { type: 'isNull', key: 'title' },
            { type: 'cmp', key: 'id', op: 'gt', value: 7 },
          ],
        },
      ],
    });
  });

  it('is one range for the id alone', () => {
    expect(keysetAfter(totalSort([]), [7])).toEqual({ type: 'cmp', key: 'id', op: 'gt', value: 7 });
  });

  it('takes a cursor position, appending the id', () => {
    expect(keysetAfterPosition([{ key: 'title', direction: 'asc' }], { values: ['Jazz'], id: 7 })).toEqual(
      keysetAfter(TITLE_ASC, ['Jazz', 7]),
    );
  });

  it('refuses a position that does not match the sort', () => {
    expect(() => keysetAfter(TITLE_ASC, ['Jazz'])).toThrow(RangeError);
    expect(() => keysetAfter([], [])).toThrow(RangeError);
  });

  it('tests for null only on nullable keys (or where the position is null)', () => {
    fc.assert(
      fc.property(sortArbitrary, rowsArbitrary(5), (sort, rows) => {
        const order = totalSort(sort);
        for (const row of rows) {
          const tested = new Set(nullTests(keysetAfter(order, positionOf(order, row))));
          for (const term of order) if (term.nullable === false && row[term.key] !== null) expect(tested.has(term.key)).toBe(false);
        }
      }),
    );
  });
});

describe('paging', () => {
  it('selects exactly the rows after each row', () => {
    fc.assert(
      fc.property(rowsArbitrary(), sortArbitrary, (rows, sort) => {
        const order = totalSort(sort);
        const all = sorted(rows, order);
        all.forEach((row, index) => {
          const after = keysetAfter(order, positionOf(order, row));
          expect(ids(all.filter((candidate) => evaluate(after, candidate)))).toEqual(ids(all.slice(index + 1)));
        });
      }),
      { numRuns: 300 },
    );
  });

  it('returns every row exactly once, in order, for any page size', () => {
    fc.assert(
      fc.property(rowsArbitrary(), sortArbitrary, fc.integer({ min: 1, max: 12 }), (rows, sort, limit) => {
        expect(ids(walk(sort, limit, () => rows))).toEqual(ids(sorted(rows, totalSort(sort))));
      }),
      { numRuns: 500 },
    );
  });

  it('never skips or repeats a remaining row while rows are inserted and deleted between pages', () => {
    const change = fc.record({
      deletions: fc.array(fc.nat(), { maxLength: 3 }),
      insertions: fc.array(rowValues, { maxLength: 3 }),
    });
    fc.assert(
      fc.property(
        rowsArbitrary(),
        sortArbitrary,
        fc.integer({ min: 1, max: 8 }),
        fc.array(change, { maxLength: 20 }),
        (initial, sort, limit, changes) => {
          let table = [...initial];
          let nextId = 10_001;
          const deleted = new Set<unknown>();
          const result = walk(
            sort,
            limit,
            () => table,
            (page) => {
              const { deletions, insertions } = changes[page] ?? { deletions: [], insertions: [] };
              for (const pick of deletions) {
                if (table.length === 0) break;
                const [gone] = table.splice(pick % table.length, 1);
                deleted.add(gone!.id);
              }
              table = [...table, ...insertions.map((values) => ({ id: nextId++, ...values }))];
            },
          );

          const order = totalSort(sort);
          const compare = compareRows(order);
          // Strictly increasing: in order, and nothing twice.
          for (let index = 1; index < result.length; index += 1) expect(compare(result[index - 1]!, result[index]!)).toBeLessThan(0);
          // Every row that stayed from start to end was read.
          const read = new Set(ids(result));
          for (const row of initial) if (!deleted.has(row.id)) expect(read.has(row.id)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});

/**
 * How a page is read when its leading sort key may be null: the order falls into two segments, the
 * rows with a value and the rows without (nulls last ascending, first descending). Each segment is
 * read by one query that fixes `(lead IS NULL)` and is ordered by the remaining keys, which an index on
 * `((lead IS NULL), lead, ..., id)` serves as a range at any depth. Pure.
 */
import type { KeysetTerm } from '../query/keyset';
import type { ScalarValue } from '../query/types';
import type { SqlKeys } from './sql';

/** A part of a page's order read by one query: see `page`. */
export type Segment = {
  /** Fixes `(lead IS NULL)` to this, or leaves it open (the lead cannot be null). */
  leadIsNull?: boolean;
  /** The keyset order inside the segment, and the position in it to read after (null: from its start). */
  sort: KeysetTerm[];
  after: ScalarValue[] | null;
  /**
   * The ORDER BY: `sort`, except that the null segment also orders by its (null) lead, which changes
   * nothing but lets the index serve the order.
   */
  order: KeysetTerm[];
  keys: SqlKeys;
};

/**
 * The segments a page reads, in order, from a position (values of the total sort) or from the start.
 * `test/unit/page-segments.test.ts` checks it against the in-memory order of `query/keyset.ts`.
 */
export const pageSegments = (total: KeysetTerm[], after: ScalarValue[] | null, leadNullable: boolean, keys: SqlKeys): Segment[] => {
  const [lead, ...rest] = total;
  if (!lead || !leadNullable || rest.length === 0) return [{ sort: total, after, order: total, keys }];
  // Inside a segment `(lead IS NULL)` is fixed: no null tests of the lead in its order or conditions.
  const segmentKeys: SqlKeys = (key) => (key === lead.key ? { ...keys(key), nullable: false } : keys(key));
  const valuedSort = [{ ...lead, nullable: false }, ...rest];
  const valued: Segment = { leadIsNull: false, sort: valuedSort, after: null, order: valuedSort, keys: segmentKeys };
  const nulls: Segment = {
    leadIsNull: true,
    sort: rest,
    after: null,
    order: [{ key: lead.key, direction: 'asc', nullable: false }, ...rest],
    keys: segmentKeys,
  };
  const ordered = lead.direction === 'asc' ? [valued, nulls] : [nulls, valued];
  if (!after) return ordered;
  const [leadValue, ...restValues] = after;
  // The position lies in one segment: the rest of that one, then every later one whole.
  if (leadValue === null) {
    const from = ordered.indexOf(nulls);
    return [{ ...nulls, after: restValues }, ...ordered.slice(from + 1)];
  }
  const from = ordered.indexOf(valued);
  return [{ ...valued, after }, ...ordered.slice(from + 1)];
};

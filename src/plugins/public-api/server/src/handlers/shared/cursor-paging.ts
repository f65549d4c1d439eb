/**
 * Keyset paging of a collection read (contract section 5): where a page starts, from the `cursor`
 * parameter, and the cursor of the page after it, from the page's last row. Cursors are bound to the
 * key, the resource and the query (its fingerprint), and carry the time they were issued, to the hour:
 * a page read again within the hour has the same bytes, so the same ETag (contract section 14); a
 * cursor so expires between 23 and 24 hours after it was served.
 */
import type { Projection } from '../../grants/projection';
import { apiError } from '../../http/errors';
import { decodeCursor, encodeCursor } from '../../query/cursor';
import type { ScalarValue, SortTerm } from '../../query/types';
import type { RecordRow } from '../../serialize/rows';
import { cursorValue } from '../../fields/sort-kinds';
import { systemKeyOf } from '../../fields/system-keys';
import { getService } from '../../utils/get-service';

/** What a cursor is bound to, and when it is judged (one instant for the whole request). */
export type CursorBinding = {
  keyId: string;
  resourceId: string;
  fingerprint: string;
  sort: readonly SortTerm[];
  now: number;
};

const cursorKey = () => getService('derived-keys').current().cursor;

export const CURSOR_TIME_STEP_MS = 60 * 60 * 1000;

/** The issue time a cursor carries: the start of the hour of `now`. */
export const issuedHour = (now: number): number => now - (now % CURSOR_TIME_STEP_MS);

/** The position a page starts after: the sort values and the id of the previous page's last row. */
export const pageStart = (cursor: string, binding: CursorBinding): ScalarValue[] => {
  const payload = decodeCursor(cursor, cursorKey(), {
    keyId: binding.keyId,
    resourceId: binding.resourceId,
    fingerprint: binding.fingerprint,
    sortLength: binding.sort.length,
    now: binding.now,
  });
  return [...payload.position.values, payload.position.id];
};

/** The value of one sort key on a row, as the cursor carries it. */
const positionValue = (projection: Projection, row: RecordRow, key: string): ScalarValue => {
  const sqlKey = getService('records').sqlKeysOf(projection)(key);
  // A system sort key's value is on the row itself (fields/system-keys.ts), a field's among its values.
  const system = systemKeyOf(key);
  const raw = system?.paging === 'sort' ? system.row(row) : row.values[key];
  return cursorValue(sqlKey.kind, raw);
};

/** The cursor of the page after the one that ends on `last`. */
export const nextCursor = (projection: Projection, last: RecordRow, binding: CursorBinding): string => {
  try {
    return encodeCursor(
      {
        keyId: binding.keyId,
        resourceId: binding.resourceId,
        fingerprint: binding.fingerprint,
        issuedAt: issuedHour(binding.now),
        position: { values: binding.sort.map((term) => positionValue(projection, last, term.key)), id: last.documentId },
      },
      cursorKey(),
    );
  } catch (error) {
    // Values too long to carry in a cursor (only pathological string data gets here).
    if (!(error instanceof RangeError)) throw error;
    throw apiError(400, 'These records cannot be paged in this order: a sort value is too long. Sort by another key.', {
      source: { parameter: 'sort' },
      reason: 'sort_value_too_long',
    });
  }
};

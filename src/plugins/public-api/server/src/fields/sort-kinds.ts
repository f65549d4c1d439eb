/**
 * How a sortable or filterable value is compared: the kind decides how it travels in a cursor and how
 * the database driver receives it. Field types (./table.ts) and system keys (./system-keys.ts) each
 * name their kind. Pure.
 */
import type { ScalarValue } from '../query/types';
import { toBoolean, toMillis, toNumber, toText } from '../values/database';

/** Datetimes travel as epoch milliseconds, the rest as JSON. */
export type SortValueKind = 'number' | 'boolean' | 'datetime' | 'text';

/** A row's value of a sort key, as the cursor carries it. */
export const cursorValue = (kind: SortValueKind, raw: unknown): ScalarValue => {
  switch (kind) {
    case 'number':
      return toNumber(raw);
    case 'boolean':
      return toBoolean(raw);
    case 'datetime':
      return toMillis(raw);
    default:
      return toText(raw);
  }
};

/** A cursor or filter value, as the database driver should receive it. */
export const bindValue = (kind: SortValueKind, value: ScalarValue): unknown =>
  kind === 'datetime' && typeof value === 'number' ? new Date(value) : value;

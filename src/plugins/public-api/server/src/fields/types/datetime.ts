/**
 * `datetime`: an instant (Strapi's datetime and timestamp), read and written as ISO 8601 in UTC. Pure.
 */
import { DATE_RANGE, parseDateTime } from '../../values/calendar';
import { toMillis } from '../../values/database';
import { isoInstant } from '../../values/iso-instant';
import type { ColumnCodec } from '../codec';
import { acceptValue, refuse, violation } from '../judge';

const DATETIME_ATTRIBUTES = new Set(['datetime', 'timestamp']);

/** An ISO 8601 date-time with a zone (`Z` or an offset), naming a real instant in the range; normalized to UTC. */
export const normalizeDatetime = (text: string): string | null => {
  const millis = parseDateTime(text);
  return millis === null ? null : new Date(millis).toISOString();
};

export const datetime: ColumnCodec = {
  type: 'datetime',
  storage: 'column',
  scalar: true,
  accepts: (attribute) => DATETIME_ATTRIBUTES.has(attribute.type),
  serialize: (raw) => {
    const millis = toMillis(raw);
    return millis === null ? null : isoInstant(millis);
  },
  readSchema: () => ({ schema: { type: 'string', format: 'date-time' }, nullable: 'unless-required' }),
  parseWrite: (raw, field, { pointer }) => {
    if (raw === null) return acceptValue(null);
    const normalized = typeof raw === 'string' ? normalizeDatetime(raw) : null;
    return normalized !== null
      ? acceptValue(normalized)
      : refuse(
          violation(
            pointer,
            `'${field.key}' takes an ISO 8601 date-time with a zone, like 2027-06-01T19:30:00Z, ${DATE_RANGE} in UTC, or null.`,
          ),
        );
  },
  writeSchema: () => ({ schema: { type: 'string', format: 'date-time' }, nullable: 'unless-required' }),
  filter: () => ({ type: 'datetime' }),
  sortKind: 'datetime',
  sortable: () => true,
};

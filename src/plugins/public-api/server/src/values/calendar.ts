/**
 * Dates and instants as the API accepts them, in filters and in writes alike (issue 13, defect 8). Pure.
 *
 * Only years 0001 to 9999 are accepted: PostgreSQL has no year 0 (it refuses `0000-01-01` where SQLite
 * stores it), and ISO 8601 writes four-digit years unless both sides agree on an expansion. An instant
 * counts in UTC: `0001-01-01T00:30:00+01:00` is in year 0 and refused, as is `9999-12-31T23:30:00-01:00`.
 */

export const MIN_YEAR = 1;
export const MAX_YEAR = 9999;

const utc = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0, millis = 0): number => {
  // Set fields one by one: Date.UTC reads years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return date.getTime();
};

/** The first and the last millisecond both databases store, as Unix milliseconds. */
export const MIN_INSTANT = utc(MIN_YEAR, 1, 1);
export const MAX_INSTANT = utc(MAX_YEAR, 12, 31, 23, 59, 59, 999);

/** What callers are told. */
export const DATE_RANGE = `from ${String(MIN_YEAR).padStart(4, '0')}-01-01 to ${MAX_YEAR}-12-31`;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):(\d{2}))$/;

const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const isRealDay = (year: number, month: number, day: number): boolean =>
  month >= 1 && month <= 12 && day >= 1 && day <= (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!);

/** `YYYY-MM-DD` of a real day in the range, as sent; null otherwise. */
export const parseDate = (text: string): string | null => {
  const match = DATE.exec(text);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return year >= MIN_YEAR && year <= MAX_YEAR && isRealDay(year, month, day) ? text : null;
};

/**
 * An RFC 3339 date-time with `Z` or an offset (a time without one names no instant) -> Unix milliseconds,
 * or null when it is malformed, names no real time, or falls outside the range in UTC. Seconds are
 * optional; fractions beyond milliseconds are cut.
 */
export const parseDateTime = (text: string): number | null => {
  const match = DATETIME.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second = '0', fraction = '', zone, offsetHours, offsetMinutes] = match;
  // The range is judged on the instant: `0000-12-31T23:30:00-01:00` is 0001-01-01 in UTC, and stored so.
  if (!isRealDay(Number(year), Number(month), Number(day))) return null;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  if (zone !== 'Z' && (Number(offsetHours) > 23 || Number(offsetMinutes) > 59)) return null;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  const offset = zone === 'Z' ? 0 : (zone!.startsWith('-') ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  const instant = utc(Number(year), Number(month), Number(day), Number(hour), Number(minute), Number(second), millis) - offset * 60_000;
  return instant >= MIN_INSTANT && instant <= MAX_INSTANT ? instant : null;
};

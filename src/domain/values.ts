/**
 * Reading field values the way they arrive: from the admin as JSON strings, from code as Date or
 * number. Pure.
 *
 * A value that cannot be read yields null and the rules stay silent about it: Strapi's own type
 * validation rejects malformed values with a better message than a domain rule could.
 */

/** A datetime as epoch milliseconds. */
export const instantOf = (value: unknown): number | null => {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.getTime();
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const time = Date.parse(value);
    return Number.isNaN(time) ? null : time;
  }
  return null;
};

const CALENDAR_DAY = /^(\d{4})-(\d{2})-(\d{2})/;

/** A date as `YYYY-MM-DD`, which orders correctly as a string. */
export const calendarDayOf = (value: unknown): string | null => {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString().slice(0, 10);
  if (typeof value !== 'string') return null;
  const match = CALENDAR_DAY.exec(value.trim());
  if (!match) return null;
  const [, year, month, day] = match;
  const parsed = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  // Rejects 2025-02-30 and friends, which Date.UTC would silently roll over.
  return parsed.getUTCMonth() === Number(month) - 1 && parsed.getUTCDate() === Number(day) ? `${year}-${month}-${day}` : null;
};

/** A number (integer or decimal); decimals may arrive as strings. */
export const amountOf = (value: unknown): number | null => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const amount = Number(value);
    return Number.isFinite(amount) ? amount : null;
  }
  return null;
};

/** A non-empty string, trimmed. */
export const textOf = (value: unknown): string | null => {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return text === '' ? null : text;
};

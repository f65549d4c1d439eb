/**
 * Database values -> JSON values, identically for SQLite (epoch-ms datetimes, 0/1 booleans, JSON as
 * text) and PostgreSQL (Date objects, booleans, JSON as text). Pure.
 */

export const toMillis = (raw: unknown): number | null => {
  if (raw === null || raw === undefined) return null;
  if (raw instanceof Date) return raw.getTime();
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'string') {
    const numeric = Number(raw);
    if (raw.trim() !== '' && Number.isFinite(numeric)) return numeric;
    const parsed = Date.parse(raw);
    return Number.isNaN(parsed) ? null : parsed;
  }
  return null;
};

export const toBoolean = (raw: unknown): boolean | null =>
  raw === null || raw === undefined ? null : raw === true || raw === 1 || raw === '1' || raw === 't' || raw === 'true';

export const toNumber = (raw: unknown): number | null => {
  if (raw === null || raw === undefined || raw === '') return null;
  const value = typeof raw === 'number' ? raw : Number(raw);
  return Number.isFinite(value) ? value : null;
};

export const toJson = (raw: unknown): unknown => {
  if (typeof raw !== 'string') return raw ?? null;
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
};

/** `YYYY-MM-DD`, whatever the driver returned. */
export const toDate = (raw: unknown): string | null => {
  if (raw === null || raw === undefined) return null;
  if (raw instanceof Date) return raw.toISOString().slice(0, 10);
  const text = String(raw);
  return /^\d{4}-\d{2}-\d{2}/.test(text) ? text.slice(0, 10) : null;
};

export const toText = (raw: unknown): string | null => (raw === null || raw === undefined ? null : String(raw));

export const toTags = (raw: unknown): string[] => {
  // Most records have no tags: no JSON to parse for those (a parse per record was 1.5% of a page).
  if (raw === null || raw === undefined || raw === '[]') return [];
  const value = toJson(raw);
  return Array.isArray(value) ? value.filter((tag): tag is string => typeof tag === 'string') : [];
};

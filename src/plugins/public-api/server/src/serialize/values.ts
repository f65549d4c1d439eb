/**
 * Database values -> JSON values, identically for SQLite (epoch-ms datetimes, 0/1 booleans, JSON as
 * text) and PostgreSQL (Date objects, booleans, JSON as text). Pure.
 */
import type { FieldType } from '../registry/types';
import type { ScalarValue } from '../query/types';

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

export const toBoolean = (raw: unknown): boolean | null => (raw === null || raw === undefined ? null : raw === true || raw === 1 || raw === '1' || raw === 't' || raw === 'true');

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
  const value = toJson(raw);
  return Array.isArray(value) ? value.filter((tag): tag is string => typeof tag === 'string') : [];
};

/** A scalar field's JSON value. */
export const scalarValue = (type: FieldType, raw: unknown): ScalarValue => {
  switch (type) {
    case 'number':
      return toNumber(raw);
    case 'boolean':
      return toBoolean(raw);
    case 'date':
      return toDate(raw);
    case 'datetime': {
      const millis = toMillis(raw);
      return millis === null ? null : new Date(millis).toISOString();
    }
    default:
      return toText(raw);
  }
};

/** How a sort key's value travels in a cursor: datetimes as epoch milliseconds, the rest as JSON. */
export type SortValueKind = 'number' | 'boolean' | 'datetime' | 'text';

export const sortKind = (type: FieldType | 'system-datetime' | 'system-text' | 'system-number'): SortValueKind => {
  switch (type) {
    case 'number':
    case 'system-number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'datetime':
    case 'system-datetime':
      return 'datetime';
    default:
      return 'text';
  }
};

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

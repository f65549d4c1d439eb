/**
 * SQLite statements whose plan does not depend on the values bound to them, so that a prepared statement
 * is planned once (issue 16).
 *
 * SQLite (as better-sqlite3 bundles it) reads some bound values while it plans: a `LIMIT ?`, and the right
 * side of a `col = ?` term that a candidate loop of the plan does not look up by index (its guess of how
 * many rows such a term keeps differs for 0 and 1). It then marks the statement to be planned again when
 * those parameters change, and better-sqlite3 clears every binding after each run, which SQLite counts as
 * a change: every run of such a statement was parsed and planned again as if it had never been prepared.
 * Measured on the benchmark database: the key lookup 24 us a run against 5 us, the media of a record 37 us
 * against 7 us; perf put a fifth of a single-record read's CPU under `sqlite3Reprepare`. SQLite's own
 * remedy, the query planner stability guarantee, is a connection setting better-sqlite3 does not expose.
 *
 * So the text is written so that no value is seen while planning:
 * - a shape's LIMIT and OFFSET constants are written out as digits: they are the same on every read of
 *   the shape. Only non-negative safe integers, and only right after LIMIT or OFFSET (elsewhere digits
 *   can mean something else: `ORDER BY 1` is the first column);
 * - every placeholder left is written `+?`. The unary plus is SQLite's no-op: the same value, type,
 *   affinity (none) and collation, still usable for an index lookup, but not a parameter the planner reads.
 *
 * Quoted text is skipped. When the placeholders do not pair with the slots one to one, the statement is
 * left as it was (it still answers right; it is only planned on each run). Pure.
 */

export type Slot = { param: number } | { constant: unknown };

const isInlinable = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * A placeholder that is the count of a LIMIT or OFFSET (elsewhere a number can mean a column: `ORDER BY 1`),
 * tested on the last few characters before it only, so a long statement is not scanned once per placeholder.
 */
const AFTER_LIMIT = /\b(?:limit|offset)\s*$/i;

/**
 * `sql` with each `?` outside quoted text replaced by `replace(its index)`, or null when the text names a
 * parameter by number (`?NNN`: not what knex writes, and not one placeholder per binding).
 */
const mapPlaceholders = (sql: string, replace: (index: number, before: string) => string): string | null => {
  let out = '';
  let quote: string | null = null;
  let placeholder = 0;
  for (let i = 0; i < sql.length; i += 1) {
    const char = sql[i]!;
    if (quote) {
      if (char === quote) {
        // A doubled quote inside a quoted run is the quote itself, and the run goes on.
        if (sql[i + 1] === quote) {
          out += char + char;
          i += 1;
          continue;
        }
        quote = null;
      }
      out += char;
      continue;
    }
    if (char === "'" || char === '"' || char === '`' || char === '[') {
      quote = char === '[' ? ']' : char;
      out += char;
      continue;
    }
    if (char !== '?') {
      out += char;
      continue;
    }
    if (/[0-9]/.test(sql[i + 1] ?? '')) return null;
    out += replace(placeholder, out);
    placeholder += 1;
  }
  return out;
};

/** The SQL with placeholders rewritten as above, and the slots left bound, in order. */
export const stablePlanStatement = (sql: string, slots: readonly Slot[]): { sql: string; slots: Slot[] } => {
  let count = 0;
  const kept: Slot[] = [];
  const rewritten = mapPlaceholders(sql, (index, before) => {
    count += 1;
    const slot = slots[index];
    if (slot && 'constant' in slot && isInlinable(slot.constant) && AFTER_LIMIT.test(before.slice(-16))) return String(slot.constant);
    if (slot) kept.push(slot);
    return '+?';
  });
  if (rewritten === null || count !== slots.length) return { sql, slots: [...slots] };
  return { sql: rewritten, slots: kept };
};

/** A statement whose every placeholder is a parameter, written so SQLite plans it once (`+?`). */
export const stablePlanSql = (sql: string): string => mapPlaceholders(sql, () => '+?') ?? sql;

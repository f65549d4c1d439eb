/**
 * Integer constants of a SQLite statement written into its text instead of bound (issue 16).
 *
 * SQLite (3.4x and later, as better-sqlite3 bundles it) reads the value bound to `LIMIT ?` while it plans
 * the statement, and marks the statement to be planned again whenever that parameter is bound anew, which a
 * prepared statement's every run does: the query is parsed and planned on each run as if it had never been
 * prepared (measured: 24-35 µs a run of the key lookup and a record read against 5-6 µs with the number
 * written out; a fifth of a single-record read's CPU). `col = ?` bound to 0 or 1 has the same effect. A
 * shape's constants are the same on every read of it, so writing them into the SQL changes no answer and
 * lets the statement be planned once.
 *
 * Only non-negative safe integers are written out (no sign that could join a `-` before it into a
 * comment); strings and everything else stay bound. Pure.
 */

export type Slot = { param: number } | { constant: unknown };

const isInlinable = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * The SQL with each placeholder whose slot is an inlinable constant replaced by its digits, and the slots
 * left bound. When the placeholders outside quotes do not match the slots one to one, both come back as
 * they were.
 */
export const inlineIntegerConstants = (sql: string, slots: readonly Slot[]): { sql: string; slots: Slot[] } => {
  if (!slots.some((slot) => 'constant' in slot && isInlinable(slot.constant))) return { sql, slots: [...slots] };
  let out = '';
  let quote: string | null = null;
  let placeholder = 0;
  const kept: Slot[] = [];
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
    // `?NNN` names a parameter by number: not what knex writes, and not a one-to-one placeholder.
    if (/[0-9]/.test(sql[i + 1] ?? '')) return { sql, slots: [...slots] };
    const slot = slots[placeholder];
    placeholder += 1;
    if (!slot) return { sql, slots: [...slots] };
    if ('constant' in slot && isInlinable(slot.constant)) out += String(slot.constant);
    else {
      out += char;
      kept.push(slot);
    }
  }
  if (placeholder !== slots.length) return { sql, slots: [...slots] };
  return { sql: out, slots: kept };
};

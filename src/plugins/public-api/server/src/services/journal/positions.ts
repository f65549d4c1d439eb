/**
 * Positions in the change journal and ranges of them: a position `{ txid, seq }` orders entries (by txid,
 * then seq), and a range [from, to) is written as SQL its planners bound the `(txid, seq)` index by. Pure.
 */

/** The most entries one read returns. */
export const MAX_READ = 1000;
/** `latest` looks at most this many entries per entry it may return. */
export const SCAN_FACTOR = 10;

export type JournalPosition = { txid: number; seq: number };

/**
 * The entries in [from, to) as SQL. SQLite's planner bounds an index range by the first column of a row
 * value only: `(txid, seq) >= (0, s)` walked every entry of txid 0, which on SQLite is every entry (its
 * writes are serial and txid is always 0; 625 us for 7,800 entries, growing with the journal). A range
 * within one txid is therefore written as that txid and a range of seq, an index range on both columns.
 */
export const rangeSql = (from: JournalPosition, to: JournalPosition) =>
  from.txid === to.txid
    ? { sql: 'c.txid = ? AND c.seq >= ? AND c.seq < ?', bindings: [from.txid, from.seq, to.seq] }
    : { sql: '(c.txid, c.seq) >= (?, ?) AND (c.txid, c.seq) < (?, ?)', bindings: [from.txid, from.seq, to.txid, to.seq] };

export const boundedLimit = (limit: number) => Math.max(1, Math.min(MAX_READ, Math.floor(limit)));

/** `(txid, seq) >= (?, ?)` as SQLite's planner serves it from the (txid, seq) index (bindings: txid, txid, seq). */
export const SQLITE_AT_OR_AFTER = '(txid > ? OR (txid = ? AND seq >= ?))';

/** The position just after an entry's (an entry is at its own position). */
export const positionAfter = (entry: JournalPosition): JournalPosition => ({ txid: entry.txid, seq: entry.seq + 1 });

/** The position before every entry. */
export const JOURNAL_START: JournalPosition = { txid: 0, seq: 0 };

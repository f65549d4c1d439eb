/**
 * The journal's position conditions as SQLite plans them (services/journal): a range, and "at or after a
 * position", must be index ranges on both columns of (txid, seq), not a walk of every entry of a txid
 * (on SQLite every entry has txid 0). The plans are SQLite's own, on a table with the journal's index.
 */
import Database from 'better-sqlite3';
import { rangeSql, SQLITE_AT_OR_AFTER } from '../../src/plugins/public-api/server/src/services/journal';

const db = new Database(':memory:');
db.exec(
  'CREATE TABLE public_api_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, txid bigint NOT NULL, content_type varchar(255) NOT NULL)',
);
db.exec('CREATE INDEX public_api_changes_order ON public_api_changes (txid, seq)');
const insert = db.prepare("INSERT INTO public_api_changes (txid, content_type) VALUES (0, 'api::event.event')");
for (let index = 0; index < 2_000; index += 1) insert.run();
db.exec('ANALYZE');

const plan = (sql: string, bindings: unknown[]) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...bindings) as { detail: string }[]).map((row) => row.detail).join(' | ');

test('a range within one txid is a range of seq, where the row value was a walk from the txid on', () => {
  const range = rangeSql({ txid: 0, seq: 1_900 }, { txid: 0, seq: 1_950 });
  const sql = `SELECT c.seq FROM public_api_changes c WHERE ${range.sql} ORDER BY c.txid, c.seq LIMIT 100`;
  // seq is the rowid: SQLite takes the range of it, or of (txid, seq) in the index; either is bounded on seq.
  expect(plan(sql, range.bindings)).toMatch(/SEARCH .*\((rowid>\? AND rowid<\?|txid=\? AND seq>\? AND seq<\?)\)/);
  expect(
    plan('SELECT c.seq FROM public_api_changes c WHERE (c.txid, c.seq) >= (?, ?) AND (c.txid, c.seq) < (?, ?)', [0, 1_900, 0, 1_950]),
  ).not.toMatch(/seq>\?|rowid>\?/);
  expect((db.prepare(sql).all(...range.bindings) as { seq: number }[]).map((row) => row.seq)).toEqual(
    Array.from({ length: 50 }, (_, i) => 1_900 + i),
  );
});

test('a range across txids keeps the row values (PostgreSQL plans them whole), and the same rows', () => {
  const range = rangeSql({ txid: 0, seq: 1_990 }, { txid: 5, seq: 1 });
  expect(range.sql).toBe('(c.txid, c.seq) >= (?, ?) AND (c.txid, c.seq) < (?, ?)');
  const rows = db.prepare(`SELECT c.seq FROM public_api_changes c WHERE ${range.sql} ORDER BY c.txid, c.seq`).all(...range.bindings);
  expect(rows).toHaveLength(11);
});

test('"at or after a position" is two index ranges, and finds what the row value finds', () => {
  const sql = `SELECT seq FROM public_api_changes WHERE ${SQLITE_AT_OR_AFTER} LIMIT 1`;
  const detail = plan(sql, [0, 0, 1_999]);
  expect(detail).toMatch(/\(txid>\?\)/);
  expect(detail).toMatch(/\(txid=\? AND seq>\?\)/);
  for (const seq of [1, 1_000, 2_000, 2_001]) {
    const found = db.prepare(sql).all(0, 0, seq);
    const byRowValue = db.prepare('SELECT seq FROM public_api_changes WHERE (txid, seq) >= (?, ?) LIMIT 1').all(0, seq);
    expect(found).toEqual(byRowValue);
  }
});

/**
 * The sync feed's reads of the change journal (handlers/sync.ts): each document's last entry that
 * concerns a key, and for the documents of a batch the fields their changes came through and what their
 * own changes said of them before. Made by the journal service over its statement reader.
 */
import { JOURNAL_TABLE } from './table';
import {
  COLUMNS,
  interestSql,
  toEntry,
  type ContentTypeInterest,
  type JournalEntry,
  type JournalRead,
  type PriorState,
  type RawEntry,
} from './entries';
import { SCAN_FACTOR, boundedLimit, positionAfter, rangeSql, type JournalPosition } from './positions';

/** Rows of a raw statement (the journal service's `rawRows`). */
type RawRows = <Row>(sql: string, bindings: readonly unknown[]) => Promise<Row[]>;

export const createFeedReads = (rawRows: RawRows) => ({
  /**
   * Each document's last entry in [from, to) that concerns a key (`interests`: of the content types it
   * reads, its own changes and changes via fields it reads), in order (the sync feed): at most `limit` of
   * them, found among at most SCAN_FACTOR x `limit` such entries (an entry whose document has a later one
   * that concerns the key before `to` is passed over), so a batch costs a bounded index walk however often
   * documents changed. A document whose last entry lies past this batch is left to the batch that holds
   * it: reading the whole range batch by batch names every changed document exactly once. A document
   * that changed only through fields the key does not read is not named at all (issue 33).
   */
  async latest(from: JournalPosition, to: JournalPosition, limit: number, interests: readonly ContentTypeInterest[]): Promise<JournalRead> {
    if (interests.length === 0) return { entries: [], next: null };
    const wanted = boundedLimit(limit);
    const scan = wanted * SCAN_FACTOR;
    const range = rangeSql(from, to);
    const later = interestSql('l', interests);
    const own = interestSql('c', interests);
    const sql = `SELECT ${COLUMNS},
        CASE WHEN EXISTS (SELECT 1 FROM ${JOURNAL_TABLE} l
                          WHERE l.content_type = c.content_type AND l.document_id = c.document_id
                            AND (l.txid, l.seq) > (c.txid, c.seq) AND (l.txid, l.seq) < (?, ?)
                            AND ${later.sql}) THEN 1 ELSE 0 END AS superseded
      FROM ${JOURNAL_TABLE} c
      WHERE ${range.sql} AND ${own.sql}
      ORDER BY c.txid, c.seq LIMIT ?`;
    const rows = await rawRows<RawEntry & { superseded: number | string | boolean }>(sql, [
      to.txid,
      to.seq,
      ...later.bindings,
      ...range.bindings,
      ...own.bindings,
      scan,
    ]);
    const entries: JournalEntry[] = [];
    for (const row of rows) {
      if (row.superseded === true || Number(row.superseded) === 1) continue;
      const entry = toEntry(row);
      entries.push(entry);
      if (entries.length === wanted) return { entries, next: positionAfter(entry) };
    }
    return { entries, next: rows.length === scan ? positionAfter(toEntry(rows.at(-1)!)) : null };
  },

  /**
   * The distinct `via` of the entries of `documentIds` (of `uid`) in [from, to), by document (null: an own
   * change): for a record whose last change a key's resource does not read, whether an earlier one in the
   * range it does read (two websites' grants of one type read different fields). One index walk per document.
   */
  async vias(
    from: JournalPosition,
    to: JournalPosition,
    uid: string,
    documentIds: readonly string[],
  ): Promise<Map<string, Set<string | null>>> {
    const found = new Map<string, Set<string | null>>();
    if (documentIds.length === 0) return found;
    const range = rangeSql(from, to);
    const rows = await rawRows<{ document_id: string; via: string | null }>(
      `SELECT DISTINCT c.document_id, c.via FROM ${JOURNAL_TABLE} c
       WHERE c.content_type = ? AND c.document_id IN (${documentIds.map(() => '?').join(', ')}) AND ${range.sql}`,
      [uid, ...documentIds, ...range.bindings],
    );
    for (const row of rows) found.set(row.document_id, (found.get(row.document_id) ?? new Set()).add(row.via ?? null));
    return found;
  },

  /**
   * What the own changes of `documentIds` (of `uid`) in [from, to) said of their records before them, for
   * those that had a published row then (not a `published` change): each distinct locale and websites, by
   * document. A document with none had no published row during the range before its changes made one, or
   * its rows did not change at all: a key could not have read it at any moment in the range but now
   * (the sync feed tells a removal from a record it never could read with it: issue 33). One walk of the
   * `(content_type, document_id, txid, seq)` index per document; distinct states only.
   */
  async priorStates(
    from: JournalPosition,
    to: JournalPosition,
    uid: string,
    documentIds: readonly string[],
  ): Promise<Map<string, PriorState[]>> {
    const states = new Map<string, PriorState[]>();
    if (documentIds.length === 0) return states;
    const range = rangeSql(from, to);
    const rows = await rawRows<{ document_id: string; locale: string | null; scope: string | null }>(
      `SELECT DISTINCT c.document_id, c.locale, c.scope FROM ${JOURNAL_TABLE} c
       WHERE c.content_type = ? AND c.document_id IN (${documentIds.map(() => '?').join(', ')})
         AND ${range.sql} AND c.via IS NULL AND c.kind <> 'published'`,
      [uid, ...documentIds, ...range.bindings],
    );
    for (const row of rows) {
      const list = states.get(row.document_id) ?? [];
      list.push({ locale: row.locale ?? null, scope: row.scope ?? null });
      states.set(row.document_id, list);
    }
    return states;
  },
});

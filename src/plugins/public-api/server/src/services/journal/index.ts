/**
 * The change journal: one row per change to a published record (table.ts), written in the change's own
 * transaction by a document service middleware (middleware.ts), so a write that rolls back leaves no
 * row and a committed one always has its rows. It is the transactional outbox of webhooks and the
 * source of the sync feed's deltas (contract section 16).
 *
 * Reading it, for both consumers:
 *
 * - A **position** `{ txid, seq }` orders entries (by txid, then seq). `horizon()` is the safe end of
 *   the journal now: every entry before it is committed and no entry will ever be added before it. On
 *   PostgreSQL transactions commit in any order, so an entry with a lower seq can become visible after
 *   one with a higher seq; the horizon is therefore the oldest transaction of this database still running
 *   (from `pg_current_snapshot()`, see POSTGRES_HORIZON): transactions below it have ended, and any
 *   transaction that writes later gets a higher id. On SQLite writes are serial and txid is 0: the horizon is the
 *   next seq.
 * - `entries(from, to, limit)`: every entry in [from, to), in order, at most `limit` (webhooks: one event
 *   per entry). `latest(from, to, limit, contentTypes)`: the same, but only each document's last entry
 *   within [from, to) (the sync feed: a document changed five times is reported once), looking at a
 *   bounded number of entries per call. Both return the
 *   position to continue from, or null when [from, to) is exhausted. A read walks the `(txid, seq)` index;
 *   `latest` checks each entry for a later one of its document on the `(content_type, document_id, ...)`
 *   index.
 * - `prune()` deletes entries older than the retention (30 days, plus a day so that a sync token just
 *   inside the retention still finds all it needs), at most PRUNE_BATCH per run; every instance runs it
 *   every few minutes (`startPruning`).
 *
 * `ensure()` also creates the indexes the referrers' statements walk through components by (reference-paths.ts).
 *
 * Positions and ranges are positions.ts, the entries as read entries.ts, and the sync feed's reads (`latest`,
 * `vias`, `priorStates`) feed-reads.ts.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { databaseClient, lockUntilCommit, type DatabaseClient } from '../../database/connection';
import { ensureIndex } from '../../database/ensure-index';
import { identifierQuoter } from '../../database/identifiers';
import { rawChangedRows, rawRows as rawResultRows } from '../../database/raw-result';
import { readConnectionOf } from '../../database/sqlite-reader';
import { statementRunner } from '../../database/runner';
import { componentIndexes, referencePaths } from './reference-paths';
import { JOURNAL_ADDED_COLUMNS, JOURNAL_ORDER_LOCK, JOURNAL_TABLE, journalTableStatements, transactionIdSql } from './table';
import { COLUMNS, toEntry, type JournalChange, type JournalRead, type RawEntry } from './entries';
import { createFeedReads } from './feed-reads';
import { JOURNAL_START, boundedLimit, positionAfter, rangeSql, type JournalPosition } from './positions';

export type { ContentTypeInterest, JournalChange, JournalEntry, JournalRead, PriorState } from './entries';
export { JOURNAL_START, MAX_READ, SCAN_FACTOR, SQLITE_AT_OR_AFTER, positionAfter, rangeSql, type JournalPosition } from './positions';

/** How long entries are kept, and so how old a sync token may be (contract section 16). */
export const JOURNAL_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** Entries are deleted this long after the retention ends, so a token issued just inside it finds them all. */
export const PRUNE_GRACE_MS = 24 * 60 * 60 * 1000;
export const PRUNE_BATCH = 5000;
const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * PostgreSQL's horizon: the oldest transaction of the current snapshot that is still running (its xip
 * list), or the snapshot's xmax when none is. Transactions the statistics show running in another
 * database are passed over: they cannot write to this table, and a long one elsewhere on the server must
 * not hold the feed back. Any other (ours, or one that ended since the snapshot and so is not listed any
 * more) counts, so the horizon is never past a transaction whose entries this snapshot cannot see yet.
 * xip holds full (64-bit) ids, pg_stat_activity 32-bit ones; ids in one snapshot are less than 2^31
 * apart, so their low 32 bits tell them apart.
 */
const POSTGRES_HORIZON = `
  SELECT COALESCE(
    (SELECT min(x::text::bigint) FROM pg_snapshot_xip(s.snap) AS x
      WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity a
                        WHERE a.backend_xid IS NOT NULL AND a.datname IS DISTINCT FROM current_database()
                          AND a.backend_xid::text::bigint = x::text::bigint % 4294967296)),
    pg_snapshot_xmax(s.snap)::text::bigint)::text AS horizon
  FROM (SELECT pg_current_snapshot() AS snap) s`;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const knex = () => strapi.db.connection as unknown as Knex;
  const client = (): DatabaseClient => databaseClient(strapi);
  let timer: NodeJS.Timeout | null = null;

  /**
   * Rows of a raw statement, on the plugin's transaction when one is running (the webhook dispatcher's turn
   * on SQLite, whose one connection that transaction holds), else on the pool, or SQLite's read-only
   * connection (database/sqlite-reader.ts) (SQLite answers the rows, PostgreSQL a result holding them).
   */
  const rawRows = async <Row>(sql: string, bindings: readonly unknown[]): Promise<Row[]> => {
    return rawResultRows<Row>(await readConnectionOf(strapi).raw(sql, [...bindings] as Knex.RawBinding[]));
  };

  const read = async (sql: string, bindings: readonly unknown[], limit: number): Promise<JournalRead> => {
    const entries = (await rawRows<RawEntry>(sql, bindings)).map(toEntry);
    return { entries, next: entries.length === limit ? positionAfter(entries.at(-1)!) : null };
  };

  /** The safe end of the journal now (see the header). */
  const horizon = async (): Promise<JournalPosition> => {
    if (client() === 'postgres') {
      const result = (await knex().raw(POSTGRES_HORIZON)) as { rows: { horizon: string }[] };
      return { txid: Number(result.rows[0]!.horizon), seq: 0 };
    }
    // SQLite: on the transaction running, if any (its one connection is held by it), else on the read-only
    // connection: the entries of a write still running lie past its committed end, so at or past this horizon.
    // MySQL and MariaDB: entries commit in seq order (JOURNAL_ORDER_LOCK), so every one below the next seq
    // has committed.
    const rows = rawResultRows<{ next: number }>(
      await readConnectionOf(strapi).raw(`SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM ${JOURNAL_TABLE}`),
    );
    return { txid: 0, seq: Number(rows[0]!.next) };
  };

  return {
    /** Creates the table and its indexes when missing (every start; idempotent). */
    async ensure(): Promise<void> {
      for (const statement of journalTableStatements(client())) await knex().raw(statement);
      // A table created before a column existed gets it (null in the entries written before: see its readers).
      for (const column of JOURNAL_ADDED_COLUMNS) {
        if (await knex().schema.hasColumn(JOURNAL_TABLE, column.name)) continue;
        try {
          await knex().raw(`ALTER TABLE ${JOURNAL_TABLE} ADD COLUMN ${column.name} ${column.type}`);
        } catch (error) {
          // Another instance starting beside this one added it first (a rolling or parallel start).
          if (!(await knex().schema.hasColumn(JOURNAL_TABLE, column.name))) throw error;
        }
      }
      // The referrers' walk up through components (reference-paths.ts).
      for (const index of componentIndexes(referencePaths(strapi), identifierQuoter(client()))) await ensureIndex(knex(), client(), index);
    },

    /**
     * Appends changes in `connection`, the transaction of the write that made them (the middleware's).
     * One statement, whatever the number of changes.
     */
    async append(connection: Knex, changes: readonly JournalChange[], now = Date.now()): Promise<void> {
      if (changes.length === 0) return;
      if (client() === 'mysql') await lockUntilCommit(strapi, JOURNAL_ORDER_LOCK, connection);
      const txid = transactionIdSql(client());
      const values = changes.map(() => `(${txid}, ?, ?, ?, ?, ?, ?, ?)`).join(', ');
      const bindings = changes.flatMap((change) => [
        change.uid,
        change.documentId,
        change.locale,
        change.kind,
        now,
        change.via ?? null,
        change.scope ?? null,
      ]);
      await connection.raw(
        `INSERT INTO ${JOURNAL_TABLE} (txid, content_type, document_id, locale, kind, occurred_at, via, scope) VALUES ${values}`,
        bindings,
      );
    },

    horizon,

    /**
     * The horizon moved back to just after the newest entry before it (the journal's start when there is
     * none): the same position for the same journal. On PostgreSQL every transaction of the server moves
     * the horizon (a rate-limit count, a session), so two syncs of one unchanged state would name two
     * positions; no entry lies between the two, so reading from or up to either gives the same entries,
     * and a sync token at the settled one makes the same document, whose ETag then answers 304 (contract
     * section 14). One backward probe of the `(txid, seq)` index. On SQLite the horizon is settled already.
     */
    async settledHorizon(): Promise<JournalPosition> {
      const now = await horizon();
      if (client() !== 'postgres') return now;
      // Entries below the horizon are committed and no entry is ever added below it: the probe is stable.
      const rows = await rawRows<{ txid: string | number; seq: string | number }>(
        `SELECT txid, seq FROM ${JOURNAL_TABLE} WHERE (txid, seq) < (?, ?) ORDER BY txid DESC, seq DESC LIMIT 1`,
        [now.txid, now.seq],
      );
      const newest = rows[0];
      return newest ? { txid: Number(newest.txid), seq: Number(newest.seq) + 1 } : JOURNAL_START;
    },

    /**
     * Whether an entry exists at or after `position` (a horizon taken earlier): one index probe through a
     * prepared statement. A change that committed after the horizon was taken, or was running then, is
     * such an entry; so may be one that committed just before (the answer errs towards "changed").
     */
    async changedSince(position: JournalPosition): Promise<boolean> {
      // On SQLite the row value would walk the whole journal (see rangeSql): its two index ranges instead,
      // 2.8 us against 373 us at 7,800 entries. PostgreSQL's planner bounds an index by a row value whole.
      // MySQL and MariaDB: txid is always 0 there too; the two ranges are what their planners bound as well.
      const sqlite = client() !== 'postgres';
      const rows = await statementRunner(strapi).rows(
        sqlite ? 'journal-changed-since-sqlite' : 'journal-changed-since',
        [position.txid, position.seq],
        (param) =>
          knex()(JOURNAL_TABLE)
            .select({ seq: 'seq' })
            .whereRaw(
              sqlite ? '(txid > ? OR (txid = ? AND seq >= ?))' : '(txid, seq) >= (?, ?)',
              sqlite ? [param(0), param(0), param(1)] : [param(0), param(1)],
            )
            .limit(1),
      );
      return rows.length > 0;
    },

    /**
     * Every entry in [from, to), in order (webhooks); with `uids`, only the entries of those content types:
     * one walk of the `(content_type, txid, seq)` index per content type, each at most `limit` long, merged
     * in order, so entries of other types between `from` and `to` cost nothing however many there are.
     */
    async entries(from: JournalPosition, to: JournalPosition, limit: number, uids?: readonly string[]): Promise<JournalRead> {
      const bounded = boundedLimit(limit);
      const range = rangeSql(from, to);
      if (uids === undefined)
        return read(
          `SELECT ${COLUMNS} FROM ${JOURNAL_TABLE} c WHERE ${range.sql} ORDER BY c.txid, c.seq LIMIT ?`,
          [...range.bindings, bounded],
          bounded,
        );
      const types = [...new Set(uids)];
      if (types.length === 0) return { entries: [], next: null };
      const one = `SELECT * FROM (SELECT ${COLUMNS} FROM ${JOURNAL_TABLE} c WHERE c.content_type = ? AND ${range.sql} ORDER BY c.txid, c.seq LIMIT ?)`;
      const sql = `SELECT * FROM (${types.map((_, i) => `${one} t${i}`).join(' UNION ALL ')}) m ORDER BY m.txid, m.seq LIMIT ?`;
      // Each type's walk is complete up to its last row; the first `limit` of their merge are complete up to the last of them.
      return read(sql, [...types.flatMap((uid) => [uid, ...range.bindings, bounded]), bounded], bounded);
    },

    /**
     * The content types of the entries in [from, to), reading at most `limit` entries in order (the fan-out's
     * look at what a batch of changes concerns), and the position to continue from, or null when none is left.
     */
    async contentTypes(
      from: JournalPosition,
      to: JournalPosition,
      limit: number,
    ): Promise<{ uids: Set<string>; next: JournalPosition | null }> {
      const bounded = boundedLimit(limit);
      const range = rangeSql(from, to);
      const rows = await rawRows<{ txid: number | string; seq: number | string; content_type: string }>(
        `SELECT c.txid, c.seq, c.content_type FROM ${JOURNAL_TABLE} c WHERE ${range.sql} ORDER BY c.txid, c.seq LIMIT ?`,
        [...range.bindings, bounded],
      );
      const last = rows.at(-1);
      return {
        uids: new Set(rows.map((row) => row.content_type)),
        next: rows.length === bounded && last ? { txid: Number(last.txid), seq: Number(last.seq) + 1 } : null,
      };
    },

    ...createFeedReads(rawRows),

    /** Deletes up to PRUNE_BATCH entries older than the retention and its grace; answers how many. */
    async prune(now = Date.now()): Promise<number> {
      const cutoff = now - JOURNAL_RETENTION_MS - PRUNE_GRACE_MS;
      // MySQL and MariaDB refuse a LIMIT in an IN subquery; a single-table DELETE takes ORDER BY and LIMIT itself.
      const sql =
        client() === 'mysql'
          ? `DELETE FROM ${JOURNAL_TABLE} WHERE occurred_at < ? ORDER BY occurred_at LIMIT ?`
          : `DELETE FROM ${JOURNAL_TABLE} WHERE seq IN (SELECT seq FROM ${JOURNAL_TABLE} WHERE occurred_at < ? ORDER BY occurred_at LIMIT ?)`;
      return rawChangedRows(await knex().raw(sql, [cutoff, PRUNE_BATCH]));
    },

    startPruning(intervalMs = PRUNE_INTERVAL_MS) {
      if (timer) return;
      timer = setInterval(() => {
        this.prune().catch((error: unknown) => strapi.log.warn(`[public-api] change journal pruning failed: ${(error as Error).message}`));
      }, intervalMs);
      timer.unref();
    },

    stopPruning() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
};

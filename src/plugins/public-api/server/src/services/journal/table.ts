/**
 * The change journal's table, `public_api_changes`: a plain table of the plugin's own (not a content
 * type: no document service, no admin, no rows of Strapi's bookkeeping), created at start when missing.
 * Strapi's schema sync leaves alone a table it never declared.
 *
 * - `seq`: a monotonically increasing integer (PostgreSQL: a bigint identity; SQLite: INTEGER PRIMARY KEY
 *   AUTOINCREMENT, which never reuses a number, even after the newest rows were pruned; MySQL and MariaDB:
 *   a bigint AUTO_INCREMENT, which InnoDB never reuses either since MySQL 8.0 and MariaDB 10.2.4).
 * - `txid`: PostgreSQL's id of the writing transaction (`pg_current_xact_id()`); 0 on SQLite, which runs one
 *   write transaction at a time, so its rows commit in `seq` order; 0 on MySQL and MariaDB, whose writers of
 *   entries take the journal's order lock first (JOURNAL_ORDER_LOCK), so there too rows commit in `seq` order.
 *   (InnoDB has no counterpart of PostgreSQL's snapshot horizon to read transactions' ids against.)
 * - `content_type`, `document_id`, `locale` (null when the type is not localized), `kind` (changes.ts),
 *   `occurred_at` (Unix milliseconds).
 * - `via`: null for a change of the record's own rows; for an entry of a record that only *shows* the changed
 *   one (referrers.ts), the record's field that shows it (a relation, media or component field): a key that
 *   does not read that field reads nothing new (issue 33).
 * - `scope`: for a change of the own rows of a record of a website-scoped type that had a published row
 *   before, the websites (row ids, `,1,3,`) that row belonged to: whose keys could read the record before the
 *   change, and so may be told it left their view (issue 33). Null otherwise.
 *
 * Indexes: `(txid, seq)`, the order readers walk; `(content_type, document_id, txid, seq)`, a document's
 * later entries (a sync delta reports a document once, at its last change); `(content_type, txid, seq)`,
 * one content type's entries in order (a webhook endpoint reads only what it subscribes to);
 * `occurred_at`, for pruning.
 */
import type { DatabaseClient } from '../../database/connection';

export const JOURNAL_TABLE = 'public_api_changes';

/** MySQL and MariaDB: the lock writers of entries hold until they commit (database/journal-order.ts). */
export { JOURNAL_ORDER_LOCK } from '../../database/journal-order';

export const journalTableStatements = (client: DatabaseClient): string[] => {
  if (client === 'mysql') return mysqlJournalTable();
  const seq = client === 'postgres' ? 'seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY' : 'seq INTEGER PRIMARY KEY AUTOINCREMENT';
  return [
    `CREATE TABLE IF NOT EXISTS ${JOURNAL_TABLE} (
       ${seq},
       txid bigint NOT NULL,
       content_type varchar(255) NOT NULL,
       document_id varchar(255) NOT NULL,
       locale varchar(64),
       kind varchar(16) NOT NULL,
       occurred_at bigint NOT NULL,
       via varchar(255),
       scope varchar(255)
     )`,
    `CREATE INDEX IF NOT EXISTS ${JOURNAL_TABLE}_order ON ${JOURNAL_TABLE} (txid, seq)`,
    `CREATE INDEX IF NOT EXISTS ${JOURNAL_TABLE}_document ON ${JOURNAL_TABLE} (content_type, document_id, txid, seq)`,
    `CREATE INDEX IF NOT EXISTS ${JOURNAL_TABLE}_type_order ON ${JOURNAL_TABLE} (content_type, txid, seq)`,
    `CREATE INDEX IF NOT EXISTS ${JOURNAL_TABLE}_occurred ON ${JOURNAL_TABLE} (occurred_at)`,
  ];
};

/**
 * MySQL has no CREATE INDEX IF NOT EXISTS (MariaDB has): the indexes are part of the CREATE TABLE, which
 * either makes all of them or finds the table there. The text columns are utf8mb4 varchars (4 bytes a character),
 * so an index over (content_type, document_id, txid, seq) is 2 x 1020 + 16 bytes: under InnoDB's 3072.
 */
const mysqlJournalTable = (): string[] => [
  `CREATE TABLE IF NOT EXISTS ${JOURNAL_TABLE} (
     seq bigint NOT NULL AUTO_INCREMENT PRIMARY KEY,
     txid bigint NOT NULL,
     content_type varchar(255) NOT NULL,
     document_id varchar(255) NOT NULL,
     locale varchar(64),
     kind varchar(16) NOT NULL,
     occurred_at bigint NOT NULL,
     via varchar(255),
     scope varchar(255),
     INDEX ${JOURNAL_TABLE}_order (txid, seq),
     INDEX ${JOURNAL_TABLE}_document (content_type, document_id, txid, seq),
     INDEX ${JOURNAL_TABLE}_type_order (content_type, txid, seq),
     INDEX ${JOURNAL_TABLE}_occurred (occurred_at)
   ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
];

/** A text value as SQL casts it, for a column of the journal (MySQL and MariaDB cast to CHAR, not varchar). */
export const textCastSql = (client: DatabaseClient, sql: string): string =>
  client === 'mysql' ? `CAST(${sql} AS CHAR(255))` : `CAST(${sql} AS varchar(255))`;

/** A whole number as SQL casts it (MySQL and MariaDB cast to SIGNED, not bigint). */
export const bigintCastSql = (client: DatabaseClient, sql: string): string =>
  client === 'mysql' ? `CAST(${sql} AS SIGNED)` : `CAST(${sql} AS bigint)`;

/** The id of the current transaction (PostgreSQL), as a bigint; SQLite's (and MySQL's) constant 0. */
export const transactionIdSql = (client: DatabaseClient): string => (client === 'postgres' ? 'pg_current_xact_id()::text::bigint' : '0');

/** Columns added after the table's first version: added to a table created before them (every start). */
export const JOURNAL_ADDED_COLUMNS = [
  { name: 'via', type: 'varchar(255)' },
  { name: 'scope', type: 'varchar(255)' },
] as const;

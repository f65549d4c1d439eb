/**
 * Creates an index when it is missing, on every database the plugin runs on (each start, idempotent):
 *
 * - SQLite and PostgreSQL: `CREATE INDEX IF NOT EXISTS`.
 * - MySQL and MariaDB: MySQL 8.0 has no `CREATE INDEX IF NOT EXISTS` (MariaDB has), so the index is looked
 *   up in information_schema.statistics first and made with a plain `CREATE INDEX` when absent; another
 *   instance making it between the look-up and the statement (a parallel start) is answered by
 *   ER_DUP_KEYNAME, which means the index is there: no error.
 *
 * The index's name and table are quoted here (database/identifiers.ts); its terms (`columns`) are SQL the
 * caller wrote with the same quoting, as an index may hold expressions (`("sort" IS NULL)`). A partial
 * index (`where`) is for SQLite and PostgreSQL only: MySQL and MariaDB have none.
 */
import type { Knex } from 'knex';
import type { DatabaseClient } from './connection';
import { quoteIdentifier } from './identifiers';
import { rawRows } from './raw-result';

export type IndexDefinition = {
  name: string;
  table: string;
  /** The indexed terms, in order, as SQL (quoted names or expressions). */
  columns: readonly string[];
  unique?: boolean;
  /** A partial index's condition (SQLite and PostgreSQL). */
  where?: string;
};

/** An index of that name exists already on that table (MySQL and MariaDB). */
const MYSQL_INDEX_EXISTS = 'ER_DUP_KEYNAME';

/** The statement that makes `index`: guarded by IF NOT EXISTS where the database has it (not MySQL). */
export const createIndexStatement = (client: DatabaseClient, index: IndexDefinition): string => {
  if (client === 'mysql' && index.where !== undefined) throw new Error(`MySQL and MariaDB have no partial index (${index.name}).`);
  const q = (name: string) => quoteIdentifier(client, name);
  const guard = client === 'mysql' ? '' : 'IF NOT EXISTS ';
  const where = index.where === undefined ? '' : ` WHERE ${index.where}`;
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${guard}${q(index.name)} ON ${q(index.table)} (${index.columns.join(', ')})${where}`;
};

const mysqlIndexExists = async (knex: Knex, index: IndexDefinition): Promise<boolean> =>
  rawRows(
    await knex.raw(
      'SELECT 1 AS present FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ? AND index_name = ? LIMIT 1',
      [index.table, index.name],
    ),
  ).length > 0;

/** Makes `index` unless it exists. */
export const ensureIndex = async (knex: Knex, client: DatabaseClient, index: IndexDefinition): Promise<void> => {
  const statement = createIndexStatement(client, index);
  if (client !== 'mysql') {
    await knex.raw(statement);
    return;
  }
  if (await mysqlIndexExists(knex, index)) return;
  try {
    await knex.raw(statement);
  } catch (error) {
    if ((error as { code?: string }).code !== MYSQL_INDEX_EXISTS) throw error;
  }
};

/**
 * SQLite in write-ahead-log mode (issue 16). Every /api/v2 request writes: the rate limit counter of its
 * key (or of its address, for a refused key) is kept in the database unless Redis is configured. In
 * SQLite's default rollback-journal mode each of those commits creates, syncs and deletes a journal file
 * on the event loop's thread, which a CPU profile showed as the largest single cost of a request (41% of
 * the busy time of a single-record read). In WAL mode a commit appends to one log file (one sync), and
 * readers never wait for the writer.
 *
 * The mode is a property of the database file (it stays set; every connection and process uses it), so
 * it is set once at start. WAL needs every process to share one host's memory: a database file on a
 * network file system cannot use it, and then the start goes on in the mode the file has, with a warning.
 * `synchronous` stays NORMAL, the default of the SQLite better-sqlite3 builds for WAL connections
 * (`SQLITE_DEFAULT_WAL_SYNCHRONOUS=1`): a commit survives a crash of the process; the last commits before
 * a power loss may be rolled back, the database staying consistent. FULL syncs the log at every commit,
 * which every request makes (the rate counter): 23 -> 410 us of blocked event loop a commit, measured.
 */
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { databaseClient } from './connection';

export const useWriteAheadLog = async (strapi: Core.Strapi): Promise<string | null> => {
  if (databaseClient(strapi) !== 'sqlite') return null;
  const knex = strapi.db.connection as unknown as Knex;
  try {
    const rows = (await knex.raw('PRAGMA journal_mode = WAL')) as { journal_mode?: string }[];
    const mode = rows[0]?.journal_mode ?? null;
    if (mode !== 'wal' && mode !== 'memory') strapi.log.warn(`[public-api] SQLite stays in journal mode '${mode}': WAL is not available.`);
    return mode;
  } catch (error) {
    strapi.log.warn(`[public-api] SQLite could not switch to WAL mode: ${(error as Error).message}`);
    return null;
  }
};

/**
 * The databases of `npm run bench:abuse`'s write rows, each the run's own and removed at its end: the
 * atomic loops add thousands of events (and their journal entries), which must not pile up in the kept
 * bench database nor skew the read rows of later runs.
 *
 * - SQLite: a copy of the bench database (`VACUUM INTO`: consistent even with a WAL beside it).
 * - PostgreSQL: a new database on the server of `BENCH_POSTGRES_URL` (default: the local one, user
 *   postgres, as the test suites use), dropped at the end; the application builds its schema on first
 *   start, as on any new database.
 */
import fs from 'node:fs';
import Sqlite from 'better-sqlite3';
import { Client } from 'pg';

export const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export type BenchDatabase = { env: Record<string, string>; drop: () => Promise<void> };

/** A copy of the SQLite file `source` at `target` (replacing a leftover one). */
export const sqliteCopy = (source: string, target: string): BenchDatabase => {
  fs.rmSync(target, { force: true });
  const db = new Sqlite(source, { readonly: true });
  try {
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
  return {
    env: { DATABASE_CLIENT: 'sqlite', DATABASE_FILENAME: target },
    drop: async () => {
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${target}${suffix}`, { force: true });
    },
  };
};

const withAdmin = async <T>(work: (client: Client) => Promise<T>): Promise<T> => {
  const client = new Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

/** A new, empty PostgreSQL database of this run (`bench_abuse_<pid>`). */
export const postgresDatabase = async (): Promise<BenchDatabase> => {
  const name = `bench_abuse_${process.pid}`;
  await withAdmin(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name}"`);
  });
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_CLIENT: 'postgres', DATABASE_URL: url.toString(), DATABASE_FILENAME: '' },
    drop: () => withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
};

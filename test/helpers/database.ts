/**
 * A database of its own per test suite, copied from a template (templates.js): a temporary SQLite file,
 * or (TEST_DATABASE=postgres) a throwaway PostgreSQL database that is dropped afterwards, or
 * (TEST_DATABASE=mariadb) a throwaway MariaDB database, likewise.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import type { Connection } from 'mysql2/promise';
import { Client } from 'pg';
import { copyMariadb, databaseUrl, ensureTemplate, mariadbEnv, POSTGRES_ADMIN_URL, quoteMariadb, withMariadbClient } from './templates';

export type TestDatabase = { env: Record<string, string>; drop: () => Promise<void> };

/** Counts rows straight from a test database, without booting the application. */
export const countRows = async (database: TestDatabase, table: string): Promise<number> => {
  if (database.env.DATABASE_CLIENT === 'postgres') {
    const client = new Client({ connectionString: database.env.DATABASE_URL });
    await client.connect();
    try {
      const exists = await client.query('SELECT to_regclass($1) AS t', [table]);
      if (!exists.rows[0].t) return 0;
      return Number((await client.query(`SELECT count(*) AS n FROM "${table}"`)).rows[0].n);
    } finally {
      await client.end();
    }
  }
  if (database.env.DATABASE_CLIENT === 'mysql') {
    const name = database.env.DATABASE_NAME!;
    return withMariadbClient(async (client: Connection) => {
      const [tables] = await client.query('SELECT 1 FROM information_schema.tables WHERE table_schema = ? AND table_name = ?', [
        name,
        table,
      ]);
      if ((tables as unknown[]).length === 0) return 0;
      const [rows] = await client.query(`SELECT count(*) AS n FROM ${quoteMariadb(name)}.${quoteMariadb(table)}`);
      return Number((rows as { n: number }[])[0]!.n);
    });
  }
  if (!fs.existsSync(database.env.DATABASE_FILENAME!)) return 0;
  const sqlite = new Sqlite(database.env.DATABASE_FILENAME!, { readonly: true });
  try {
    const exists = sqlite.prepare("SELECT name FROM sqlite_master WHERE type='table' AND name=?").get(table);
    return exists ? (sqlite.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n : 0;
  } finally {
    sqlite.close();
  }
};

export { POSTGRES_ADMIN_URL };

/**
 * What a suite's database starts as: the schema the application builds on its first boot (the usual
 * start: the same as an empty database after one boot), or that with the demo content seeded.
 */
export type DatabaseTemplate = 'schema' | 'demo';

export const usingPostgres = () => process.env.TEST_DATABASE === 'postgres';
export const usingMariadb = () => process.env.TEST_DATABASE === 'mariadb';
/** The database the suites run on: TEST_DATABASE, SQLite unless it says otherwise. */
export const testDatabase = (): 'sqlite' | 'postgres' | 'mariadb' => (usingPostgres() ? 'postgres' : usingMariadb() ? 'mariadb' : 'sqlite');

const withAdminClient = async <T>(fn: (client: Client) => Promise<T>): Promise<T> => {
  const client = new Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
};

export const createTestDatabase = async (template: DatabaseTemplate = 'schema'): Promise<TestDatabase> => {
  const suffix = `${process.pid}_${randomBytes(4).toString('hex')}`;
  if (usingPostgres()) {
    const name = `pda_test_${suffix}`;
    const copy = async () => {
      const source = await ensureTemplate(template);
      await withAdminClient((client) => client.query(`CREATE DATABASE "${name}" TEMPLATE "${source}"`));
    };
    // A template removed between finding and copying it (an old one pruned by another run) is built again.
    await copy().catch((error: { code?: string }) => (error.code === '3D000' ? copy() : Promise.reject(error)));
    return {
      env: { DATABASE_CLIENT: 'postgres', DATABASE_URL: databaseUrl(name), DATABASE_POOL_MIN: '0', DATABASE_POOL_MAX: '5' },
      drop: () => withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
    };
  }
  if (usingMariadb()) {
    const name = `pda_test_${suffix}`;
    const source = await ensureTemplate(template);
    await withMariadbClient(async (client: Connection) => {
      await client.query(`CREATE DATABASE ${quoteMariadb(name)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      await copyMariadb(client, source, name);
    });
    return {
      env: mariadbEnv(name),
      drop: () =>
        withMariadbClient((client: Connection) => client.query(`DROP DATABASE IF EXISTS ${quoteMariadb(name)}`)).then(() => undefined),
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-test-'));
  const file = path.join(dir, 'data.db');
  fs.copyFileSync(await ensureTemplate(template), file);
  return {
    env: { DATABASE_CLIENT: 'sqlite', DATABASE_FILENAME: file },
    drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
};

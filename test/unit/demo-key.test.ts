/**
 * Where `npm run demo` keeps its key (issue 33, item 13): one file per database, named after the
 * connection, so a PostgreSQL demo no longer replaces the SQLite demo's key.
 */
import path from 'node:path';
import fc from 'fast-check';
import { DEMO_KEYS_DIR, databaseIdentity, demoKeyFile, type DatabaseConnection } from '../../scripts/lib/demo-key';

const sqlite = (filename: string): DatabaseConnection => ({ client: 'sqlite', connection: { filename } });
const postgresUrl = (url: string, schema = 'public'): DatabaseConnection => ({
  client: 'postgres',
  connection: { connectionString: url, schema },
});
const postgresParts = (parts: { host: string; port: number; database: string; user: string; schema?: string }): DatabaseConnection => ({
  client: 'postgres',
  connection: { schema: 'public', ...parts },
});

test('the SQLite demo and a PostgreSQL demo keep their keys in different files, both under .tmp/demo-keys', () => {
  const onSqlite = demoKeyFile(sqlite('/srv/app/.tmp/data.db'));
  const onPostgres = demoKeyFile(postgresUrl('postgres://postgres@127.0.0.1:5432/pda'));
  expect(onSqlite).not.toBe(onPostgres);
  expect(path.dirname(onSqlite)).toBe(DEMO_KEYS_DIR);
  expect(path.dirname(onPostgres)).toBe(DEMO_KEYS_DIR);
  // Names a person recognizes.
  expect(path.basename(onSqlite)).toMatch(/^sqlite-data\.db-[0-9a-f]{12}$/);
  expect(path.basename(onPostgres)).toMatch(/^postgres-pda-127\.0\.0\.1-[0-9a-f]{12}$/);
});

test('two SQLite files of the same name in different folders are different databases', () => {
  expect(demoKeyFile(sqlite('/srv/app/.tmp/data.db'))).not.toBe(demoKeyFile(sqlite('/srv/other/.tmp/data.db')));
  expect(demoKeyFile(sqlite('/srv/app/.tmp/data.db'))).not.toBe(demoKeyFile(sqlite('/srv/app/.tmp/other.db')));
});

test('PostgreSQL: the host, port, database, user and schema decide; the password does not', () => {
  const base = 'postgres://ada:secret@db.example:5432/pda';
  const file = demoKeyFile(postgresUrl(base));
  expect(demoKeyFile(postgresUrl('postgres://ada:changed@db.example:5432/pda'))).toBe(file);
  expect(demoKeyFile(postgresUrl('postgres://ada@db.example/pda'))).toBe(file);
  for (const other of [
    'postgres://ada:secret@db2.example:5432/pda',
    'postgres://ada:secret@db.example:5433/pda',
    'postgres://ada:secret@db.example:5432/pda2',
    'postgres://grace:secret@db.example:5432/pda',
  ]) {
    expect(demoKeyFile(postgresUrl(other))).not.toBe(file);
  }
  expect(demoKeyFile(postgresUrl(base, 'tenant'))).not.toBe(file);
  expect(databaseIdentity(postgresUrl(base))).not.toContain('secret');
});

test('PostgreSQL by parts and by URL name the same database alike', () => {
  expect(demoKeyFile(postgresParts({ host: '127.0.0.1', port: 5432, database: 'pda', user: 'postgres' }))).toBe(
    demoKeyFile(postgresUrl('postgres://postgres:pw@127.0.0.1:5432/pda')),
  );
});

test('property: distinct databases get distinct files, and every name is a plain file name', () => {
  const name = fc.string({ minLength: 1, maxLength: 30 });
  const database = fc.oneof(
    name.map((file) => sqlite(path.join('/data', file))),
    fc
      .record({
        host: fc.constantFrom('127.0.0.1', 'db.example', 'localhost'),
        port: fc.integer({ min: 1, max: 65535 }),
        database: name,
        user: name,
        schema: fc.constantFrom('public', 'tenant'),
      })
      .map(postgresParts),
  );
  fc.assert(
    fc.property(database, database, (a, b) => {
      const fileA = demoKeyFile(a);
      expect(path.dirname(fileA)).toBe(DEMO_KEYS_DIR);
      expect(path.basename(fileA)).toMatch(/^[A-Za-z0-9.-]+$/);
      expect(path.basename(fileA).length).toBeLessThanOrEqual(100);
      if (databaseIdentity(a) !== databaseIdentity(b)) expect(demoKeyFile(b)).not.toBe(fileA);
      else expect(demoKeyFile(b)).toBe(fileA);
    }),
    { numRuns: 500 },
  );
});

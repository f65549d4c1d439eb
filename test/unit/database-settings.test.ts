import path from 'node:path';
import { DatabaseSettingsError, resolveDatabaseSettings } from '../../src/settings/database';

const root = '/app';

test('SQLite in .tmp by default, DATABASE_FILENAME honoured', () => {
  expect(resolveDatabaseSettings({}, root).connection).toEqual({
    client: 'sqlite',
    connection: { filename: path.join(root, '.tmp', 'data.db') },
    useNullAsDefault: true,
  });
  expect(resolveDatabaseSettings({ DATABASE_FILENAME: 'x/y.db' }, root).connection).toMatchObject({
    connection: { filename: '/app/x/y.db' },
  });
  expect(resolveDatabaseSettings({ DATABASE_FILENAME: '/abs.db' }, root).connection).toMatchObject({ connection: { filename: '/abs.db' } });
});

test('PostgreSQL from a URL or from parts', () => {
  expect(
    resolveDatabaseSettings({ DATABASE_CLIENT: 'postgres', DATABASE_URL: 'postgres://u:p@db:5433/app' }, root).connection,
  ).toMatchObject({
    client: 'postgres',
    connection: { connectionString: 'postgres://u:p@db:5433/app', ssl: false },
  });
  expect(
    resolveDatabaseSettings(
      { DATABASE_CLIENT: 'postgres', DATABASE_NAME: 'app', DATABASE_HOST: 'db', DATABASE_PORT: '6543', DATABASE_USERNAME: 'u' },
      root,
    ).connection,
  ).toMatchObject({ connection: { host: 'db', port: 6543, database: 'app', user: 'u' } });
});

test('MySQL and MariaDB from parts, as Strapi configures them: utf8mb4, UTC, no session setting of its own', () => {
  const settings = resolveDatabaseSettings(
    { DATABASE_CLIENT: 'mysql', DATABASE_NAME: 'app', DATABASE_HOST: 'db', DATABASE_USERNAME: 'u', DATABASE_PASSWORD: 'p' },
    root,
  ).connection;
  expect(settings).toMatchObject({
    client: 'mysql',
    connection: { host: 'db', port: 3306, database: 'app', user: 'u', password: 'p', ssl: false, charset: 'utf8mb4', timezone: 'Z' },
    pool: { min: 2, max: 10 },
  });
  // The plugin quotes names per database (database/identifiers.ts): no afterCreate sets ANSI_QUOTES or any
  // other sql_mode, so Strapi's own queries run in the server's mode, as in any Strapi application.
  expect(Object.keys((settings as { pool: object }).pool).sort()).toEqual(['max', 'min']);
});

test.each([
  [{ DATABASE_CLIENT: 'oracle' }, "DATABASE_CLIENT must be one of sqlite, postgres, mysql, got 'oracle'."],
  [{ DATABASE_CLIENT: 'mysql' }, 'DATABASE_CLIENT=mysql needs DATABASE_NAME'],
  [{ DATABASE_CLIENT: 'mysql', DATABASE_NAME: 'a', DATABASE_URL: 'mysql://h/a' }, 'not DATABASE_URL'],
  [{ DATABASE_CLIENT: 'mysql', DATABASE_NAME: 'a', DATABASE_PORT: '0' }, 'DATABASE_PORT must be between 1 and 65535, got 0.'],
  [{ DATABASE_CLIENT: 'postgres' }, 'DATABASE_CLIENT=postgres needs DATABASE_URL'],
  [{ DATABASE_CLIENT: 'postgres', DATABASE_URL: 'not a url' }, 'DATABASE_URL is not a valid URL'],
  [{ DATABASE_CLIENT: 'postgres', DATABASE_URL: 'mysql://h/db' }, 'DATABASE_URL must start with postgres://'],
  [{ DATABASE_CLIENT: 'postgres', DATABASE_URL: 'postgres://host' }, 'must name a host and a database'],
  [{ DATABASE_CLIENT: 'postgres', DATABASE_NAME: 'a', DATABASE_PORT: 'eighty' }, "DATABASE_PORT must be a whole number, got 'eighty'."],
  [{ DATABASE_CLIENT: 'postgres', DATABASE_NAME: 'a', DATABASE_PORT: '70000' }, 'DATABASE_PORT must be between 1 and 65535, got 70000.'],
  [{ DATABASE_CLIENT: 'postgres', DATABASE_NAME: 'a', DATABASE_POOL_MIN: '9', DATABASE_POOL_MAX: '2' }, 'must not exceed'],
  [{ DATABASE_CLIENT: 'postgres', DATABASE_NAME: 'a', DATABASE_SSL: 'maybe' }, 'DATABASE_SSL must be true or false'],
])('%j is refused with one clear line', (env, message) => {
  expect(() => resolveDatabaseSettings(env, root)).toThrow(DatabaseSettingsError);
  expect(() => resolveDatabaseSettings(env, root)).toThrow(message);
  try {
    resolveDatabaseSettings(env, root);
  } catch (error) {
    expect((error as Error).message).not.toContain('\n');
  }
});

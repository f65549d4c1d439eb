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

test.each([
  [{ DATABASE_CLIENT: 'mysql' }, "DATABASE_CLIENT must be one of sqlite, postgres, got 'mysql'."],
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

/**
 * Database settings from the environment, validated before Strapi sees them.
 *
 * Pure: takes the environment, returns Strapi's `connection` config or throws a DatabaseSettingsError
 * whose message is one line a person can act on.
 */
import path from 'node:path';

export class DatabaseSettingsError extends Error {
  override name = 'DatabaseSettingsError';
}

type Env = Record<string, string | undefined>;

export type SqliteConnection = {
  client: 'sqlite';
  connection: { filename: string };
  useNullAsDefault: true;
};

export type PostgresConnection = {
  client: 'postgres';
  connection:
    | { connectionString: string; ssl: false | { rejectUnauthorized: boolean }; schema: string }
    | {
        host: string;
        port: number;
        database: string;
        user: string;
        password: string;
        ssl: false | { rejectUnauthorized: boolean };
        schema: string;
      };
  pool: { min: number; max: number };
};

/** MySQL and MariaDB alike: Strapi's client name for both is 'mysql' (the mysql2 driver). */
export type MysqlConnection = {
  client: 'mysql';
  connection: {
    host: string;
    port: number;
    database: string;
    user: string;
    password: string;
    ssl: false | { rejectUnauthorized: boolean };
    /** Every text the plugin and Strapi store is Unicode: utf8mb4, not MySQL's three-byte utf8. */
    charset: 'utf8mb4';
    /** Timestamps are written and read as UTC, whatever the server's time zone. */
    timezone: 'Z';
  };
  /** No afterCreate: connections keep the server's sql_mode (the plugin quotes names per database). */
  pool: { min: number; max: number };
};

export type DatabaseSettings = {
  connection: SqliteConnection | PostgresConnection | MysqlConnection;
  acquireConnectionTimeout: number;
};

const SUPPORTED = ['sqlite', 'postgres', 'mysql'] as const;

const integer = (env: Env, name: string, fallback: number, min: number, max: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    throw new DatabaseSettingsError(`${name} must be a whole number, got '${raw}'.`);
  }
  const value = Number(raw.trim());
  if (value < min || value > max) {
    throw new DatabaseSettingsError(`${name} must be between ${min} and ${max}, got ${value}.`);
  }
  return value;
};

const bool = (env: Env, name: string, fallback: boolean): boolean => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1|yes)$/i.test(raw)) return true;
  if (/^(false|0|no)$/i.test(raw)) return false;
  throw new DatabaseSettingsError(`${name} must be true or false, got '${raw}'.`);
};

const tls = (env: Env): false | { rejectUnauthorized: boolean } =>
  bool(env, 'DATABASE_SSL', false) ? { rejectUnauthorized: bool(env, 'DATABASE_SSL_REJECT_UNAUTHORIZED', true) } : false;

const poolOf = (env: Env): { min: number; max: number } => {
  const pool = {
    min: integer(env, 'DATABASE_POOL_MIN', 2, 0, 1000),
    max: integer(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
  };
  if (pool.min > pool.max) {
    throw new DatabaseSettingsError(`DATABASE_POOL_MIN (${pool.min}) must not exceed DATABASE_POOL_MAX (${pool.max}).`);
  }
  return pool;
};

/**
 * MySQL or MariaDB from parts, as Strapi's own template configures it (no URL: mysql2 reads its options
 * from an object, and a URL would hide the charset and time zone this needs).
 */
const mysql = (env: Env): MysqlConnection => {
  const database = env.DATABASE_NAME;
  if (!database) {
    throw new DatabaseSettingsError(
      'DATABASE_CLIENT=mysql needs DATABASE_NAME with DATABASE_HOST, DATABASE_PORT, DATABASE_USERNAME and DATABASE_PASSWORD.',
    );
  }
  if (env.DATABASE_URL) {
    throw new DatabaseSettingsError(
      'DATABASE_CLIENT=mysql reads DATABASE_HOST, DATABASE_PORT and DATABASE_NAME, not DATABASE_URL: unset it.',
    );
  }
  return {
    client: 'mysql',
    connection: {
      host: env.DATABASE_HOST || '127.0.0.1',
      port: integer(env, 'DATABASE_PORT', 3306, 1, 65535),
      database,
      user: env.DATABASE_USERNAME || 'root',
      password: env.DATABASE_PASSWORD || '',
      ssl: tls(env),
      charset: 'utf8mb4',
      timezone: 'Z',
    },
    pool: poolOf(env),
  };
};

const postgres = (env: Env): PostgresConnection => {
  const ssl = tls(env);
  const schema = env.DATABASE_SCHEMA || 'public';
  const pool = poolOf(env);
  const url = env.DATABASE_URL;
  if (url) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new DatabaseSettingsError('DATABASE_URL is not a valid URL (expected postgres://user:password@host:port/database).');
    }
    if (!['postgres:', 'postgresql:'].includes(parsed.protocol)) {
      throw new DatabaseSettingsError(`DATABASE_URL must start with postgres:// or postgresql://, got '${parsed.protocol}//'.`);
    }
    if (!parsed.hostname || parsed.pathname.replace(/^\//, '') === '') {
      throw new DatabaseSettingsError('DATABASE_URL must name a host and a database (postgres://host:port/database).');
    }
    return { client: 'postgres', connection: { connectionString: url, ssl, schema }, pool };
  }
  const database = env.DATABASE_NAME;
  if (!database) {
    throw new DatabaseSettingsError(
      'DATABASE_CLIENT=postgres needs DATABASE_URL, or DATABASE_NAME with DATABASE_HOST, DATABASE_PORT, DATABASE_USERNAME and DATABASE_PASSWORD.',
    );
  }
  return {
    client: 'postgres',
    connection: {
      host: env.DATABASE_HOST || '127.0.0.1',
      port: integer(env, 'DATABASE_PORT', 5432, 1, 65535),
      database,
      user: env.DATABASE_USERNAME || 'postgres',
      password: env.DATABASE_PASSWORD || '',
      ssl,
      schema,
    },
    pool,
  };
};

export const resolveDatabaseSettings = (env: Env, appRoot: string): DatabaseSettings => {
  const client = (env.DATABASE_CLIENT || 'sqlite').trim().toLowerCase();
  if (!(SUPPORTED as readonly string[]).includes(client)) {
    throw new DatabaseSettingsError(`DATABASE_CLIENT must be one of ${SUPPORTED.join(', ')}, got '${env.DATABASE_CLIENT}'.`);
  }
  const acquireConnectionTimeout = integer(env, 'DATABASE_CONNECTION_TIMEOUT', 60000, 100, 600000);
  if (client === 'postgres') {
    return { connection: postgres(env), acquireConnectionTimeout };
  }
  if (client === 'mysql') {
    return { connection: mysql(env), acquireConnectionTimeout };
  }
  const filename = env.DATABASE_FILENAME || path.join('.tmp', 'data.db');
  return {
    connection: {
      client: 'sqlite',
      connection: { filename: path.resolve(appRoot, filename) },
      useNullAsDefault: true,
    },
    acquireConnectionTimeout,
  };
};

/**
 * The 100-record page and the single record on each database the plugin supports (issue 35), each against
 * Strapi's own REST API on the same database in the same run: SQLite, PostgreSQL and MariaDB.
 *
 * - `npm run bench` adds the PostgreSQL and MariaDB rows to its table after its own rows (which are
 *   SQLite's: "100-record page" and "Single record"), so the table has all three databases.
 * - `npm run bench -- --only databases` (or `--only mariadb`) measures the three, and prints them only.
 *
 * SQLite is the run's usual file (bench/.data/bench.db); PostgreSQL a database `pda_bench` on
 * BENCH_POSTGRES_URL (by default postgres://postgres@127.0.0.1:5432/postgres's server); MariaDB a database
 * `pda_bench` on BENCH_MARIADB_URL (by default mysql://root@127.0.0.1:3306/), configured as Strapi's
 * documentation does (no session setting of the application's own). Each is made when missing and kept
 * between runs like the file (the events already there are not inserted again). Each database is prepared
 * in this process, then served by the application in a process of its own, measured, and stopped, one after
 * the other: they never share the machine.
 */
import mysql from 'mysql2/promise';
import { Client } from 'pg';
import { measure, settle, type MeasureOptions, type Measurement } from './measure';
import { comparisonTable, failures, machine, rpsRatio, type Comparison } from './report';
import { benchEnvironment, prepareDatabase, withStrapi } from './setup';
import { startServer } from './server';

const BENCH_DATABASE = 'pda_bench';

export type BenchDatabaseName = 'SQLite' | 'PostgreSQL' | 'MariaDB';

/** The application's environment for the bench database on BENCH_MARIADB_URL (created when missing). */
const mariadbEnvironment = async (): Promise<Record<string, string>> => {
  const url = new URL(process.env.BENCH_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/');
  const server = {
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username || 'root'),
    password: decodeURIComponent(url.password),
  };
  const connection = await mysql.createConnection(server);
  try {
    await connection.query(`CREATE DATABASE IF NOT EXISTS ${BENCH_DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await connection.end();
  }
  return {
    DATABASE_CLIENT: 'mysql',
    DATABASE_HOST: server.host,
    DATABASE_PORT: String(server.port),
    DATABASE_NAME: BENCH_DATABASE,
    DATABASE_USERNAME: server.user,
    DATABASE_PASSWORD: server.password,
  };
};

/** The application's environment for the bench database on BENCH_POSTGRES_URL's server (created when missing). */
const postgresEnvironment = async (): Promise<Record<string, string>> => {
  const admin = new URL(process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [BENCH_DATABASE]);
    if (!exists.rowCount) await client.query(`CREATE DATABASE ${BENCH_DATABASE}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${BENCH_DATABASE}`;
  return { DATABASE_CLIENT: 'postgres', DATABASE_URL: url.toString() };
};

const environmentOf = async (name: BenchDatabaseName): Promise<Record<string, string>> => {
  const sqlite = { ...benchEnvironment('bench.db') } as Record<string, string>;
  if (name === 'SQLite') return sqlite;
  // The SQLite file's name stays set but unread: DATABASE_CLIENT says which database.
  return { ...sqlite, ...(name === 'PostgreSQL' ? await postgresEnvironment() : await mariadbEnvironment()) };
};

/**
 * Prepares database `name`, serves it, measures the page and the single record against Strapi's REST API
 * on it, stops the server. Answers the two comparisons and the four measurements.
 */
const readsOn = async (
  name: BenchDatabaseName,
  events: number,
  options: MeasureOptions,
  say: (line: string) => void,
): Promise<{ comparisons: Comparison[]; measurements: Measurement[] }> => {
  const env = await environmentOf(name);
  // Only PostgreSQL's environment names a URL (the settings refuse one beside MySQL's parts).
  delete process.env.DATABASE_URL;
  Object.assign(process.env, env);
  say(`${name}: preparing ${events} events ...`);
  const credentials = await withStrapi((strapi) => prepareDatabase(strapi, events, say));
  const server = await startServer({ ...env, DATABASE_URL: env.DATABASE_URL ?? '' });
  try {
    const v2 = { Authorization: `Bearer ${credentials.apiKey}` };
    const rest = { Authorization: `Bearer ${credentials.readToken}` };
    const api = `${server.url}/api/v2`;
    const slug = `bench-${String(Math.floor(events / 2)).padStart(6, '0')}`;
    const single = await fetch(`${api}/events/${slug}`, { headers: v2 });
    if (!single.ok) throw new Error(`${name}: GET /api/v2/events/${slug} answered ${single.status}`);
    const documentId = ((await single.json()) as { data: { id: string } }).data.id;
    const measured: Measurement[] = [];
    const run = async (label: string, url: string, headers: Record<string, string>) => {
      say(`  measuring ${label} ...`);
      await settle([server.pid]);
      const result = await measure({ label, url, headers, cpuOf: server.pid }, options);
      measured.push(result);
      return result;
    };
    const row = (scenario: string, ours: Measurement, baseline: Measurement): Comparison => ({
      scenario,
      ours,
      baseline,
      aim: 'for comparison',
      aimMet: () => true,
      ratio: rpsRatio(ours, baseline),
    });
    const page = await run(`${name}: GET /api/v2/events?limit=100`, `${api}/events?limit=100`, v2);
    const restPage = await run(
      `${name}: GET /api/events?pagination[pageSize]=100`,
      `${server.url}/api/events?pagination%5BpageSize%5D=100`,
      rest,
    );
    const record = await run(`${name}: GET /api/v2/events/${slug}`, `${api}/events/${slug}`, v2);
    const restRecord = await run(`${name}: GET /api/events/:documentId`, `${server.url}/api/events/${documentId}`, rest);
    return {
      comparisons: [row(`100-record page, ${name}`, page, restPage), row(`Single record, ${name}`, record, restRecord)],
      measurements: measured,
    };
  } finally {
    await server.stop();
  }
};

/** The rows of `databases`, one after the other (for the full run: PostgreSQL and MariaDB after its SQLite rows). */
export const databaseRows = async (
  databases: readonly BenchDatabaseName[],
  events: number,
  options: MeasureOptions,
  say: (line: string) => void,
): Promise<{ comparisons: Comparison[]; measurements: Measurement[] }> => {
  const comparisons: Comparison[] = [];
  const measurements: Measurement[] = [];
  for (const name of databases) {
    const result = await readsOn(name, events, options, say);
    comparisons.push(...result.comparisons);
    measurements.push(...result.measurements);
  }
  // The run's later steps (and the caller's report) are SQLite's again.
  Object.assign(process.env, await environmentOf('SQLite'));
  delete process.env.DATABASE_URL;
  return { comparisons, measurements };
};

/** `npm run bench -- --only databases`: the three databases' rows, printed. */
export const benchDatabases = async (events: number, options: MeasureOptions, say: (line: string) => void): Promise<number> => {
  const { comparisons, measurements } = await databaseRows(['SQLite', 'PostgreSQL', 'MariaDB'], events, options, say);
  say('');
  say(`${machine()}; ${events} events; ${options.connections} connections, ${options.seconds} s per row.`);
  say(comparisonTable(comparisons));
  const failed = failures(measurements);
  for (const line of failed) say(`FAILED: ${line}`);
  return failed.length ? 1 : 0;
};

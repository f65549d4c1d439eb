/**
 * `npm run bench -- --only mariadb`: the 100-record page and the single record on MariaDB beside the same
 * reads on SQLite (issue 35), each database holding the demo content and N benchmark events.
 *
 * SQLite is the run's usual file (bench/.data/bench.db); MariaDB a database `pda_bench` on
 * BENCH_MARIADB_URL (by default mysql://root@127.0.0.1:3306/), made when missing and kept between runs
 * like the file (the events already there are not inserted again). Each database is prepared in this
 * process, then served by the application in a process of its own, measured, and stopped, one after the
 * other: the two never share the machine. Printed, never written to docs/benchmarks.md (its table is the
 * full run's): docs/benchmarks.md (Databases) keeps the figures by hand.
 */
import mysql from 'mysql2/promise';
import { measure, settle, type MeasureOptions, type Measurement } from './measure';
import { comparisonTable, failures, machine, rpsRatio, type Comparison } from './report';
import { benchEnvironment, prepareDatabase, withStrapi } from './setup';
import { startServer } from './server';

const MARIADB_DATABASE = 'pda_bench';

type Reads = { page: Measurement; single: Measurement };

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
    await connection.query(`CREATE DATABASE IF NOT EXISTS ${MARIADB_DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await connection.end();
  }
  return {
    DATABASE_CLIENT: 'mysql',
    DATABASE_HOST: server.host,
    DATABASE_PORT: String(server.port),
    DATABASE_NAME: MARIADB_DATABASE,
    DATABASE_USERNAME: server.user,
    DATABASE_PASSWORD: server.password,
  };
};

/** Prepares the database `env` names, serves it, measures both reads, stops the server. */
const readsOn = async (
  name: string,
  env: Record<string, string>,
  events: number,
  options: MeasureOptions,
  say: (line: string) => void,
): Promise<Reads> => {
  Object.assign(process.env, env);
  say(`${name}: preparing ${events} events ...`);
  const credentials = await withStrapi((strapi) => prepareDatabase(strapi, events, say));
  const server = await startServer(env);
  try {
    const headers = { Authorization: `Bearer ${credentials.apiKey}` };
    const api = `${server.url}/api/v2`;
    const slug = `bench-${String(Math.floor(events / 2)).padStart(6, '0')}`;
    say(`  measuring the 100-record page on ${name} ...`);
    await settle([server.pid]);
    const page = await measure(
      { label: `${name}: GET /api/v2/events?limit=100`, url: `${api}/events?limit=100`, headers, cpuOf: server.pid },
      options,
    );
    say(`  measuring the single record on ${name} ...`);
    await settle([server.pid]);
    const single = await measure(
      { label: `${name}: GET /api/v2/events/${slug}`, url: `${api}/events/${slug}`, headers, cpuOf: server.pid },
      options,
    );
    return { page, single };
  } finally {
    await server.stop();
  }
};

export const benchDatabases = async (events: number, options: MeasureOptions, say: (line: string) => void): Promise<number> => {
  const sqliteEnv = { ...benchEnvironment('bench.db') } as Record<string, string>;
  const sqlite = await readsOn('SQLite', sqliteEnv, events, options, say);
  const mariadbEnv = { ...sqliteEnv, ...(await mariadbEnvironment()) };
  const mariadb = await readsOn('MariaDB', mariadbEnv, events, options, say);
  const row = (scenario: string, ours: Measurement, baseline: Measurement): Comparison => ({
    scenario,
    ours,
    baseline,
    aim: 'for comparison',
    aimMet: () => true,
    ratio: rpsRatio(ours, baseline),
  });
  say('');
  say(`${machine()}; ${events} events; ${options.connections} connections, ${options.seconds} s per row.`);
  say(
    comparisonTable([
      row('100-record page, MariaDB vs SQLite', mariadb.page, sqlite.page),
      row('Single record, MariaDB vs SQLite', mariadb.single, sqlite.single),
    ]),
  );
  const failed = failures([sqlite.page, sqlite.single, mariadb.page, mariadb.single]);
  for (const line of failed) say(`FAILED: ${line}`);
  return failed.length ? 1 : 0;
};

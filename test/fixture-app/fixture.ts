/**
 * The prepared fixture application (global-setup.ts), run the way its operator would: `strapi start` on a
 * fresh database and a free port, and the plugin's bin, `npx public-api`, in the application's folder.
 *
 * The database is a SQLite file of its own, or with TEST_DATABASE=mariadb a throwaway MariaDB database
 * (on 127.0.0.1:3306 or TEST_MARIADB_URL, created before the start and dropped at the stop), which the
 * fixture's config/database.ts connects to as Strapi's documentation does: no ANSI_QUOTES, no afterCreate,
 * the server's own sql_mode. That run is the test that the plugin does not rely on any session setting.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Connection } from 'mysql2/promise';
import { ADMIN_PASSWORD } from '../helpers/admin';
import { freePort, type ProcessResult } from '../helpers/processes';
import { mariadbEnv, quoteMariadb, withMariadbClient } from '../helpers/templates';
import { fixtureEnv, type PreparedFixture } from './prepare';

/** The database the fixture runs on: TEST_DATABASE=mariadb, else SQLite. */
export const fixtureDatabase = (): 'sqlite' | 'mariadb' => (process.env.TEST_DATABASE === 'mariadb' ? 'mariadb' : 'sqlite');

export const loadFixture = (): PreparedFixture => {
  const file = process.env.FIXTURE_APP_STATE;
  if (!file || !fs.existsSync(file)) throw new Error('The fixture is not prepared: run the suites with `npm run test:fixture`.');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as PreparedFixture;
};

export type RunningFixture = {
  url: string;
  /** Rows of a read of the run's database (plain SQL both SQLite and MariaDB read), to look at what was stored. */
  rows: (sql: string) => Promise<Record<string, unknown>[]>;
  env: Record<string, string>;
  output: () => string;
  stop: () => Promise<void>;
};

let runs = 0;

/**
 * How long a start may take before /api/v2 answers, and a run of the bin (which starts Strapi too). A first start on an empty MariaDB database creates
 * Strapi's whole schema and the plugin's indexes with DDL statements of their own (142 s at a load average
 * of 38 on the shared 2-core machine; a SQLite file's takes a fraction): a harness limit, not a measurement.
 */
export const START_DEADLINE_MS = fixtureDatabase() === 'mariadb' ? 300_000 : 120_000;

/** A SQLite file of the run's own: its environment, a reader and its removal. */
const sqliteDatabase = (fixture: PreparedFixture) => {
  const file = path.join(fixture.appDir, '.tmp', `run-${process.pid}-${runs}.db`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.rmSync(file, { force: true });
  return {
    env: { DATABASE_CLIENT: 'sqlite', DATABASE_FILENAME: file },
    rows: async (sql: string) => {
      const database = new Database(file, { readonly: true });
      try {
        return database.prepare(sql).all() as Record<string, unknown>[];
      } finally {
        database.close();
      }
    },
    remove: async () => {
      for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(`${file}${suffix}`, { force: true });
    },
  };
};

/** A MariaDB database of the run's own, created empty (utf8mb4, as Strapi's documentation asks) and dropped at the stop. */
const mariadbDatabase = async () => {
  const name = `pda_fixture_${process.pid}_${runs}_${Date.now().toString(36)}`;
  await withMariadbClient((client: Connection) =>
    client.query(`CREATE DATABASE ${quoteMariadb(name)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`),
  );
  return {
    env: mariadbEnv(name),
    rows: (sql: string) =>
      withMariadbClient(async (client: Connection) => {
        await client.query(`USE ${quoteMariadb(name)}`);
        const [rows] = await client.query(sql);
        return rows as Record<string, unknown>[];
      }),
    remove: () =>
      withMariadbClient((client: Connection) => client.query(`DROP DATABASE IF EXISTS ${quoteMariadb(name)}`)).then(() => undefined),
  };
};

/** `strapi start` on a database of its own; resolves when /api/v2 answers (401: the plugin is serving). */
export const startFixture = async (fixture: PreparedFixture, extraEnv: Record<string, string> = {}): Promise<RunningFixture> => {
  runs += 1;
  const database = fixtureDatabase() === 'mariadb' ? await mariadbDatabase() : sqliteDatabase(fixture);
  const port = await freePort();
  const env = { ...fixtureEnv(fixture.appDir), ...database.env, ...extraEnv };
  const child = spawn(process.execPath, [fixture.strapiBin, 'start'], {
    cwd: fixture.appDir,
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
    await database.remove();
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The fixture application exited with ${child.exitCode}:\n${output}`);
    const status = await fetch(`${url}/api/v2/`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 401) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`The fixture application did not serve /api/v2 within ${START_DEADLINE_MS / 1000} s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { url, rows: database.rows, env, output: () => output, stop };
};

/** `npx --no public-api <args>` in the application's folder (`--no`: never fetch a package of that name). */
export const runBin = (fixture: PreparedFixture, args: string[], env: Record<string, string>): Promise<ProcessResult> =>
  new Promise((resolve, reject) => {
    const child = spawn('npx', ['--no', 'public-api', ...args], {
      cwd: fixture.appDir,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`npx public-api ${args.join(' ')} did not finish in ${START_DEADLINE_MS / 1000} s\n${stdout}\n${stderr}`));
    }, START_DEADLINE_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });

/** A key for every resource and command: `npx public-api key create --name NAME --all`, the key alone on the last line. */
export const createKey = async (fixture: PreparedFixture, running: RunningFixture, name: string): Promise<string> => {
  const result = await runBin(fixture, ['key', 'create', '--name', name, '--all'], running.env);
  if (result.code !== 0) throw new Error(`npx public-api key create exited with ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout.trim().split('\n').pop()!.trim();
};

export type ApiAnswer = {
  status: number;
  headers: Headers;
  body: Record<string, unknown> & { data?: unknown; errors?: Array<Record<string, unknown>> };
};

/** One request to /api/v2 with a key, a JSON:API body when given. */
export const api = async (
  running: RunningFixture,
  key: string | null,
  method: string,
  target: string,
  body?: unknown,
): Promise<ApiAnswer> => {
  const response = await fetch(`${running.url}/api/v2${target}`, {
    method,
    headers: {
      ...(key ? { Authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'Content-Type': 'application/vnd.api+json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as ApiAnswer['body']) : {} };
};

/**
 * The first administrator, registered as a new installation's owner does it from the admin's welcome form;
 * resolves to their admin token (for the Content Manager's own API, as the admin panel calls it).
 */
export const registerAdmin = async (running: RunningFixture, email: string): Promise<string> => {
  const response = await fetch(`${running.url}/admin/register-admin`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password: ADMIN_PASSWORD, firstname: 'Blog', lastname: 'Editor' }),
  });
  const body = (await response.json()) as { data?: { token?: string } };
  if (response.status !== 200 || !body.data?.token) throw new Error(`register-admin answered ${response.status}: ${JSON.stringify(body)}`);
  return body.data.token;
};

/**
 * The prepared fixture application (global-setup.ts), run the way its operator would: `strapi start` on a
 * fresh SQLite file and a free port, and the plugin's bin, `npx public-api`, in the application's folder.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN_PASSWORD } from '../helpers/admin';
import { freePort, type ProcessResult } from '../helpers/processes';
import { fixtureEnv, type PreparedFixture } from './prepare';

export const loadFixture = (): PreparedFixture => {
  const file = process.env.FIXTURE_APP_STATE;
  if (!file || !fs.existsSync(file)) throw new Error('The fixture is not prepared: run the suites with `npm run test:fixture`.');
  return JSON.parse(fs.readFileSync(file, 'utf8')) as PreparedFixture;
};

export type RunningFixture = {
  url: string;
  /** The SQLite file this run started on, for the bin and for looking at what was stored. */
  databaseFile: string;
  env: Record<string, string>;
  output: () => string;
  stop: () => Promise<void>;
};

let runs = 0;

/** `strapi start` on its own database file; resolves when /api/v2 answers (401: the plugin is serving). */
export const startFixture = async (fixture: PreparedFixture, extraEnv: Record<string, string> = {}): Promise<RunningFixture> => {
  runs += 1;
  const databaseFile = path.join(fixture.appDir, '.tmp', `run-${process.pid}-${runs}.db`);
  fs.mkdirSync(path.dirname(databaseFile), { recursive: true });
  fs.rmSync(databaseFile, { force: true });
  const port = await freePort();
  const env = { ...fixtureEnv(fixture.appDir), DATABASE_FILENAME: databaseFile, ...extraEnv };
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
    for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(`${databaseFile}${suffix}`, { force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The fixture application exited with ${child.exitCode}:\n${output}`);
    const status = await fetch(`${url}/api/v2/`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 401) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`The fixture application did not serve /api/v2 within 120 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { url, databaseFile, env, output: () => output, stop };
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
      reject(new Error(`npx public-api ${args.join(' ')} did not finish in 120 s\n${stdout}\n${stderr}`));
    }, 120_000);
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

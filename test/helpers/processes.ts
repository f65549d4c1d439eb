/**
 * Runs the application's own commands as child processes, the way an operator does.
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { TEST_ENV } from './env';

export const APP_ROOT = path.resolve(__dirname, '..', '..');

export type ProcessResult = { code: number | null; stdout: string; stderr: string };

export const runNode = (args: string[], env: Record<string, string>, timeoutMs = 90_000): Promise<ProcessResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: APP_ROOT,
      env: { ...process.env, ...TEST_ENV, PDA_SKIP_COMPILE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} did not finish in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });

export const STRAPI_BIN = path.join(APP_ROOT, 'node_modules', '@strapi', 'strapi', 'bin', 'strapi.js');

export type RunningApp = { url: string; pid: number; output: () => string; stop: () => Promise<void> };

/** A free TCP port on the loopback interface. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/**
 * Starts the application the way production does (`strapi start`, compiled by the global setup) as
 * a second instance, on its own port, and waits until /api/v2 answers.
 */
export const startApp = async (env: Record<string, string>, timeoutMs = 90_000): Promise<RunningApp> => {
  const port = await freePort();
  const child = spawn(process.execPath, [STRAPI_BIN, 'start'], {
    cwd: APP_ROOT,
    env: { ...process.env, ...TEST_ENV, ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The second instance exited with ${child.exitCode}:\n${output}`);
    try {
      const res = await fetch(`${url}/api/v2/`);
      if (res.status === 401) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`The second instance did not answer within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { url, pid: child.pid!, output: () => output, stop };
};

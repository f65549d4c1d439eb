/**
 * The application under test, as its own process (the load generator must not share its event loop).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

export const APP_ROOT = path.resolve(__dirname, '..', '..');

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });

export type RunningServer = {
  url: string;
  /** The application's process id (its memory is sampled by bench/memory.ts). */
  pid: number;
  /** Whether the process has exited (a crash, an out-of-memory kill). */
  exited: () => boolean;
  stop: () => Promise<void>;
};

export const startServer = async (env: Record<string, string>): Promise<RunningServer> => {
  const port = await freePort();
  // BENCH_SERVER_NODE_ARGS: node options for the application alone, e.g. `--cpu-prof --cpu-prof-dir=.tmp/prof`
  // to profile the server under a bench's load (NODE_OPTIONS refuses --cpu-prof, and would profile the bench).
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child: ChildProcess = spawn(
    process.execPath,
    [...nodeArgs, path.join(APP_ROOT, 'node_modules', '@strapi', 'strapi', 'bin', 'strapi.js'), 'start'],
    {
      cwd: APP_ROOT,
      env: {
        ...process.env,
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'error',
        SERVE_ADMIN: 'false',
        NODE_ENV: 'production',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The application exited with status ${child.exitCode}.`);
    try {
      const res = await fetch(`${url}/_health`);
      if (res.status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('The application did not start within two minutes.');
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    url,
    pid: child.pid!,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
};

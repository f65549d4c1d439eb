/**
 * Several instances of the application behind HAProxy, as child processes (`npm run cluster`, and the
 * cluster test): the instances on one PostgreSQL database and one Redis, the proxy health-checking their
 * readiness, and rolling restarts that lose no request (docs/deployment.md).
 *
 * - The first instance starts alone and is ready before the others start: a first boot builds or
 *   migrates the schema, which two instances must not do at once.
 * - Restarting an instance: SIGTERM (it drains: readiness 503, out of the proxy's rotation, listener
 *   closed, requests in flight answered; services/graceful-shutdown.ts), then the same port again, and the
 *   next one only once the proxy has it back in the rotation.
 * - An instance that exits unasked is started again after a second.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_PROXY_CHECKS, drainDelayFor, renderHaproxyConfig, serverStates, type ServerState } from './haproxy';

export type ClusterOptions = {
  /** The application's root (its dist/ compiled). */
  appRoot: string;
  instances: number;
  /** Where the proxy listens; instances listen on the ports after it (port + 1, port + 2, ...). */
  host: string;
  port: number;
  /** Environment of every instance (database, Redis, secrets), on top of this process's. */
  env: Record<string, string>;
  /** What differs per instance (e.g. its own variant cache directory, on a disk of its own). */
  instanceEnv?: (index: number) => Record<string, string>;
  /** The configuration, runtime socket and pid file. */
  workDir: string;
  /** Where instance and proxy output goes, a line at a time, with the instance's name. */
  onOutput: (source: string, line: string) => void;
  /** How long an instance may take to be ready. */
  startTimeoutMs?: number;
  checks?: { checkIntervalMs: number; fall: number; rise: number };
};

export type Instance = { name: string; port: number; url: string; pid: () => number | undefined };

export type Cluster = {
  /** The proxy's URL: what clients use. */
  url: string;
  instances: Instance[];
  /** Drains instance `index`, starts it again, and waits until the proxy has it in the rotation again. */
  restart: (index: number) => Promise<void>;
  /** Every instance in turn. */
  rollingRestart: () => Promise<void>;
  /** The proxy's view of each instance. */
  states: () => Promise<ServerState[]>;
  /** Drains every instance, then stops the proxy. */
  stop: () => Promise<void>;
};

export const HAPROXY = 'haproxy';

/** Whether HAProxy can be run here (scripts/install-proxy.sh installs it). */
export const haproxyAvailable = (): boolean => spawnSync(HAPROXY, ['-v'], { stdio: 'ignore' }).status === 0;

/**
 * The environment instance `index` starts with: this process's, the cluster's `env` and the instance's own
 * over it, then what the cluster decides: its address, the proxy's headers trusted, the drain delay that fits
 * the proxy's checks, and NODE_ENV. NODE_ENV is the caller's when set (this process's environment or `env`),
 * else `production` (issue 33, item 10): Strapi takes an unset NODE_ENV for `development` (the admin's
 * relaxed development CSP, cookies never marked Secure behind TLS, `config/env/development`), and an
 * instance behind a proxy is a production server.
 */
export const instanceEnvironment = (
  inherited: NodeJS.ProcessEnv,
  options: Pick<ClusterOptions, 'env' | 'instanceEnv' | 'host'> & { checks: { checkIntervalMs: number; fall: number; rise: number } },
  index: number,
  port: number,
): NodeJS.ProcessEnv => {
  const given = { ...options.env, ...options.instanceEnv?.(index) };
  return {
    ...inherited,
    ...given,
    NODE_ENV: given.NODE_ENV || inherited.NODE_ENV || 'production',
    HOST: options.host,
    PORT: String(port),
    // The proxy appends the client's address to X-Forwarded-For and sets X-Request-Id.
    IS_PROXIED: 'true',
    PROXY_HOPS: '1',
    SHUTDOWN_DRAIN_DELAY_MS: options.env.SHUTDOWN_DRAIN_DELAY_MS ?? String(drainDelayFor(options.checks)),
  };
};

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const forwardLines = (stream: NodeJS.ReadableStream | null, emit: (line: string) => void) => {
  let rest = '';
  stream?.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop()!;
    for (const line of lines) emit(line);
  });
  stream?.on('end', () => rest && emit(rest));
};

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));

export const startCluster = async (options: ClusterOptions): Promise<Cluster> => {
  const { appRoot, host, port, workDir, onOutput } = options;
  const startTimeoutMs = options.startTimeoutMs ?? 120_000;
  const checks = options.checks ?? DEFAULT_PROXY_CHECKS;
  fs.mkdirSync(workDir, { recursive: true });
  const statsSocket = path.join(workDir, 'haproxy.sock');
  const strapiBin = path.join(appRoot, 'node_modules', '@strapi', 'strapi', 'bin', 'strapi.js');
  const instances: Instance[] = Array.from({ length: options.instances }, (_, index) => ({
    name: `i${index + 1}`,
    port: port + index + 1,
    url: `http://${host}:${port + index + 1}`,
    pid: () => children[index]?.pid,
  }));
  const children: Array<ChildProcess | undefined> = [];
  const stopping = new Set<number>();
  let shuttingDown = false;

  const spawnInstance = (index: number): ChildProcess => {
    const instance = instances[index]!;
    const child = spawn(process.execPath, [strapiBin, 'start'], {
      cwd: appRoot,
      env: instanceEnvironment(process.env, { ...options, checks }, index, instance.port),
      stdio: ['ignore', 'pipe', 'pipe'],
      // A group of its own: Ctrl-C at the terminal reaches this process, which drains the instances with
      // SIGTERM, instead of stopping every instance at once with SIGINT.
      detached: true,
    });
    forwardLines(child.stdout, (line) => onOutput(instance.name, line));
    forwardLines(child.stderr, (line) => onOutput(instance.name, line));
    child.once('exit', (code, signal) => {
      if (children[index] !== child) return;
      children[index] = undefined;
      if (shuttingDown || stopping.has(index)) return;
      onOutput('cluster', `${instance.name} exited unasked (${signal ?? code}); starting it again in 1 s`);
      setTimeout(() => {
        if (!shuttingDown && !children[index]) children[index] = spawnInstance(index);
      }, 1_000).unref();
    });
    return child;
  };

  /** Until the instance itself says it is ready (not through the proxy). */
  const waitReady = async (index: number) => {
    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      const child = children[index];
      if (!child || child.exitCode !== null) throw new Error(`${instances[index]!.name} exited while starting (see its output above)`);
      try {
        if ((await fetch(`${instances[index]!.url}/health/ready`)).status === 200) return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error(`${instances[index]!.name} was not ready within ${startTimeoutMs} ms`);
      await pause(250);
    }
  };

  /** Until the proxy has the instance in its rotation (status UP). */
  const waitInRotation = async (index: number, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const states = await serverStates(statsSocket).catch(() => []);
      if (states.find((state) => state.name === instances[index]!.name)?.status === 'UP') return;
      if (Date.now() > deadline)
        throw new Error(`The proxy did not take ${instances[index]!.name} into its rotation within ${timeoutMs} ms`);
      await pause(100);
    }
  };

  const stopInstance = async (index: number) => {
    const child = children[index];
    if (!child) return;
    stopping.add(index);
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), drainDelayFor(checks) + 60_000);
    await exited(child);
    clearTimeout(killer);
    stopping.delete(index);
  };

  // The proxy first: it checks the instances as they come up.
  const configFile = path.join(workDir, 'haproxy.cfg');
  fs.rmSync(statsSocket, { force: true });
  fs.writeFileSync(
    configFile,
    renderHaproxyConfig({
      bind: { host, port },
      servers: instances.map(({ name, port: instancePort }) => ({ name, host, port: instancePort })),
      statsSocket,
      ...checks,
      serverTimeoutMs: 60_000,
    }),
  );
  const proxy = spawn(HAPROXY, ['-db', '-f', configFile], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  // Should this process end without stopping the cluster (a crash), its children go with it.
  const orphans = () => {
    for (const child of [...children, proxy]) if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', orphans);
  forwardLines(proxy.stdout, (line) => onOutput('haproxy', line));
  forwardLines(proxy.stderr, (line) => onOutput('haproxy', line));
  const proxyExit = exited(proxy);

  const stop = async () => {
    shuttingDown = true;
    await Promise.all(instances.map((_, index) => stopInstance(index)));
    if (proxy.exitCode === null && proxy.signalCode === null) proxy.kill('SIGTERM');
    await proxyExit;
    process.off('exit', orphans);
    fs.rmSync(statsSocket, { force: true });
  };

  try {
    children[0] = spawnInstance(0);
    await waitReady(0);
    for (let index = 1; index < instances.length; index += 1) children[index] = spawnInstance(index);
    for (let index = 1; index < instances.length; index += 1) await waitReady(index);
    for (let index = 0; index < instances.length; index += 1) await waitInRotation(index);
  } catch (error) {
    await stop();
    throw error;
  }

  const restart = async (index: number) => {
    await stopInstance(index);
    children[index] = spawnInstance(index);
    await waitReady(index);
    await waitInRotation(index);
  };

  return {
    url: `http://${host}:${port}`,
    instances,
    restart,
    rollingRestart: async () => {
      for (let index = 0; index < instances.length; index += 1) await restart(index);
    },
    states: () => serverStates(statsSocket),
    stop,
  };
};

/**
 * `npm run cluster`: the application as several instances behind HAProxy on this machine, on PostgreSQL
 * and Redis (docs/deployment.md). Runs until stopped (Ctrl-C or SIGTERM: every instance drains, then the
 * proxy stops).
 *
 *   npm run cluster [-- --instances 3]     start (PORT is the proxy's; instances take the next ports)
 *   npm run cluster -- restart             rolling restart of the running cluster (SIGHUP to it)
 *
 * It reads .env like the application. It refuses SQLite (one file for one process) and says what to set.
 */
import fs from 'node:fs';
import path from 'node:path';
import dotenv from 'dotenv';
import { HAPROXY, haproxyAvailable, startCluster } from './lib/cluster';
import { APP_ROOT } from './lib/strapi';

const WORK_DIR = path.join(APP_ROOT, '.tmp', 'cluster');
const PID_FILE = path.join(WORK_DIR, 'cluster.pid');
const MAX_INSTANCES = 9;

const say = (line: string): void => void process.stdout.write(`${line}\n`);
const complain = (line: string): void => void process.stderr.write(`${line}\n`);

/** The instance count from `--instances N` or CLUSTER_INSTANCES (default 2), or a message. */
export const instanceCount = (args: string[], env: NodeJS.ProcessEnv): number | string => {
  const at = args.indexOf('--instances');
  const raw = at >= 0 ? args[at + 1] : env.CLUSTER_INSTANCES;
  if (raw === undefined || raw === '') return 2;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_INSTANCES) {
    return `The instance count must be a whole number from 1 to ${MAX_INSTANCES}, got '${raw}'.`;
  }
  return Number(raw);
};

const signalRunning = (): number => {
  const pid = fs.existsSync(PID_FILE) ? Number(fs.readFileSync(PID_FILE, 'utf8').trim()) : NaN;
  if (!Number.isInteger(pid) || pid <= 0) {
    complain('No cluster is running here (no .tmp/cluster/cluster.pid): start one with `npm run cluster`.');
    return 1;
  }
  try {
    process.kill(pid, 'SIGHUP');
  } catch {
    complain(`The cluster of .tmp/cluster/cluster.pid (process ${pid}) is not running any more.`);
    return 1;
  }
  say(`Rolling restart asked of the cluster (process ${pid}); its output shows each instance drain and come back.`);
  return 0;
};

export const main = async (args: string[]): Promise<number> => {
  if (args[0] === 'restart') return signalRunning();
  dotenv.config({ path: path.join(APP_ROOT, '.env') });
  const count = instanceCount(args, process.env);
  if (typeof count === 'string') {
    complain(count);
    return 2;
  }
  if (!process.env.PUBLIC_API_KEY_SECRET) {
    complain('The secrets are not set: copy .env.example to .env and fill it in (or run `npm run demo` once, which writes one).');
    return 1;
  }
  if ((process.env.DATABASE_CLIENT ?? 'sqlite').trim().toLowerCase() !== 'postgres') {
    complain('The cluster needs PostgreSQL (SQLite is one file for one process): set DATABASE_CLIENT=postgres and DATABASE_URL in .env.');
    return 1;
  }
  if (!process.env.REDIS_URL) {
    complain('The cluster needs Redis for what instances share (rate limits): set REDIS_URL (e.g. redis://127.0.0.1:6379) in .env.');
    return 1;
  }
  if (!haproxyAvailable()) {
    complain(`${HAPROXY} is not installed: run scripts/install-proxy.sh (as root) first.`);
    return 1;
  }
  const port = Number(process.env.PORT ?? 1337);
  const host = process.env.CLUSTER_HOST || '127.0.0.1';
  say(`Starting ${count} instances on ports ${port + 1}-${port + count} behind HAProxy on ${host}:${port} ...`);
  const cluster = await startCluster({
    appRoot: APP_ROOT,
    instances: count,
    host,
    port,
    env: { PUBLIC_URL: process.env.PUBLIC_URL || `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}` },
    workDir: WORK_DIR,
    onOutput: (source, line) => say(`[${source}] ${line}`),
  });
  fs.writeFileSync(PID_FILE, String(process.pid));
  say(`Cluster ready: ${cluster.url} (instances ${cluster.instances.map((instance) => instance.url).join(', ')}).`);
  say('Rolling restart: npm run cluster -- restart (or kill -HUP this process). Stop: Ctrl-C.');

  let restarting: Promise<void> | null = null;
  process.on('SIGHUP', () => {
    if (restarting) {
      say('[cluster] a rolling restart is already under way');
      return;
    }
    say('[cluster] rolling restart: one instance at a time');
    restarting = cluster
      .rollingRestart()
      .then(
        () => say('[cluster] rolling restart done'),
        (error: Error) => complain(`[cluster] rolling restart failed: ${error.message}`),
      )
      .finally(() => (restarting = null));
  });
  return new Promise<number>((resolve) => {
    const shutdown = () => {
      say('[cluster] stopping: every instance drains, then the proxy stops');
      void cluster.stop().then(() => {
        fs.rmSync(PID_FILE, { force: true });
        resolve(0);
      });
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
  });
};

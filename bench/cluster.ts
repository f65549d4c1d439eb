/**
 * `npm run bench:cluster`: what scaling out buys and what the proxy costs. The 100-record page
 * (`GET /api/v2/events?limit=100`) with autocannon: one instance answering directly, one instance behind
 * HAProxy, two instances behind HAProxy (scripts/lib/cluster.ts), on PostgreSQL and Redis.
 *
 *   npm run bench:cluster -- [--events 20000] [--seconds 10] [--connections 10]
 *
 * Seeds its own PostgreSQL database once (`pda_bench_cluster` on DATABASE_URL's server, default
 * postgres://postgres@127.0.0.1:5432: the demo content plus N events); the cluster listens on 4570 and the
 * ports after it (CLUSTER_BENCH_PORT). Prints the table; docs/benchmarks.md keeps a run by hand, with the
 * machine's load said beside it. On a 2-core machine the load generator, the proxy and the instances share
 * the cores: the ratio shows what a second process on the same cores buys, not a second machine.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { haproxyAvailable, startCluster, type Cluster } from '../scripts/lib/cluster';
import { measure, type Measurement } from './measure';
import { failures, machine } from './report';
import { benchEnvironment, createApiKey, withStrapi } from './setup';
import { APP_ROOT } from './server';
import { seedBulkEvents, seedDemo } from '../src/seed';

const say = (line = '') => process.stdout.write(`${line}\n`);

const DATABASE = 'pda_bench_cluster';

const adminUrl = () => process.env.CLUSTER_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const databaseUrl = () => {
  const url = new URL(adminUrl());
  url.pathname = `/${DATABASE}`;
  return url.toString();
};

const ensureDatabase = async () => {
  const client = new Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${DATABASE}"`);
  } finally {
    await client.end();
  }
};

export const main = async (args: string[]): Promise<number> => {
  const { values } = parseArgs({
    args,
    options: {
      events: { type: 'string', default: '20000' },
      seconds: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
    },
  });
  const events = Number(values.events);
  const options = { seconds: Number(values.seconds), connections: Number(values.connections), warmupSeconds: 2 };
  if (![events, options.seconds, options.connections].every((n) => Number.isInteger(n) && n > 0)) {
    process.stderr.write('usage: npm run bench:cluster -- [--events N] [--seconds N] [--connections N]\n');
    return 2;
  }
  if (!haproxyAvailable()) {
    process.stderr.write('haproxy is not installed: run scripts/install-proxy.sh (as root) first.\n');
    return 1;
  }
  benchEnvironment('unused.db');
  const database = { DATABASE_CLIENT: 'postgres', DATABASE_URL: databaseUrl(), DATABASE_POOL_MAX: '10' };
  Object.assign(process.env, database);
  await ensureDatabase();
  const apiKey = await withStrapi(async (strapi) => {
    await seedDemo(strapi, { log: () => {} });
    const bulk = await seedBulkEvents(strapi, events, { log: () => {} });
    say(`Benchmark data on PostgreSQL: ${bulk.inserted} events inserted, ${bulk.alreadyPresent} already present.`);
    return createApiKey(strapi, `bench cluster ${Date.now()}`, 'all');
  });
  const port = Number(process.env.CLUSTER_BENCH_PORT ?? 4570);
  const env = {
    ...database,
    REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
    PUBLIC_API_RATE_LIMIT_PREFIX: `bench-cluster-${process.pid}`,
    PUBLIC_API_RATE_LIMIT_REQUESTS: '1000000',
    PUBLIC_API_UNAUTHENTICATED_RATE_LIMIT_REQUESTS: '1000000',
    SERVE_ADMIN: 'false',
    LOG_LEVEL: 'error',
    NODE_ENV: 'production',
  };
  const headers = { Authorization: `Bearer ${apiKey}` };
  const page = '/api/v2/events?limit=100';
  const rows: Measurement[] = [];
  for (const instances of [1, 2]) {
    let cluster: Cluster | null = null;
    try {
      cluster = await startCluster({
        appRoot: APP_ROOT,
        instances,
        host: '127.0.0.1',
        port,
        env,
        workDir: path.join(APP_ROOT, '.tmp', 'bench-cluster'),
        onOutput: (source, line) => {
          if (source === 'haproxy' || /error/i.test(line)) say(`[${source}] ${line}`);
        },
      });
      if (instances === 1) {
        rows.push(
          await measure({ label: '100-record page, 1 instance, direct', url: `${cluster.instances[0]!.url}${page}`, headers }, options),
        );
        say(`measured: ${rows.at(-1)!.label}`);
      }
      rows.push(
        await measure(
          {
            label: `100-record page, ${instances} instance${instances > 1 ? 's' : ''}, through HAProxy`,
            url: `${cluster.url}${page}`,
            headers,
          },
          options,
        ),
      );
      say(`measured: ${rows.at(-1)!.label}`);
    } finally {
      await cluster?.stop();
    }
  }
  const base = rows[0]!.requestsPerSecond;
  say();
  say(
    `Machine: ${machine()}; ${options.connections} connections, ${options.seconds} s per row after a ${options.warmupSeconds} s warm-up.`,
  );
  say();
  say('| Row | req/s | p50 ms | p99 ms | vs. 1 instance direct |');
  say('| --- | ---: | ---: | ---: | ---: |');
  for (const row of rows) {
    say(`| ${row.label} | ${row.requestsPerSecond.toFixed(0)} | ${row.p50} | ${row.p99} | ${(row.requestsPerSecond / base).toFixed(2)}x |`);
  }
  const failed = failures(rows);
  for (const line of failed) say(`FAILED: ${line}`);
  return failed.length ? 1 : 0;
};

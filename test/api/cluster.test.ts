/**
 * The cluster (issue 20; docs/deployment.md): two instances as child processes on one PostgreSQL database
 * and one Redis, behind HAProxy (scripts/lib/cluster.ts). While each instance in turn is restarted, a
 * client keeps reading and writing through the proxy, every write with an Idempotency-Key: no request
 * fails, no write is lost or stored twice, and a write sent again after the restart gets its first answer.
 * A draining instance says 503 on its readiness endpoint before its listener closes. Then a key's rate
 * limit is spent across both instances, and their metrics show the traffic each one served.
 *
 * Needs HAProxy (scripts/install-proxy.sh; CI runs it), PostgreSQL and Redis; skipped, saying which is
 * missing, without them. It always runs on PostgreSQL, whatever TEST_DATABASE says.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { createStrapi } from '@strapi/strapi';
import { Client } from 'pg';
import { haproxyAvailable, startCluster, type Cluster } from '../../scripts/lib/cluster';
import { APP_ROOT } from '../helpers/app';
import { solidImage, storeFile } from '../helpers/assets';
import { publish } from '../helpers/fixtures';
import { createTestDatabase, POSTGRES_ADMIN_URL, type TestDatabase } from '../helpers/database';
import { TEST_ENV, applyTestEnv } from '../helpers/env';
import { keysService } from '../helpers/keys';
import { freePort } from '../helpers/processes';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const METRICS_TOKEN = `cluster-test-${randomUUID()}`;
const CHECKS = { checkIntervalMs: 300, fall: 2, rise: 2 };

/**
 * What the cluster needs and is missing here, or null. Asked in a child process so that the suite can
 * decide synchronously whether it runs (jest declares tests before any hook runs).
 */
const missingHere = (): string | null => {
  if (!haproxyAvailable()) return 'HAProxy is not installed (scripts/install-proxy.sh)';
  const probe = `
    const { Client } = require('pg');
    const { Redis } = require('ioredis');
    (async () => {
      const pg = new Client({ connectionString: process.argv[1], connectionTimeoutMillis: 3000 });
      try { await pg.connect(); await pg.end(); } catch { console.log('PostgreSQL is not reachable at ' + process.argv[1]); return; }
      const redis = new Redis(process.argv[2], { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 3000 });
      try { await redis.connect(); await redis.ping(); } catch { console.log('Redis is not reachable at ' + process.argv[2]); }
      redis.disconnect();
    })();`;
  const result = spawnSync(process.execPath, ['-e', probe, POSTGRES_ADMIN_URL, REDIS_URL], {
    cwd: APP_ROOT,
    encoding: 'utf8',
    timeout: 15_000,
  });
  return result.stdout.trim() || (result.status === 0 ? null : `the reachability probe failed: ${result.stderr.trim()}`);
};

/** A port whose next two are free as well (the proxy's, then the instances'). */
const threeFreePorts = async (): Promise<number> => {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const port = await freePort();
    if (port > 65_000) continue;
    const free = (candidate: number) =>
      new Promise<boolean>((resolve) => {
        const probe = net.createServer();
        probe.once('error', () => resolve(false));
        probe.listen(candidate, '127.0.0.1', () => probe.close(() => resolve(true)));
      });
    if ((await free(port + 1)) && (await free(port + 2))) return port;
  }
  throw new Error('No three consecutive free ports');
};

const missing = missingHere();
const describeWithCluster = missing ? describe.skip : describe;
if (missing) test.skip(`cluster: ${missing}`, () => undefined);

describeWithCluster('two instances behind HAProxy', () => {
  let database: TestDatabase;
  let cluster: Cluster;
  let output = '';
  let everything: string;
  let limited: string;
  // Uploads on a directory every instance sees (PUBLIC_DIR); each instance's variant cache on its own.
  const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-cluster-public-'));
  fs.mkdirSync(path.join(shared, 'uploads'));
  const workDir = path.join(APP_ROOT, '.tmp', `cluster-test-${process.pid}`);
  const caches = [0, 1].map((index) => fs.mkdtempSync(path.join(os.tmpdir(), `pda-cluster-cache-${index}-`)));

  beforeAll(async () => {
    const previous = process.env.TEST_DATABASE;
    process.env.TEST_DATABASE = 'postgres';
    try {
      database = await createTestDatabase('schema');
    } finally {
      if (previous === undefined) delete process.env.TEST_DATABASE;
      else process.env.TEST_DATABASE = previous;
    }
    // The keys, written once through the application itself (then it stops: the cluster runs alone).
    applyTestEnv();
    Object.assign(process.env, database.env, { PUBLIC_DIR: shared });
    const strapi = createStrapi({ appDir: APP_ROOT, distDir: path.join(APP_ROOT, 'dist') });
    await strapi.load();
    try {
      const keys = keysService(strapi);
      everything = (await keys.create({ name: 'cluster client', grants: 'all' as never })).plaintext;
      limited = (
        await keys.create({
          name: 'cluster limited',
          grants: { resources: { 'native:buildings': { actions: ['read'], read: ['name'] } } },
          limits: { requests: 6, window: 60 },
        })
      ).plaintext;
      const image = await storeFile(strapi, {
        name: 'facade.png',
        bytes: await solidImage(64, 48),
        mime: 'image/png',
        width: 64,
        height: 48,
      });
      await publish(strapi, 'api::building.building', { name: 'Shared Hall', slug: 'shared-hall', images: [image.id] });
    } finally {
      await strapi.destroy();
      delete process.env.PUBLIC_DIR;
    }
    const port = await threeFreePorts();
    cluster = await startCluster({
      appRoot: APP_ROOT,
      instances: 2,
      host: '127.0.0.1',
      port,
      env: {
        ...TEST_ENV,
        ...database.env,
        PDA_SKIP_COMPILE: '1',
        // One JSON line per request (http is the level of request lines).
        LOG_LEVEL: 'http',
        LOG_FORMAT: 'json',
        REDIS_URL,
        PUBLIC_API_RATE_LIMIT_PREFIX: `cluster-test-${randomUUID()}`,
        METRICS_TOKEN,
        DATABASE_POOL_MAX: '4',
        PUBLIC_DIR: shared,
      },
      instanceEnv: (index) => ({ PUBLIC_API_ASSET_CACHE_DIR: caches[index]! }),
      workDir,
      onOutput: (source, line) => (output += `[${source}] ${line}\n`),
      checks: CHECKS,
    });
  }, 240_000);

  afterAll(async () => {
    await cluster?.stop();
    // The instances' and the proxy's output, for a failure's diagnosis: CLUSTER_TEST_OUTPUT=<file>.
    if (process.env.CLUSTER_TEST_OUTPUT) fs.writeFileSync(process.env.CLUSTER_TEST_OUTPUT, output);
    await database?.drop();
    for (const dir of [shared, ...caches, workDir]) fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  const auth = () => ({ Authorization: `Bearer ${everything}` });

  test('a rolling restart under reads and writes: nothing fails, nothing is lost or doubled', async () => {
    const failures: string[] = [];
    const written: Array<{ name: string; key: string; id: string }> = [];
    const requestIds = new Set<string>();
    let running = true;
    let reads = 0;

    const write = async (name: string, idempotencyKey: string) => {
      const res = await fetch(`${cluster.url}/api/v2/buildings`, {
        method: 'POST',
        headers: { ...auth(), 'Content-Type': 'application/vnd.api+json', 'Idempotency-Key': idempotencyKey },
        body: JSON.stringify({ data: { type: 'buildings', attributes: { name } } }),
      });
      const body = (await res.json()) as { data?: { id: string } };
      return { status: res.status, id: body.data?.id, requestId: res.headers.get('x-request-id') };
    };

    const writer = async () => {
      for (let n = 0; running; n += 1) {
        const name = `rolling-${n}`;
        const key = randomUUID();
        try {
          const answer = await write(name, key);
          if (answer.status !== 201) failures.push(`POST ${name}: ${answer.status}`);
          else written.push({ name, key, id: answer.id! });
          if (answer.requestId) requestIds.add(answer.requestId);
        } catch (error) {
          failures.push(`POST ${name}: ${(error as Error).message}`);
        }
      }
    };
    const reader = async () => {
      while (running) {
        try {
          const res = await fetch(`${cluster.url}/api/v2/buildings?limit=5`, { headers: auth() });
          await res.arrayBuffer();
          if (res.status !== 200) failures.push(`GET: ${res.status}`);
          reads += 1;
        } catch (error) {
          failures.push(`GET: ${(error as Error).message}`);
        }
      }
    };

    // What the restarted instance itself answers on its readiness endpoint, until its listener is gone.
    const readinessSeen = async (url: string) => {
      const seen: string[] = [];
      for (;;) {
        try {
          const res = await fetch(`${url}/health/ready`);
          const status = `${res.status} ${((await res.json()) as { status: string }).status}`;
          if (seen.at(-1) !== status) seen.push(status);
        } catch {
          seen.push('refused');
          return seen;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    const traffic = Promise.all([writer(), reader(), reader()]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const drainSeen: string[][] = [];
    for (const [index, instance] of cluster.instances.entries()) {
      expect((await fetch(`${instance.url}/health/ready`)).status).toBe(200);
      const watching = readinessSeen(instance.url);
      await cluster.restart(index);
      drainSeen.push(await watching);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    running = false;
    await traffic;

    expect(failures).toEqual([]);
    expect(written.length).toBeGreaterThan(10);
    expect(reads).toBeGreaterThan(10);
    // Each restarted instance left the rotation (readiness 503) while it still answered, then closed.
    for (const seen of drainSeen) expect(seen.slice(-2)).toEqual(['503 draining', 'refused']);
    // The proxy's request ids reached the client (the instances trust them behind the proxy).
    expect([...requestIds].every((id) => !/^[0-9a-f]{8}-[0-9a-f]{4}-/.test(id))).toBe(true);

    // A write sent again with its key after the restarts gets its first answer, and stores nothing new.
    const again = await write(written[0]!.name, written[0]!.key);
    expect(again).toMatchObject({ status: 201, id: written[0]!.id });

    // Every write stored exactly once.
    const pg = new Client({ connectionString: database.env.DATABASE_URL });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ name: string; documents: string }>(
        "SELECT name, count(DISTINCT document_id) AS documents FROM buildings WHERE name LIKE 'rolling-%' GROUP BY name",
      );
      const stored = new Map(rows.map((row) => [row.name, Number(row.documents)]));
      expect(stored.size).toBe(written.length);
      for (const { name } of written) expect(stored.get(name)).toBe(1);
    } finally {
      await pg.end();
    }
    expect(await cluster.states()).toEqual([
      { name: 'i1', status: 'UP' },
      { name: 'i2', status: 'UP' },
    ]);
  }, 300_000);

  test("one key's rate limit is spent across both instances, and each instance's metrics show its share", async () => {
    const get = () => fetch(`${cluster.url}/api/v2/buildings`, { headers: { Authorization: `Bearer ${limited}` } });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i += 1) statuses.push((await get()).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);

    const scrape = async (url: string) => {
      const res = await fetch(`${url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(res.status).toBe(200);
      return res.text();
    };
    const sum = (text: string, pattern: RegExp) =>
      text
        .split('\n')
        .filter((line) => pattern.test(line))
        .reduce((total, line) => total + Number(line.split(' ').at(-1)), 0);
    const texts = await Promise.all(cluster.instances.map((instance) => scrape(instance.url)));
    const limitedSeries = /^public_api_requests_total\{route="v2:native-collection",method="GET",status="(200|429)",key="[^"]+"\}/;
    // The limited key's 8 requests, round robin: some on each instance, 8 in all (the other key's reads are
    // on the same route, so count the 429s, which only the limited key got, and the 200s of both).
    const refusedPer = texts.map((text) =>
      sum(text, /^public_api_requests_total\{route="v2:native-collection",method="GET",status="429",/),
    );
    expect(refusedPer.reduce((a, b) => a + b, 0)).toBe(2);
    const servedPer = texts.map((text) => sum(text, limitedSeries));
    for (const served of servedPer) expect(served).toBeGreaterThan(0);
    const rateLimited = texts.map((text) => sum(text, /^public_api_rate_limited_total\{scope="key"\}/));
    expect(rateLimited.reduce((a, b) => a + b, 0)).toBe(2);
    // The writes since each instance's restart are counted there, with their key.
    const created = texts.map((text) => sum(text, /^public_api_requests_total\{route="v2:native-create",method="POST",status="201",/));
    expect(created.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    for (const text of texts) {
      expect(text).toMatch(/^public_api_db_pool_max 4$/m);
      expect(text).toMatch(/^public_api_request_duration_seconds_count\{route="v2:native-collection",method="GET"\} \d+$/m);
    }
    // The proxy does not serve /metrics at all, not even with the token (issue 33): scraped per instance.
    for (const metricsPath of ['/metrics', '/METRICS', '/%6detrics', '//metrics/']) {
      const proxied = await fetch(`${cluster.url}${metricsPath}`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
      expect([metricsPath, proxied.status]).toEqual([metricsPath, 404]);
      expect(await proxied.json()).toEqual({
        jsonapi: { version: '1.1' },
        errors: [{ status: '404', code: 'not_found', title: 'Not Found', detail: 'Nothing is here.' }],
      });
    }
    // Every instance logged one JSON line per request, with the proxy's request id.
    const requestLines = output
      .split('\n')
      .map((line) => line.replace(/^\[i\d\] /, ''))
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; route?: string; requestId?: string; keyId?: string | null })
      .filter((entry) => entry.level === 'http' && entry.route === 'v2:native-collection');
    expect(requestLines.length).toBeGreaterThan(8);
    expect(requestLines.every((entry) => typeof entry.requestId === 'string' && typeof entry.keyId === 'string')).toBe(true);
  }, 60_000);

  test('an asset URL and its variants answer the same bytes from either instance, each computing its variant from the shared original', async () => {
    const record = await fetch(`${cluster.url}/api/v2/buildings/shared-hall`, { headers: auth() });
    const asset = ((await record.json()) as { data: { attributes: { images: Array<{ url: string }> } } }).data.attributes.images[0]!;
    const { pathname } = new URL(asset.url);
    const answers = [];
    for (const instance of cluster.instances) {
      for (const query of ['', '?w=32&format=webp']) {
        const res = await fetch(`${instance.url}${pathname}${query}`);
        expect(res.status).toBe(200);
        answers.push({ query, etag: res.headers.get('etag'), bytes: Buffer.from(await res.arrayBuffer()) });
      }
    }
    const [original1, variant1, original2, variant2] = answers;
    expect(original2!.etag).toBe(original1!.etag);
    expect(original2!.bytes.equals(original1!.bytes)).toBe(true);
    expect(variant2!.etag).toBe(variant1!.etag);
    expect(variant2!.bytes.equals(variant1!.bytes)).toBe(true);
    expect(variant1!.bytes.subarray(8, 12).toString()).toBe('WEBP');
    // Each instance computed and kept the variant in its own cache (written after the answer): nothing was
    // shared but the original.
    const cachedFiles = (dir: string) => fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    for (let attempt = 0; attempt < 50 && caches.some((cache) => cachedFiles(cache).length === 0); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const cache of caches) expect(cachedFiles(cache).length).toBeGreaterThan(0);
  }, 60_000);
});

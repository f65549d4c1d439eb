/**
 * `npm run bench:abuse`: the soak of issue 15 ("How we know"), three parts, each printed with its aims
 * and whether they were met:
 *
 *   (a) include: `--connections` (100) connections of one key ask for the heaviest include read the
 *       grants allow (the deepest include paths at the largest page the response bound serves) for
 *       `--seconds` (30); meanwhile a second key reads a 10-record page one request after another. Aims:
 *       the process stays up, its peak RSS stays under 1 GB, and the second key's p95 stays under 10 times
 *       its idle p95 (measured first, in the same run).
 *   (b) transforms: bench/transform-abuse.ts (6 clients of distinct heavy AVIF variants; another client's
 *       cached variant p95 under 50 ms, its first small thumbnails under 2 s).
 *   (c) uploads: 20 concurrent job applications with a 10 MiB CV, three rounds. Aim: RSS under 600 MB.
 *
 *   npm run bench:abuse -- [--parts include,transforms,uploads] [--seconds 30] [--connections 100]
 *                          [--events 20000] [--in-flight 4,8,16,32] [--attack include|cheap]
 *
 * `--in-flight` runs part (a) once per value of PUBLIC_API_REQUESTS_IN_FLIGHT (a fresh server each) and
 * prints them side by side: how the load gate's default was chosen (docs/benchmarks.md). `--attack cheap`
 * makes part (a)'s attack 10-record pages by a key at the default limit of 600 requests a minute, most of
 * them answered 429: what a flood of cheap requests and refusals costs the second key (issue 34).
 *
 * The database is bench/.data/abuse.db (the demo content and `--events` benchmark events, inserted when
 * missing and kept between runs); the application runs as a child process (its memory is sampled from
 * /proc with its descendants'), the attack runs in an autocannon process of its own so that the second
 * key's timings are not the load generator's. CVs stored by part (c) are removed at the end. Exit status 0 when
 * every aim of the parts run was met.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { mib, residentBytes, sampleMemory } from './memory';
import { APP_ROOT, startServer, type RunningServer } from './server';
import { benchEnvironment, createApiKey, withStrapi, type BenchEnv } from './setup';
import { main as transformSoak } from './transform-abuse';
import { seedBulkEvents, seedDemo } from '../src/seed';

const say = (line = '') => process.stdout.write(`${line}\n`);

const PARTS = ['include', 'transforms', 'uploads'] as const;
type Part = (typeof PARTS)[number];

const INCLUDE_RSS_AIM = 1_000_000_000;
const INCLUDE_P95_RATIO_AIM = 10;
const UPLOAD_RSS_AIM = 600_000_000;
const UPLOAD_CONCURRENCY = 20;
const UPLOAD_ROUNDS = 3;
const CV_BYTES = 10 * 1024 * 1024;
const IDLE_REQUESTS = 100;

type Aim = { part: string; aim: string; measured: string; met: boolean };

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
};

const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

/** One GET; its status, milliseconds and body size. */
const timedGet = async (url: string, headers: Record<string, string>) => {
  const started = performance.now();
  const res = await fetch(url, { headers });
  const bytes = (await res.arrayBuffer()).byteLength;
  return { status: res.status, ms: performance.now() - started, bytes };
};

// ---------------------------------------------------------------------------------------------------------
// (a) include
// ---------------------------------------------------------------------------------------------------------

/** The reads an attacker would try, deepest first (the include depth limit is 3 levels). */
const INCLUDE_CANDIDATES = [
  { resource: 'buildings', include: 'events.venue.events,events.festival.events' },
  { resource: 'buildings', include: 'events.venue.events' },
  { resource: 'events', include: 'venue.events,festival.events' },
  { resource: 'events', include: 'venue.events' },
  { resource: 'buildings', include: 'events.venue,events.festival' },
  { resource: 'events', include: 'venue,festival' },
];

/** The attack's read: its path and query below the API base (the same on every server of the run). */
type AttackTarget = { path: string; label: string; bytes: number; refusedFirst: string[] };

/**
 * The heaviest read the server serves: for each candidate, deepest first, the largest `limit` (1 to 100)
 * that is not refused up front (400 include_too_large), found by bisection; the first candidate served
 * at any limit wins.
 */
const findAttack = async (api: string, headers: Record<string, string>): Promise<AttackTarget> => {
  const refusedFirst: string[] = [];
  for (const candidate of INCLUDE_CANDIDATES) {
    const pathOf = (limit: number) => `/${candidate.resource}?limit=${limit}&include=${candidate.include}`;
    const urlOf = (limit: number) => `${api}${pathOf(limit)}`;
    const at100 = await timedGet(urlOf(100), headers);
    if (at100.status === 200)
      return {
        path: pathOf(100),
        label: `/${candidate.resource}?limit=100&include=${candidate.include}`,
        bytes: at100.bytes,
        refusedFirst,
      };
    refusedFirst.push(`/${candidate.resource}?limit=100&include=${candidate.include}: ${at100.status}`);
    let served = 0;
    let bytes = 0;
    let refused = 100;
    while (refused - served > 1) {
      const limit = Math.floor((served + refused) / 2);
      const res = await timedGet(urlOf(limit), headers);
      if (res.status === 200) {
        served = limit;
        bytes = res.bytes;
      } else {
        refused = limit;
      }
    }
    if (served > 0) return { path: pathOf(served), label: pathOf(served), bytes, refusedFirst };
  }
  throw new Error('No include read is served at all; is the database seeded?');
};

type Attack = { requests: number; statuses: Record<string, number>; errors: number; timeouts: number; rps: number };

/**
 * autocannon in a process of its own (its command line, JSON result): parsing tens of MB per answer
 * would otherwise take this process's event loop, which times the second key.
 */
const attack = (url: string, headers: Record<string, string>, connections: number, seconds: number): Promise<Attack> =>
  new Promise((resolve, reject) => {
    const cli = path.join(APP_ROOT, 'node_modules', 'autocannon', 'autocannon.js');
    const headerArgs = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}=${value}`]);
    const child = spawn(process.execPath, [cli, '-c', String(connections), '-d', String(seconds), '-t', '30', '-j', ...headerArgs, url], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => {
      try {
        const result = JSON.parse(out) as {
          requests: { total: number; average: number };
          errors: number;
          timeouts: number;
          statusCodeStats?: Record<string, { count: number }>;
        };
        resolve({
          requests: result.requests.total,
          statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, stat]) => [status, stat.count])),
          errors: result.errors,
          timeouts: result.timeouts,
          rps: result.requests.average,
        });
      } catch {
        reject(new Error(`autocannon exited with ${code} and no result`));
      }
    });
  });

/** The cheap read of `--attack cheap`: the second key's own page. */
const CHEAP_ATTACK: AttackTarget = {
  path: '/events?limit=10',
  label: '/events?limit=10 (key at 600 requests a minute)',
  bytes: 0,
  refusedFirst: [],
};

type IncludeRun = {
  inFlight: string;
  target: AttackTarget;
  attack: Attack;
  idleP95: number;
  busyP95: number;
  busyP50: number;
  victimRequests: number;
  victimNon200: Record<string, number>;
  peakRss: number;
  startRss: number;
  survived: boolean;
};

const includeSoak = async (
  env: BenchEnv,
  keys: Keys,
  options: { seconds: number; connections: number; inFlight: number | null; cheap: boolean },
  known: AttackTarget | null,
): Promise<IncludeRun> => {
  const server = await startServer({
    ...env,
    ...(options.inFlight === null ? {} : { PUBLIC_API_REQUESTS_IN_FLIGHT: String(options.inFlight) }),
  });
  try {
    const api = `${server.url}/api/v2`;
    // `--attack cheap`: the attacker reads the victim's own cheap page with a key at the default limit
    // (600 requests a minute), so most of its flood is 429s (issue 34, the row of cheap reads).
    const attacker = { Authorization: `Bearer ${options.cheap ? keys.limited : keys.attacker}` };
    const victim = { Authorization: `Bearer ${keys.victim}` };
    const victimUrl = `${api}/events?limit=10`;
    const target = options.cheap ? CHEAP_ATTACK : (known ?? (await findAttack(api, attacker)));
    for (let i = 0; i < 20; i += 1) await timedGet(victimUrl, victim);
    const idle: number[] = [];
    for (let i = 0; i < IDLE_REQUESTS; i += 1) idle.push((await timedGet(victimUrl, victim)).ms);
    const startRss = residentBytes(server.pid);
    const memory = sampleMemory(server.pid);
    say(
      `  ${options.connections} connections of GET ${target.label} (${(target.bytes / 1e6).toFixed(1)} MB each) for ${options.seconds} s ...`,
    );
    const attacking = attack(`${api}${target.path}`, attacker, options.connections, options.seconds);
    let done = false;
    void attacking.finally(() => (done = true)).catch(() => undefined);
    // The first second is the attack's ramp: not counted.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const busy: number[] = [];
    const non200: Record<string, number> = {};
    while (!done) {
      const res = await timedGet(victimUrl, victim).catch(() => ({ status: 0, ms: NaN, bytes: 0 }));
      if (done) break;
      if (res.status === 200) busy.push(res.ms);
      else non200[String(res.status)] = (non200[String(res.status)] ?? 0) + 1;
    }
    const result = await attacking;
    memory.stop();
    const survived = await answers(server);
    return {
      inFlight: options.inFlight === null ? 'default' : String(options.inFlight),
      target,
      attack: result,
      idleP95: percentile(idle, 95),
      busyP95: percentile(busy, 95),
      busyP50: percentile(busy, 50),
      victimRequests: busy.length + Object.values(non200).reduce((a, b) => a + b, 0),
      victimNon200: non200,
      peakRss: memory.peak(),
      startRss,
      survived,
    };
  } finally {
    await server.stop();
  }
};

/** Whether the server still answers (its health check, within 10 s) and has not exited. */
const answers = async (server: RunningServer): Promise<boolean> => {
  try {
    const res = await fetch(`${server.url}/_health`, { signal: AbortSignal.timeout(10_000) });
    return res.status < 500 && !server.exited();
  } catch {
    return false;
  }
};

const describeRun = (run: IncludeRun) => {
  say(
    `  attack: ${run.attack.requests} requests (${run.attack.rps.toFixed(1)}/s), by status ${JSON.stringify(run.attack.statuses)}, ${run.attack.errors} errors, ${run.attack.timeouts} timeouts`,
  );
  say(
    `  second key: idle p95 ${run.idleP95.toFixed(1)} ms; under attack p50 ${run.busyP50.toFixed(1)} ms, p95 ${run.busyP95.toFixed(1)} ms (${(run.busyP95 / run.idleP95).toFixed(1)}x) over ${run.victimRequests} requests, not 200: ${JSON.stringify(run.victimNon200)}`,
  );
  say(`  RSS: ${mib(run.startRss)} before, peak ${mib(run.peakRss)}; process ${run.survived ? 'up' : 'DOWN'} at the end`);
};

const includeAims = (run: IncludeRun): Aim[] => [
  { part: '(a) include', aim: 'the process stays up', measured: run.survived ? 'up' : 'down', met: run.survived },
  { part: '(a) include', aim: `peak RSS < ${mib(INCLUDE_RSS_AIM)}`, measured: mib(run.peakRss), met: run.peakRss < INCLUDE_RSS_AIM },
  {
    part: '(a) include',
    aim: `second key p95 < ${INCLUDE_P95_RATIO_AIM}x idle, every answer 200`,
    measured: `${run.busyP95.toFixed(1)} ms / ${run.idleP95.toFixed(1)} ms = ${(run.busyP95 / run.idleP95).toFixed(1)}x; not 200: ${Object.values(run.victimNon200).reduce((a, b) => a + b, 0)}`,
    met: run.busyP95 < INCLUDE_P95_RATIO_AIM * run.idleP95 && Object.keys(run.victimNon200).length === 0,
  },
];

// ---------------------------------------------------------------------------------------------------------
// (c) uploads
// ---------------------------------------------------------------------------------------------------------

/** A PDF of exactly `bytes` bytes (a one-page document, padded after its end marker). */
const paddedPdf = (bytes: number): Buffer => {
  const head = Buffer.from(
    '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
    'latin1',
  );
  return Buffer.concat([head, Buffer.alloc(bytes - head.length, 0x20)]);
};

type UploadRun = { statuses: Record<string, number>; peakRss: number; startRss: number; survived: boolean };

const uploadSoak = async (env: BenchEnv, keys: Keys, uploadsDir: string): Promise<UploadRun> => {
  const before = new Set(fs.readdirSync(uploadsDir));
  const server = await startServer(env);
  try {
    const api = `${server.url}/api/v2`;
    const auth = { Authorization: `Bearer ${keys.attacker}` };
    const jobs = (await (await fetch(`${api}/jobs?limit=100`, { headers: auth })).json()) as {
      data: { id: string; attributes: { closesOn?: string | null } }[];
    };
    const today = new Date().toISOString().slice(0, 10);
    const job = jobs.data.find((candidate) => !candidate.attributes.closesOn || candidate.attributes.closesOn >= today);
    if (!job) throw new Error('No open job to apply to in the demo content.');
    const cv = new Blob([paddedPdf(CV_BYTES)], { type: 'application/pdf' });
    const startRss = residentBytes(server.pid);
    const memory = sampleMemory(server.pid, 100);
    const statuses: Record<string, number> = {};
    say(`  ${UPLOAD_ROUNDS} rounds of ${UPLOAD_CONCURRENCY} concurrent job applications, each with a ${mib(CV_BYTES)} CV ...`);
    for (let round = 1; round <= UPLOAD_ROUNDS; round += 1) {
      await Promise.all(
        Array.from({ length: UPLOAD_CONCURRENCY }, async (_, n) => {
          const form = new FormData();
          form.set(
            'data',
            JSON.stringify({
              data: {
                type: 'job-application',
                attributes: { job: job.id, name: `Abuse Soak ${round}-${n}`, email: `soak-${round}-${n}@example.com`, consent: true },
              },
            }),
          );
          form.set('cv', cv, 'cv.pdf');
          const res = await fetch(`${api}/commands/job-application`, { method: 'POST', headers: auth, body: form }).catch(() => null);
          const status = res ? String(res.status) : 'error';
          await res?.arrayBuffer();
          statuses[status] = (statuses[status] ?? 0) + 1;
        }),
      );
    }
    memory.stop();
    return { statuses, peakRss: memory.peak(), startRss, survived: await answers(server) };
  } finally {
    await server.stop();
    // The CVs the accepted applications stored: this run's own files, removed.
    for (const file of fs.readdirSync(uploadsDir))
      if (!before.has(file) && file.startsWith('CV_')) fs.rmSync(path.join(uploadsDir, file), { force: true });
  }
};

// ---------------------------------------------------------------------------------------------------------

type Keys = { attacker: string; victim: string; limited: string };

const USAGE =
  'usage: npm run bench:abuse -- [--parts include,transforms,uploads] [--seconds S>=5] [--connections N>=1] [--events N>=1000] [--in-flight 4,8,16,32] [--attack include|cheap]\n';

export const main = async (args: string[]): Promise<number> => {
  const { values } = parseArgs({
    args,
    options: {
      parts: { type: 'string', default: PARTS.join(',') },
      seconds: { type: 'string', default: '30' },
      connections: { type: 'string', default: '100' },
      events: { type: 'string', default: '20000' },
      'in-flight': { type: 'string' },
      attack: { type: 'string', default: 'include' },
    },
  });
  const parts = values.parts.split(',') as Part[];
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const events = Number(values.events);
  const inFlights = values['in-flight']?.split(',').map(Number) ?? [null];
  if (
    parts.some((part) => !PARTS.includes(part)) ||
    !Number.isInteger(seconds) ||
    seconds < 5 ||
    !Number.isInteger(connections) ||
    connections < 1 ||
    !Number.isInteger(events) ||
    events < 1000 ||
    inFlights.some((value) => value !== null && (!Number.isInteger(value) || value < 1)) ||
    !['include', 'cheap'].includes(values.attack)
  ) {
    process.stderr.write(USAGE);
    return 2;
  }

  const started = Date.now();
  say(`bench:abuse, ${new Date().toISOString()}, load average ${load()} (1, 5, 15 min), ${os.cpus().length} cores`);
  const aims: Aim[] = [];
  if (parts.includes('include') || parts.includes('uploads')) {
    const env = benchEnvironment('abuse.db');
    say(`Preparing ${env.DATABASE_FILENAME} (demo content and ${events} events) ...`);
    let uploadsDir = '';
    const keys = await withStrapi(async (strapi) => {
      await seedDemo(strapi, { log: () => {} });
      const bulk = await seedBulkEvents(strapi, events, { log: () => {} });
      say(`  ${bulk.inserted} events inserted, ${bulk.alreadyPresent} already present.`);
      uploadsDir = path.join(strapi.dirs.static.public, 'uploads');
      const stamp = Date.now();
      return {
        attacker: await createApiKey(strapi, `abuse attacker ${stamp}`, 'all'),
        victim: await createApiKey(strapi, `abuse second key ${stamp}`, 'all'),
        limited: await createApiKey(strapi, `abuse attacker at 600 a minute ${stamp}`, 'all', { requests: 600, window: 60 }),
      };
    });
    try {
      if (parts.includes('include')) {
        say();
        say('(a) include');
        const runs: IncludeRun[] = [];
        let target: AttackTarget | null = null;
        for (const inFlight of inFlights) {
          if (inFlights.length > 1) say(` PUBLIC_API_REQUESTS_IN_FLIGHT=${inFlight}`);
          const run = await includeSoak(env, keys, { seconds, connections, inFlight, cheap: values.attack === 'cheap' }, target);
          if (!target) {
            target = run.target;
            for (const refused of target.refusedFirst) say(`  refused up front: ${refused}`);
          }
          describeRun(run);
          runs.push(run);
        }
        if (runs.length > 1) {
          say();
          say('| In flight | Attack req/s | Attack answers | Second key idle p95 | Under attack p50 / p95 | Ratio | Not 200 | Peak RSS |');
          say('| ---: | ---: | --- | ---: | ---: | ---: | --- | ---: |');
          for (const run of runs) {
            say(
              `| ${run.inFlight} | ${run.attack.rps.toFixed(1)} | ${Object.entries(run.attack.statuses)
                .map(([status, count]) => `${count} x ${status}`)
                .join(
                  ', ',
                )} | ${run.idleP95.toFixed(1)} ms | ${run.busyP50.toFixed(1)} / ${run.busyP95.toFixed(1)} ms | ${(run.busyP95 / run.idleP95).toFixed(1)}x | ${JSON.stringify(run.victimNon200)} | ${mib(run.peakRss)} |`,
            );
          }
        }
        for (const run of runs)
          aims.push(...includeAims(run).map((aim) => (runs.length > 1 ? { ...aim, part: `${aim.part}, in flight ${run.inFlight}` } : aim)));
      }
      if (parts.includes('uploads')) {
        say();
        say('(c) uploads');
        const run = await uploadSoak(env, keys, uploadsDir);
        say(
          `  answers by status: ${JSON.stringify(run.statuses)}; RSS ${mib(run.startRss)} before, peak ${mib(run.peakRss)}; process ${run.survived ? 'up' : 'DOWN'}`,
        );
        aims.push({
          part: '(c) uploads',
          aim: `peak RSS < ${mib(UPLOAD_RSS_AIM)}, process up`,
          measured: mib(run.peakRss),
          met: run.peakRss < UPLOAD_RSS_AIM && run.survived,
        });
      }
    } finally {
      fs.rmSync(env.PUBLIC_API_ASSET_CACHE_DIR, { recursive: true, force: true });
    }
  }
  if (parts.includes('transforms')) {
    say();
    say('(b) transforms (bench/transform-abuse.ts)');
    const status = await transformSoak(['--seconds', String(Math.min(seconds, 30)), '--clients', '6']);
    aims.push({
      part: '(b) transforms',
      aim: 'cached variant p95 < 50 ms, first thumbnails < 2 s (see above)',
      measured: status === 0 ? 'met' : 'not met',
      met: status === 0,
    });
  }

  say();
  say(`Load average at the end: ${load()}; ${((Date.now() - started) / 1000).toFixed(0)} s in all.`);
  say('| Part | Aim | Measured | Met |');
  say('| --- | --- | --- | --- |');
  for (const aim of aims) say(`| ${aim.part} | ${aim.aim} | ${aim.measured} | ${aim.met ? 'yes' : 'NO'} |`);
  return aims.every((aim) => aim.met) ? 0 : 1;
};

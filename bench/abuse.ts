/**
 * `npm run bench:abuse`: one key (or one anonymous client) attacks, another key's p95 under the attack is
 * divided by its p95 idle, measured in the same run on the same server (issue 34, "How we know"). Rows:
 *
 *   include          `--connections` (100) connections of the heaviest include read the grants allow (the
 *                    deepest include paths at the largest page the response bound serves); also the
 *                    server's peak RSS (aim: under 768 MB);
 *   cheap            `--connections` connections of 10-record pages, at the default rate limit (600
 *                    requests a minute: most of the flood is 429);
 *   atomic-sqlite    a loop of 100-add atomic requests on 1, then 4, connections (SQLite);
 *   atomic-postgres  the same on PostgreSQL; the other key reads, and writes events (the same type);
 *   transforms       6 addresses asking for new AVIF variants of a 2400 x 1600 photo without pause; the
 *                    other client asks for fresh 1000-pixel-wide WebPs of it and for a cached variant;
 *   uploads          rounds of 20 concurrent job applications with a 10 MiB CV (issue 15 (c)): peak RSS.
 *
 *   npm run bench:abuse -- [--rows include,cheap,atomic-sqlite,atomic-postgres,transforms,uploads]
 *                          [--seconds 20] [--connections 100] [--events 20000] [--in-flight 4,8,16,32]
 *
 * Each row prints the other key's idle and attacked p95 and their ratio (aim < 10x, every answer 2xx), and
 * the attacker's 2xx answers per second and answers by status (aim: not starved, more than none), the
 * attacking process's CPU seconds and the bench process's own (the other key's prober), and the server's
 * peak RSS. `--in-flight` runs the include row once per value of PUBLIC_API_REQUESTS_IN_FLIGHT.
 *
 * Databases: bench/.data/abuse.db (the demo content and `--events` benchmark events, kept between runs)
 * for include, cheap and uploads; a copy of it for atomic-sqlite, a new PostgreSQL database for
 * atomic-postgres (bench/abuse-databases.ts), bench/.data/abuse-transforms.db with the bench images for
 * transforms: each removed at the row's end. The application runs as a child process (its memory sampled
 * from /proc with its descendants'), the attack in another (bench/abuse-attacker.ts). Exit status 0 when
 * every aim of the rows run was met.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Attack, AttackResult } from './abuse-attacker';
import { postgresDatabase, sqliteCopy, type BenchDatabase } from './abuse-databases';
import { findAttack, type AttackTarget } from './abuse-include';
import { answers, uploadSoak, UPLOAD_RSS_AIM } from './abuse-uploads';
import { measureUnderAttack, percentile, timed, type Probe, type VictimFigures } from './abuse-victim';
import { BENCH_IMAGES, getJson, prepareAssets, removeAssets } from './assets';
import { mib, residentBytes, sampleMemory } from './memory';
import { startServer } from './server';
import { benchEnvironment, createApiKey, DATA_DIR, withStrapi, type BenchEnv } from './setup';
import { DEFAULT_KEY_RATE_LIMIT } from '../src/plugins/public-api/server/src/config/rate-limits';
import { seedBulkEvents, seedDemo } from '../src/seed';

const say = (line = '') => process.stdout.write(`${line}\n`);

const ROWS = ['include', 'cheap', 'atomic-sqlite', 'atomic-postgres', 'transforms', 'uploads'] as const;
type RowName = (typeof ROWS)[number];

/** Issue 34: the peak under the deepest include stays under 768 MB (the contract's bound is 1 GB). */
export const INCLUDE_RSS_AIM = 768_000_000;
const RATIO_AIM = 10;
const ATOMIC_OPERATIONS = 100;
const ATOMIC_CONNECTIONS = [1, 4];
const TRANSFORM_CLIENTS = 6;
/** The other key's pace: at most one request every 150 ms, 400 a minute, within the default rate limit. */
const VICTIM_INTERVAL_MS = 150;
const IDLE_SAMPLES = 60;
/** A fresh WebP takes a few hundred milliseconds: fewer idle samples, so the row stays short. */
const TRANSFORM_IDLE_SAMPLES = 10;

type Keys = { attacker: string; victim: string };

/** One row's run: the victim's figures per probe, the attack's result, the server's memory. */
type RowRun = {
  row: string;
  figures: Record<string, VictimFigures>;
  attack: AttackResult;
  benchCpuSeconds: number;
  startRss: number;
  peakRss: number;
  up: boolean;
  note?: string;
};

type Aim = { row: string; aim: string; measured: string; met: boolean };

const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

const statusList = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([status, n]) => `${n} x ${status === '0' ? 'no answer' : status}`)
    .join(', ') || 'none';

/** A run of one row on a server of its own: the attack and probes are built once the server is up. */
const runRow = async (
  row: string,
  env: Record<string, string>,
  build: (api: string) => Promise<{ attack: Attack; probes: Record<string, Probe>; note?: string }>,
  options: { idleSamples: number; warmup: number },
): Promise<RowRun> => {
  const server = await startServer(env);
  try {
    const api = `${server.url}/api/v2`;
    const { attack, probes, note } = await build(api);
    const startRss = residentBytes(server.pid);
    const memory = sampleMemory(server.pid);
    const cpu = process.cpuUsage();
    const measured = await measureUnderAttack(probes, attack, { ...options, intervalMs: VICTIM_INTERVAL_MS });
    const used = process.cpuUsage(cpu);
    memory.stop();
    return {
      row,
      figures: measured.figures,
      attack: measured.attack,
      benchCpuSeconds: (used.user + used.system) / 1e6,
      startRss,
      peakRss: memory.peak(),
      up: await answers(server),
      note,
    };
  } finally {
    await server.stop();
  }
};

const readProbe =
  (api: string, key: string): Probe =>
  () =>
    timed(`${api}/events?limit=10`, { headers: { Authorization: `Bearer ${key}` } });

let serial = 0;
const writeProbe =
  (api: string, key: string): Probe =>
  () =>
    timed(`${api}/events`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/vnd.api+json' },
      body: JSON.stringify({
        data: {
          type: 'events',
          attributes: { title: `Abuse victim ${process.pid} ${(serial += 1)}`, startsAt: '2027-03-01T19:00:00.000Z', category: 'talk' },
        },
      }),
    });

/**
 * What the server's resident memory grew by while attacked: its peak over the sampled run less its RSS
 * before (the boot's own memory, 400 MiB and more, is not the attack's).
 */
const growth = (run: { startRss: number; peakRss: number }) => `+${mib(Math.max(0, run.peakRss - run.startRss))}`;

const ratioOf = (figures: VictimFigures) => percentile(figures.busy.samples, 95) / percentile(figures.idle.samples, 95);
const notOkCount = (figures: VictimFigures) =>
  [...Object.values(figures.idle.notOk), ...Object.values(figures.busy.notOk)].reduce((sum, n) => sum + n, 0);

const describe = (run: RowRun) => {
  if (run.note) say(`  ${run.note}`);
  say(
    `  attacker: ${run.attack.requests} requests in ${run.attack.seconds.toFixed(0)} s, ${run.attack.successesPerSecond.toFixed(2)} x 2xx/s; ${statusList(run.attack.statuses)}; its CPU ${run.attack.cpuSeconds.toFixed(1)} s`,
  );
  for (const [probe, figures] of Object.entries(run.figures)) {
    say(
      `  other key, ${probe}: idle p95 ${percentile(figures.idle.samples, 95).toFixed(1)} ms (${figures.idle.samples.length}); under attack p50 ${percentile(figures.busy.samples, 50).toFixed(1)} ms, p95 ${percentile(figures.busy.samples, 95).toFixed(1)} ms (${figures.busy.samples.length}): ${ratioOf(figures).toFixed(1)}x; not 2xx: idle ${statusList(figures.idle.notOk)}, under attack ${statusList(figures.busy.notOk)}`,
    );
  }
  say(
    `  bench process CPU ${run.benchCpuSeconds.toFixed(1)} s; server RSS ${mib(run.startRss)} before, peak ${mib(run.peakRss)} (${growth(run)} during the attack); ${run.up ? 'up' : 'DOWN'} at the end`,
  );
};

const rowAims = (run: RowRun): Aim[] => [
  ...Object.entries(run.figures).map(([probe, figures]) => ({
    row: run.row,
    aim: `${probe}: p95 < ${RATIO_AIM}x idle, every answer 2xx`,
    measured: `${percentile(figures.busy.samples, 95).toFixed(1)} / ${percentile(figures.idle.samples, 95).toFixed(1)} ms = ${ratioOf(figures).toFixed(1)}x; not 2xx: ${notOkCount(figures)}`,
    met: ratioOf(figures) < RATIO_AIM && notOkCount(figures) === 0,
  })),
  {
    row: run.row,
    aim: 'attacker served (2xx/s > 0), server up',
    measured: `${run.attack.successesPerSecond.toFixed(2)}/s; ${run.up ? 'up' : 'down'}`,
    met: run.attack.successesPerSecond > 0 && run.up,
  },
];

/** Boots Strapi in this process on another database (`env` over this process's), then restores the environment. */
const withStrapiOn = async <T>(env: Record<string, string>, work: Parameters<typeof withStrapi<T>>[0]): Promise<T> => {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  try {
    return await withStrapi(work);
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
};

const newKeys = async (strapi: Parameters<Parameters<typeof withStrapi>[0]>[0], row: string): Promise<Keys> => {
  const stamp = Date.now();
  return {
    attacker: await createApiKey(strapi, `abuse ${row} attacker ${stamp}`, 'all'),
    victim: await createApiKey(strapi, `abuse ${row} other key ${stamp}`, 'all'),
  };
};

const atomicAttack = (api: string, key: string, connections: number, seconds: number): Attack => ({
  kind: 'atomic',
  url: `${api}/operations`,
  headers: { Authorization: `Bearer ${key}` },
  connections,
  operations: ATOMIC_OPERATIONS,
  seconds,
});

const USAGE = `usage: npm run bench:abuse -- [--rows ${ROWS.join(',')}] [--seconds S>=5] [--connections N>=1] [--events N>=1000] [--in-flight 4,8,16,32]\n`;

export const main = async (args: string[]): Promise<number> => {
  const { values } = parseArgs({
    args,
    options: {
      rows: { type: 'string' },
      // The name of issue 15's runs, kept.
      parts: { type: 'string' },
      seconds: { type: 'string', default: '20' },
      connections: { type: 'string', default: '100' },
      events: { type: 'string', default: '20000' },
      'in-flight': { type: 'string' },
    },
  });
  const rows = (values.rows ?? values.parts ?? ROWS.join(',')).split(',') as RowName[];
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const events = Number(values.events);
  const inFlights = values['in-flight']?.split(',').map(Number) ?? [null];
  if (
    rows.some((row) => !ROWS.includes(row)) ||
    !Number.isInteger(seconds) ||
    seconds < 5 ||
    !Number.isInteger(connections) ||
    connections < 1 ||
    !Number.isInteger(events) ||
    events < 1000 ||
    inFlights.some((value) => value !== null && (!Number.isInteger(value) || value < 1))
  ) {
    process.stderr.write(USAGE);
    return 2;
  }

  const started = Date.now();
  const cpuAtStart = process.cpuUsage();
  say(`bench:abuse, ${new Date().toISOString()}, load average ${load()} (1, 5, 15 min), ${os.cpus().length} cores`);
  const runs: RowRun[] = [];
  const aims: Aim[] = [];
  const done = (run: RowRun, extra: Aim[] = []) => {
    describe(run);
    runs.push(run);
    aims.push(...rowAims(run), ...extra);
  };
  const options = { idleSamples: IDLE_SAMPLES, warmup: 20 };

  const env: BenchEnv = benchEnvironment('abuse.db');
  const onBenchDatabase = rows.some((row) => ['include', 'cheap', 'atomic-sqlite', 'uploads'].includes(row));
  let keys: Record<string, Keys> = {};
  let uploadsDir = '';
  if (onBenchDatabase) {
    say(`Preparing ${env.DATABASE_FILENAME} (demo content and ${events} events) ...`);
    keys = await withStrapi(async (strapi) => {
      await seedDemo(strapi, { log: () => {} });
      const bulk = await seedBulkEvents(strapi, events, { log: () => {} });
      say(`  ${bulk.inserted} events inserted, ${bulk.alreadyPresent} already present.`);
      uploadsDir = path.join(strapi.dirs.static.public, 'uploads');
      const made: Record<string, Keys> = {};
      for (const row of ['include', 'cheap', 'atomic-sqlite', 'uploads']) made[row] = await newKeys(strapi, row);
      return made;
    });
  }

  try {
    if (rows.includes('include')) {
      let target: AttackTarget | null = null;
      for (const inFlight of inFlights) {
        const row = inFlight === null ? 'include' : `include, ${inFlight} in flight`;
        say();
        say(`${row}: ${connections} connections of the deepest include`);
        const k = keys.include!;
        const run = await runRow(
          row,
          { ...env, ...(inFlight === null ? {} : { PUBLIC_API_REQUESTS_IN_FLIGHT: String(inFlight) }) },
          async (api) => {
            target ??= await findAttack(api, { Authorization: `Bearer ${k.attacker}` });
            return {
              attack: {
                kind: 'http',
                url: `${api}${target.path}`,
                headers: { Authorization: `Bearer ${k.attacker}` },
                connections,
                seconds,
              },
              probes: { read: readProbe(api, k.victim) },
              note: `GET ${target.label} (${(target.bytes / 1e6).toFixed(1)} MB)${target.refusedFirst.map((refused) => `; refused up front: ${refused}`).join('')}`,
            };
          },
          options,
        );
        done(run, [
          {
            row,
            aim: `peak RSS < ${INCLUDE_RSS_AIM / 1e6} MB`,
            measured: `${mib(run.peakRss)} (${(run.peakRss / 1e6).toFixed(0)} MB)`,
            met: run.peakRss < INCLUDE_RSS_AIM,
          },
        ]);
      }
    }

    if (rows.includes('cheap')) {
      say();
      say(`cheap: ${connections} connections of 10-record pages, at the default rate limit (${DEFAULT_KEY_RATE_LIMIT.requests} a minute)`);
      const k = keys.cheap!;
      done(
        await runRow(
          'cheap',
          {
            ...env,
            PUBLIC_API_RATE_LIMIT_REQUESTS: String(DEFAULT_KEY_RATE_LIMIT.requests),
            PUBLIC_API_RATE_LIMIT_WINDOW: String(DEFAULT_KEY_RATE_LIMIT.window),
          },
          async (api) => ({
            attack: {
              kind: 'http',
              url: `${api}/events?limit=10`,
              headers: { Authorization: `Bearer ${k.attacker}` },
              connections,
              seconds,
            },
            probes: { read: readProbe(api, k.victim) },
          }),
          options,
        ),
      );
    }

    if (rows.includes('atomic-sqlite')) {
      const copy: BenchDatabase = sqliteCopy(env.DATABASE_FILENAME, path.join(DATA_DIR, `abuse-atomic-${process.pid}.db`));
      try {
        for (const width of ATOMIC_CONNECTIONS) {
          const row = `atomic-sqlite, ${width} connection${width > 1 ? 's' : ''}`;
          say();
          say(`${row}: a loop of ${ATOMIC_OPERATIONS}-add atomic requests`);
          const k = keys['atomic-sqlite']!;
          done(
            await runRow(
              row,
              { ...env, ...copy.env },
              async (api) => ({ attack: atomicAttack(api, k.attacker, width, seconds), probes: { read: readProbe(api, k.victim) } }),
              options,
            ),
          );
        }
      } finally {
        await copy.drop();
      }
    }

    if (rows.includes('atomic-postgres')) {
      say();
      say('Preparing a PostgreSQL database (the demo content) ...');
      const database = await postgresDatabase();
      try {
        const k = await withStrapiOn(database.env, async (strapi) => {
          await seedDemo(strapi, { log: () => {} });
          return newKeys(strapi, 'atomic-postgres');
        });
        for (const width of ATOMIC_CONNECTIONS) {
          const row = `atomic-postgres, ${width} connection${width > 1 ? 's' : ''}`;
          say();
          say(`${row}: a loop of ${ATOMIC_OPERATIONS}-add atomic requests`);
          done(
            await runRow(
              row,
              { ...env, ...database.env },
              async (api) => ({
                attack: atomicAttack(api, k.attacker, width, seconds),
                probes: { read: readProbe(api, k.victim), 'write (POST /events)': writeProbe(api, k.victim) },
              }),
              options,
            ),
          );
        }
      } finally {
        await database.drop();
      }
    }

    if (rows.includes('transforms')) {
      say();
      say(`transforms: ${TRANSFORM_CLIENTS} addresses asking for new AVIF variants of ${BENCH_IMAGES[0].name}`);
      const assetsEnv = benchEnvironment('abuse-transforms.db');
      fs.rmSync(assetsEnv.DATABASE_FILENAME, { force: true });
      let written: string[] = [];
      try {
        const apiKey = await withStrapi(async (strapi) => {
          written = await prepareAssets(strapi);
          return createApiKey(strapi, 'bench abuse transforms', 'all');
        });
        let freshHeight = 600;
        done(
          await runRow(
            'transforms',
            { ...assetsEnv, IS_PROXIED: 'true' },
            async (api) => {
              const record = await getJson(`${api}/buildings/bench-assets`, { Authorization: `Bearer ${apiKey}` });
              const urlOf = (name: string) => record.data.attributes.images.find((image) => image.fileName === name)!.url;
              const photo = urlOf(BENCH_IMAGES[0].name);
              const client = { 'X-Forwarded-For': '198.51.100.200' };
              return {
                attack: { kind: 'transforms', url: photo, clients: TRANSFORM_CLIENTS, seconds },
                probes: {
                  // A new height each time: a first-time 1000-pixel-wide WebP (cost 2.2, not a cheap one).
                  'fresh 1000 px WebP': () => timed(`${photo}?w=1000&h=${(freshHeight += 1)}&fit=cover&format=webp`, { headers: client }),
                  'cached variant': () => timed(`${photo}?w=400&format=webp`, { headers: client }),
                },
              };
            },
            { idleSamples: TRANSFORM_IDLE_SAMPLES, warmup: 2 },
          ),
        );
      } finally {
        removeAssets(written, assetsEnv.PUBLIC_API_ASSET_CACHE_DIR);
        fs.rmSync(assetsEnv.DATABASE_FILENAME, { force: true });
        benchEnvironment('abuse.db');
      }
    }

    if (rows.includes('uploads')) {
      say();
      say('uploads (issue 15 (c))');
      const run = await uploadSoak(env, keys.uploads!.attacker, uploadsDir);
      say(
        `  answers by status: ${JSON.stringify(run.statuses)}; RSS ${mib(run.startRss)} before, peak ${mib(run.peakRss)} (${growth(run)} during the uploads); process ${run.survived ? 'up' : 'DOWN'}`,
      );
      aims.push({
        row: 'uploads',
        aim: `peak RSS < ${UPLOAD_RSS_AIM / 1e6} MB, process up`,
        measured: mib(run.peakRss),
        met: run.peakRss < UPLOAD_RSS_AIM && run.survived,
      });
    }
  } finally {
    fs.rmSync(env.PUBLIC_API_ASSET_CACHE_DIR, { recursive: true, force: true });
  }

  const benchCpu = process.cpuUsage(cpuAtStart);
  say();
  say(
    `Load average at the end: ${load()}; ${((Date.now() - started) / 1000).toFixed(0)} s in all; the bench process's CPU ${((benchCpu.user + benchCpu.system) / 1e6).toFixed(1)} s (preparation included), the attackers' ${runs.reduce((sum, run) => sum + run.attack.cpuSeconds, 0).toFixed(1)} s.`,
  );
  say();
  say(
    '| Row | Other key | Idle p95 | Under attack p95 | Ratio | Other key not 2xx | Attacker 2xx/s | Attacker answers | Attacker CPU | Bench CPU | RSS before | Peak RSS | Growth |',
  );
  say('| --- | --- | ---: | ---: | ---: | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const run of runs)
    for (const [probe, figures] of Object.entries(run.figures))
      say(
        `| ${run.row} | ${probe} | ${percentile(figures.idle.samples, 95).toFixed(1)} ms | ${percentile(figures.busy.samples, 95).toFixed(1)} ms | ${ratioOf(figures).toFixed(1)}x | ${notOkCount(figures) || 'none'} | ${run.attack.successesPerSecond.toFixed(2)} | ${statusList(run.attack.statuses)} | ${run.attack.cpuSeconds.toFixed(1)} s | ${run.benchCpuSeconds.toFixed(1)} s | ${mib(run.startRss)} | ${mib(run.peakRss)} | ${growth(run)} |`,
      );
  say();
  say('| Row | Aim | Measured | Met |');
  say('| --- | --- | --- | --- |');
  for (const aim of aims) say(`| ${aim.row} | ${aim.aim} | ${aim.measured} | ${aim.met ? 'yes' : 'NO'} |`);
  return aims.every((aim) => aim.met) ? 0 : 1;
};

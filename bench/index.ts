/**
 * `npm run bench`: the Public Data API against Strapi's own REST API on the same data, in one run:
 * 100-record pages (plain and with relations), a page at 90% depth, a single record, and writes
 * (create, update, and 100 creates in one atomic request against 100 POSTs: bench/atomic.ts); and /api/v2 against itself: a single record and a page with a sparse fieldset, a
 * revalidation (304) against the same read, and the 100-record page in br against uncompressed. In the same run and table, the asset comparisons of bench/assets.ts: a cached image
 * variant against the same bytes as a static file, and first-time transforms over HTTP against sharp
 * doing the same resize in-process (for both bench images; `--transforms` per image).
 *
 *   npm run bench -- [--events 100000] [--seconds 10] [--connections 10] [--transforms 20] [--no-write]
 *                    [--only ceiling|atomic|components|databases]
 *
 * Seeds its own SQLite database (bench/.data/bench.db: the demo content plus N events, and the bench
 * images on a building), starts the application as a separate process with a variant cache directory of
 * its own, measures each pair with autocannon (the transforms: sequential requests, timed), prints the
 * table and writes it to docs/benchmarks.md (unless --no-write). The bench images and the variant cache
 * are removed at the end. Figures are only comparable within one run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  ASSET_BENCH_ARGS,
  ASSET_BENCH_USAGE,
  assetBenchOptions,
  benchAssets,
  oneClientTransformQueue,
  prepareAssets,
  removeAssets,
} from './assets';
import { measure, settle, type Measurement, type Target } from './measure';
import { comparisonTable, failures, machine, rpsRatio, type Comparison } from './report';
import { benchAtomic } from './atomic';
import { benchDatabases, databaseRows } from './databases';
import { componentPageUrls, prepareComponentPages } from './components';
import { benchCeiling, ceilingTable, CEILING_ROUNDS, type CeilingRow } from './ceiling';
import { benchEnvironment, prepareDatabase, withStrapi } from './setup';
import { APP_ROOT, startServer, type RunningServer } from './server';

const say = (line = '') => process.stdout.write(`${line}\n`);

/** Timed rounds of the atomic rows (bench/atomic.ts), after one that warms up. */
const ATOMIC_ROUNDS = 7;

/** docs/benchmarks.md: what follows this line is written by other measurements and survives a run. */
const KEPT_SECTIONS_MARKER = '<!-- npm run bench keeps everything below this line. -->';

type Json = { data: unknown; links?: { next?: string } };

const getJson = async (url: string, headers: Record<string, string>): Promise<Json> => {
  const res = await fetch(url, { headers });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
};

/** Follows links.next from the first page until `pages` pages have been read; returns that page's URL. */
const cursorUrlAtPage = async (firstUrl: string, pages: number, headers: Record<string, string>): Promise<string> => {
  let url = firstUrl;
  for (let page = 1; page < pages; page += 1) {
    const next = (await getJson(url, headers)).links?.next;
    if (!next) throw new Error(`Only ${page} pages exist; cannot reach page ${pages}.`);
    url = next;
  }
  return url;
};

export const main = async (args: string[]): Promise<number> => {
  const { values } = parseArgs({
    args,
    options: {
      events: { type: 'string', default: '100000' },
      ...ASSET_BENCH_ARGS,
      'no-write': { type: 'boolean', default: false },
      only: { type: 'string' },
    },
  });
  const events = Number(values.events);
  const options = assetBenchOptions(values);
  const ceilingOnly = values.only === 'ceiling';
  // Only the atomic rows: printed, never written to docs/benchmarks.md (the table would lose every other row).
  const atomicOnly = values.only === 'atomic';
  // Only the components row (issue 17): printed, never written either.
  const componentsOnly = values.only === 'components';
  // Only the page and the single record on SQLite, PostgreSQL and MariaDB, each against Strapi's REST API on
  // the same database (issue 35, bench/databases.ts; `mariadb`, its first name, still works): printed only.
  const databasesOnly = values.only === 'databases' || values.only === 'mariadb';
  if (
    !Number.isInteger(events) ||
    events < 1000 ||
    !options ||
    (values.only !== undefined && !ceilingOnly && !atomicOnly && !componentsOnly && !databasesOnly)
  ) {
    process.stderr.write(
      `usage: npm run bench -- [--events N>=1000] ${ASSET_BENCH_USAGE} [--no-write] [--only ceiling|atomic|components|databases]\n`,
    );
    return 2;
  }
  if (databasesOnly) return benchDatabases(events, options, say);

  const command = `npm run bench -- --events ${events} --seconds ${options.seconds} --connections ${options.connections} --transforms ${options.transforms}`;
  const env = benchEnvironment('bench.db');
  say(`Preparing ${events} events and the bench images in ${env.DATABASE_FILENAME} ...`);
  let assetFiles: string[] = [];
  let server: RunningServer | undefined;
  const measurements: Measurement[] = [];
  const comparisons: Comparison[] = [];
  let ceiling: CeilingRow[] = [];
  const run = async (target: Target) => {
    say(`  measuring ${target.label} ...`);
    // What the row before left running on the server is not this row's (bench/measure.ts).
    if (server) await settle([server.pid]);
    const result = await measure(target, options);
    measurements.push(result);
    return result;
  };
  const compare = async (scenario: string, ours: Target, baseline: Target, aim: string, aimMet: (ratio: number) => boolean) => {
    const a = await run(ours);
    const b = await run(baseline);
    comparisons.push({ scenario, ours: a, baseline: b, aim, aimMet, ratio: rpsRatio(a, b) });
  };

  try {
    const credentials = await withStrapi(async (strapi) => {
      const prepared = await prepareDatabase(strapi, events, say);
      say(`Component pages: ${await prepareComponentPages(strapi)} made.`);
      assetFiles = await prepareAssets(strapi);
      return prepared;
    });
    server = await startServer({ ...env, ...oneClientTransformQueue(options.connections) });
    const v2 = { Authorization: `Bearer ${credentials.apiKey}` };
    const rest = { Authorization: `Bearer ${credentials.readToken}` };
    const api = `${server.url}/api/v2`;
    const totalPages = Math.floor((events * 0.9) / 100);
    const middle = (await getJson(`${api}/events/bench-${String(Math.floor(events / 2)).padStart(6, '0')}`, v2)).data as {
      id: string;
      meta: { slug: string };
    };

    // The raw ceiling (issue 16): the same reads from a hand-written server, answers checked equal first.
    const measureCeiling = async () => {
      say('Raw ceiling rows ...');
      const result = await benchCeiling({
        serverUrl: server!.url,
        serverPid: server!.pid,
        database: env.DATABASE_FILENAME,
        keySecret: process.env.PUBLIC_API_KEY_SECRET ?? '',
        credentials,
        singleSlug: middle.meta.slug,
        singleDocumentId: middle.id,
        options,
        say,
      });
      ceiling = result.rows;
      measurements.push(...result.measurements);
    };
    if (ceilingOnly) {
      await measureCeiling();
      return report();
    }
    // Atomic operations (issue 17): 100 creates in one request against 100 single POSTs, sequential rounds.
    const measureAtomic = async () => {
      const atomic = await benchAtomic(api, v2.Authorization, ATOMIC_ROUNDS, say);
      comparisons.push(...atomic.comparisons);
      measurements.push(...atomic.measurements);
    };
    if (atomicOnly) {
      await measureAtomic();
      return report();
    }
    // 100 pages, each with a 10-section dynamic zone and an SEO component, against Strapi's populate of the same.
    const measureComponents = async () => {
      const urls = componentPageUrls(server!.url);
      await compare(
        '100 pages with a 10-section dynamic zone',
        { label: 'GET /api/v2/cms/culture-hub/pages?limit=100 (sections, seo)', url: urls.ours, headers: v2 },
        {
          label: 'GET /api/pages?pagination[pageSize]=100&populate[sections][populate]=*&populate[seo][populate]=*',
          url: urls.strapi,
          headers: rest,
        },
        '>= 2x',
        (ratio) => ratio >= 2,
      );
    };
    if (componentsOnly) {
      await measureComponents();
      return report();
    }

    await compare(
      '100-record page',
      { label: 'GET /api/v2/events?limit=100', url: `${api}/events?limit=100`, headers: v2 },
      { label: 'GET /api/events?pagination[pageSize]=100', url: `${server.url}/api/events?pagination%5BpageSize%5D=100`, headers: rest },
      '>= 2x',
      (ratio) => ratio >= 2,
    );
    await compare(
      '100-record page with relations',
      { label: 'GET /api/v2/events?limit=100&include=venue,festival', url: `${api}/events?limit=100&include=venue,festival`, headers: v2 },
      {
        label: 'GET /api/events?pagination[pageSize]=100&populate[venue]&populate[festival]',
        url: `${server.url}/api/events?pagination%5BpageSize%5D=100&populate%5Bvenue%5D=true&populate%5Bfestival%5D=true`,
        headers: rest,
      },
      '>= 2x',
      (ratio) => ratio >= 2,
    );

    // Depth on like content: the demo events (rich bodies, covers) sort first, the benchmark events after
    // them, so both pages are read from the benchmark events alone (the cursor carries the filter).
    const benchOnly = `${api}/events?limit=100&filter%5Bslug%5D%5BstartsWith%5D=bench-`;
    say(`  walking to page ${totalPages} through cursors ...`);
    const deepUrl = await cursorUrlAtPage(benchOnly, totalPages, v2);
    const first = await run({
      label: 'GET /api/v2/events?limit=100&filter[slug][startsWith]=bench- (first page)',
      url: benchOnly,
      headers: v2,
    });
    const deep = await run({ label: `the same at page ${totalPages} (cursor)`, url: deepUrl, headers: v2 });
    comparisons.push({
      scenario: 'Page at 90% depth vs first page (/api/v2)',
      ours: deep,
      baseline: first,
      aim: 'cost <= 1.2x (ratio >= 0.83)',
      aimMet: (r) => r >= 1 / 1.2,
      ratio: rpsRatio(deep, first),
    });
    const restFirst = measurements[1]!;
    const restDeep = await run({
      label: `GET /api/events?pagination[page]=${totalPages}&pageSize=100 (offset)`,
      url: `${server.url}/api/events?pagination%5Bpage%5D=${totalPages}&pagination%5BpageSize%5D=100`,
      headers: rest,
    });
    comparisons.push({
      scenario: 'Page at 90% depth vs first page (Strapi, offset)',
      ours: restDeep,
      baseline: restFirst,
      aim: 'for comparison',
      aimMet: () => true,
      ratio: rpsRatio(restDeep, restFirst),
    });
    comparisons.push({
      scenario: 'Page at 90% depth: /api/v2 cursor vs Strapi offset',
      ours: deep,
      baseline: restDeep,
      aim: 'for comparison',
      aimMet: () => true,
      ratio: rpsRatio(deep, restDeep),
    });

    await compare(
      'Single record',
      { label: `GET /api/v2/events/${middle.meta.slug}`, url: `${api}/events/${middle.meta.slug}`, headers: v2 },
      { label: 'GET /api/events/:documentId', url: `${server.url}/api/events/${middle.id}`, headers: rest },
      'for comparison',
      () => true,
    );

    // Sparse fieldsets (issue 16): the same reads cut to two fields, against the whole record. The
    // documents' sizes are printed beside the table (meta.fields is most of a single record's document).
    const sparse = 'fields%5Bevents%5D=title,startsAt';
    const singleUrl = `${api}/events/${middle.meta.slug}`;
    for (const [label, url] of [
      ['single record', singleUrl],
      ['single record, fields[events]=title,startsAt', `${singleUrl}?${sparse}`],
      ['100-record page', `${api}/events?limit=100`],
      ['100-record page, fields[events]=title,startsAt', `${api}/events?limit=100&${sparse}`],
    ] as const) {
      const document = (await getJson(url, v2)) as Json & { meta: { fields: unknown[] } };
      const bytes = Buffer.byteLength(JSON.stringify(document));
      const fields = Buffer.byteLength(JSON.stringify(document.meta.fields));
      say(`  document size, ${label}: ${bytes} bytes, of which meta.fields ${fields} (${Math.round((100 * fields) / bytes)}%)`);
    }
    await compare(
      'Single record, sparse fieldset vs whole',
      { label: `GET /api/v2/events/${middle.meta.slug}?fields[events]=title,startsAt`, url: `${singleUrl}?${sparse}`, headers: v2 },
      { label: `GET /api/v2/events/${middle.meta.slug}`, url: singleUrl, headers: v2 },
      'for comparison',
      () => true,
    );
    await compare(
      '100-record page, sparse fieldset vs whole',
      { label: 'GET /api/v2/events?limit=100&fields[events]=title,startsAt', url: `${api}/events?limit=100&${sparse}`, headers: v2 },
      { label: 'GET /api/v2/events?limit=100', url: `${api}/events?limit=100`, headers: v2 },
      'for comparison',
      () => true,
    );

    // HTTP caching and compression (issue 16, contract section 14). A revalidation builds the document to
    // learn its tag like the read does, and sends no body; the compressed page is the same read in br.
    const tagged = await fetch(singleUrl, { headers: v2 });
    const etag = tagged.headers.get('etag');
    await tagged.arrayBuffer();
    if (!etag) throw new Error(`${singleUrl}: no ETag`);
    await compare(
      'Revalidation (304) vs the same read (200)',
      {
        label: `GET /api/v2/events/${middle.meta.slug} with If-None-Match (304)`,
        url: singleUrl,
        headers: { ...v2, 'If-None-Match': etag },
        redirectStatus: 304,
      },
      { label: `GET /api/v2/events/${middle.meta.slug} (200)`, url: singleUrl, headers: v2 },
      'for comparison',
      () => true,
    );
    const pageUrl = `${api}/events?limit=100`;
    const sizes: Record<string, number> = {};
    for (const coding of ['identity', 'gzip', 'br']) {
      const res = await fetch(pageUrl, { headers: { ...v2, 'Accept-Encoding': coding } });
      // fetch decodes the body; the bytes on the wire are Content-Length.
      sizes[coding] = Number(res.headers.get('content-length'));
      await res.arrayBuffer();
    }
    say(
      `  100-record page on the wire: ${sizes.identity} bytes uncompressed, gzip ${sizes.gzip} (${(sizes.gzip! / sizes.identity!).toFixed(3)}), br ${sizes.br} (${(sizes.br! / sizes.identity!).toFixed(3)})`,
    );
    await compare(
      `100-record page, br vs uncompressed (bytes ratio ${(sizes.br! / sizes.identity!).toFixed(3)})`,
      { label: 'GET /api/v2/events?limit=100, Accept-Encoding: br', url: pageUrl, headers: { ...v2, 'Accept-Encoding': 'br' } },
      { label: 'GET /api/v2/events?limit=100, uncompressed', url: pageUrl, headers: { ...v2, 'Accept-Encoding': 'identity' } },
      'for comparison',
      () => true,
    );

    await measureCeiling();

    // Assets (issue 7): after the reads, before the writes. The writes add thousands of published events
    // and leave Strapi with work it starts after each commit, so everything that reads runs before them,
    // the asset pairs too (each request looks up its file and whether published content links it). The
    // transforms are CPU heavy, but sequential and finished before the next measurement's warm-up starts,
    // so they load no other row; placed after the read rows, those stay measured as in earlier runs.
    const assets = await benchAssets(server.url, credentials.apiKey, options, say);
    comparisons.push(...assets.comparisons);
    measurements.push(...assets.measurements);

    // Writes (issue 4): create and update one event per request, published on both sides, through the
    // domain rules on both sides (the document service).
    let serial = 0;
    const unique = () => `${process.pid}-${Date.now()}-${(serial += 1)}`;
    const full = { Authorization: `Bearer ${credentials.fullToken}`, 'Content-Type': 'application/json' };
    const v2Json = { ...v2, 'Content-Type': 'application/vnd.api+json' };
    // Titles whose slugs do not start with `bench-`: the depth rows read only the seeded benchmark events,
    // and bench.db keeps what earlier runs wrote.
    const event = (title: string) => ({ title, startsAt: '2027-03-01T19:00:00.000Z', category: 'talk' });
    await compare(
      'Create a record',
      {
        label: 'POST /api/v2/events',
        url: `${api}/events`,
        method: 'POST',
        headers: v2Json,
        body: () => JSON.stringify({ data: { type: 'events', attributes: event(`Written under load ${unique()}`) } }),
      },
      {
        label: 'POST /api/events?status=published',
        url: `${server.url}/api/events?status=published`,
        method: 'POST',
        headers: full,
        body: () => JSON.stringify({ data: event(`Written under load via REST ${unique()}`) }),
      },
      'within 1.2x (ratio >= 0.83)',
      (ratio) => ratio >= 1 / 1.2,
    );
    await compare(
      'Update a record',
      {
        label: `PATCH /api/v2/events/${middle.meta.slug}`,
        url: `${api}/events/${middle.meta.slug}`,
        method: 'PATCH',
        headers: v2Json,
        body: () => JSON.stringify({ data: { type: 'events', attributes: { capacity: serial++ % 1000 } } }),
      },
      {
        label: 'PUT /api/events/:documentId?status=published',
        url: `${server.url}/api/events/${middle.id}?status=published`,
        method: 'PUT',
        headers: full,
        body: () => JSON.stringify({ data: { capacity: serial++ % 1000 } }),
      },
      'within 1.2x (ratio >= 0.83)',
      (ratio) => ratio >= 1 / 1.2,
    );
    await measureAtomic();
    await measureComponents();
  } finally {
    await server?.stop();
    removeAssets(assetFiles, env.PUBLIC_API_ASSET_CACHE_DIR);
  }
  // The page and the single record on PostgreSQL and MariaDB, against Strapi's REST API on each (issue 35):
  // the rows above are SQLite's. After the SQLite server stopped: one server on the machine at a time.
  const others = await databaseRows(['PostgreSQL', 'MariaDB'], events, options, say);
  comparisons.push(...others.comparisons);
  measurements.push(...others.measurements);
  return report();

  function report(): number {
    const table = comparisonTable(comparisons);
    const rawTable = ceiling.length ? ceilingTable(ceiling) : '';
    const problems = failures(measurements);
    say('');
    if (comparisons.length) say(table);
    if (rawTable) say(`\n${rawTable}`);
    for (const problem of problems) say(`WARNING ${problem}`);
    const unequal = ceiling.some((row) => row.unequal);
    if (unequal) say('ERROR the raw server and /api/v2 answered differently; those rows were not measured.');
    if (!values['no-write'] && !ceilingOnly && !atomicOnly && !componentsOnly) write(table, rawTable, problems);
    return unequal ? 1 : 0;
  }

  function write(table: string, rawTable: string, problems: string[]): void {
    const doc = [
      '# Benchmarks',
      '',
      'Produced by `npm run bench` (bench/index.ts): the demo content plus benchmark events in a SQLite database of',
      'its own, the application started as a separate process, autocannon as the load generator, the Public Data API',
      "against Strapi's own REST API (with a Strapi API token) on the same data in the same run. A ratio above 1 means",
      '/api/v2 served more requests per second. Figures are only comparable within one run; the ratios are the result.',
      "The asset rows compare /api/v2's image variants with the same server's static files and with sharp in-process",
      '(bench/assets.ts: one at a time, the rate is 1 / the median time of sequential requests; under load, new variants',
      'per second against as many in-process workers as the server runs transforms at once, bench/transform-load.ts).',
      'Every row is on SQLite except those named PostgreSQL or MariaDB: the 100-record page and the single record on',
      "those databases (bench/databases.ts, a database `pda_bench` on each), against Strapi's REST API on the same one.",
      '',
      `Command: \`${command}\``,
      `Machine: ${machine()}`,
      `Date: ${new Date().toISOString()}`,
      '',
      table,
      '',
      'The raw ceiling (issue 16): the same reads from a hand-written node:http + better-sqlite3 server',
      "(bench/raw-server.ts), keeping records' JSON and the resource index's bytes by their inputs as /api/v2",
      "does (issue 37), its answers checked equal to /api/v2's in the run (the body byte for byte; ETag,",
      "Cache-Control, Vary, Cache-Tag, Surrogate-Key and the security fields), and the floor: each side's",
      "cheapest answer (a 401; Strapi's /_health). The last two columns are the CPU time each server spent per",
      'request (/proc) and the ratio it gives: the load generator shares the machine, and moves the rates more.',
      `The reads of /api/v2 and the raw server and both floors are measured in ${CEILING_ROUNDS} rounds, one after the other;`,
      "each row shows its median round (Strapi's rows are measured once). The demo events rows are /api/v2's",
      'pages either side of 256 KiB (issue 37: no cliff), the larger held to the bytes ratio.',
      '',
      rawTable,
      '',
      ...(problems.length ? ['Warnings:', ...problems.map((p) => `- ${p}`), ''] : []),
    ].join('\n');
    // Sections other measurements maintain (after the marker) are kept.
    const file = path.join(APP_ROOT, 'docs', 'benchmarks.md');
    const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const marker = previous.indexOf(KEPT_SECTIONS_MARKER);
    const kept = marker === -1 ? '' : `\n${previous.slice(marker)}`;
    fs.writeFileSync(file, `${doc}\n${kept}`);
    say('Written to docs/benchmarks.md.');
  }
};

/**
 * `node scripts/run.js bench-reference-lists`: what the references of a to-many list cost when the list
 * is long (contract section 13), the figures of docs/benchmarks.md's "Long reference lists".
 *
 *   node scripts/run.js bench-reference-lists [--events 20000] [--runs 30]
 *
 * Seeds the demo content and `--events` benchmark events into its own SQLite database
 * (bench/.data/reference-lists.db; a rerun adds only what is missing): the events are spread over the
 * demo's buildings, so each building's `events` holds thousands of references. Boots the application in
 * this process and loads the `events` references of (a) the building with the most events and (b) every
 * building at once (a page), `--runs` times each after a warm-up, the two ways alternated run by run:
 *
 * - before: the read before the cut moved into SQL (kept here as it was): every visible link of the
 *   owners in the relation's order, each document kept once and cut one past the cap in JavaScript;
 * - after: the records service (services/records.ts `relations`), the cut in SQL (read/first-links.ts).
 *
 * Prints the rows each query returned, the median and p95 milliseconds, and whether both give the same
 * references. Asserts nothing: the order and de-duplication are test/api/read-reference-lists.test.ts's.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { Core } from '@strapi/strapi';
import type { Knex } from 'knex';
import { seedBulkEvents, seedDemo } from '../src/seed';
import { REFERENCE_LIST_CAP } from '../src/plugins/public-api/server/src/fields/types/relation';
import type { ApiKey } from '../src/plugins/public-api/server/src/keys/types';
import type { Projection } from '../src/plugins/public-api/server/src/grants/projection';
import type { Related, TargetRef } from '../src/plugins/public-api/server/src/serialize/rows';
import { readModelOf } from '../src/plugins/public-api/server/src/read/model';
import { benchEnvironment, withStrapi } from './setup';
import { summary } from './openapi';

const say = (line = '') => process.stdout.write(`${line}\n`);

type Records = {
  relations: (projection: Projection, rowIds: number[], fields: string[], language: string | null) => Promise<Related<TargetRef>>;
};

/** The read before the cut moved into SQL, as services/records.ts had it (events: published, in `language`). */
const relationsBefore = async (strapi: Core.Strapi, owners: number[], language: string): Promise<Map<number, string[]>> => {
  const join = readModelOf(strapi, 'api::building.building').relations.events!;
  const knex = strapi.db.connection as unknown as Knex;
  const raws = (await knex(`${join.table} as j`)
    .join('events', 'events.id', `j.${join.targetColumn}`)
    .whereNotNull('events.published_at')
    .where('events.locale', language)
    .select({ owner: `j.${join.ownerColumn}`, rowId: 'events.id', documentId: 'events.document_id', slug: 'events.slug' })
    .whereIn(`j.${join.ownerColumn}`, owners)
    .orderBy(`j.${join.ownerColumn}`)
    .orderBy(`j.${join.orderColumn!}`)
    .orderBy('j.id')) as { owner: number; documentId: string }[];
  const byOwner = new Map<number, string[]>();
  const seen = new Set<string>();
  for (const raw of raws) {
    const pair = `${raw.owner}:${raw.documentId}`;
    if (seen.has(pair)) continue;
    seen.add(pair);
    const list = byOwner.get(Number(raw.owner)) ?? [];
    if (list.length > REFERENCE_LIST_CAP) continue;
    list.push(raw.documentId);
    byOwner.set(Number(raw.owner), list);
  }
  return byOwner;
};

const measure = async (strapi: Core.Strapi, runs: number) => {
  const knex = strapi.db.connection as unknown as Knex;
  const join = readModelOf(strapi, 'api::building.building').relations.events!;
  const counts = (await knex(`${join.table} as j`)
    .join('buildings as b', 'b.id', `j.${join.ownerColumn}`)
    .whereNotNull('b.published_at')
    .select({ owner: `j.${join.ownerColumn}` })
    .count({ links: '*' })
    .groupBy(`j.${join.ownerColumn}`)
    .orderBy('links', 'desc')) as { owner: number; links: number | string }[];
  const largest = counts[0]!;
  const grants = await (strapi.plugin('public-api').service('grants') as { all: () => Promise<ApiKey['grants']> }).all();
  const access = (
    strapi.plugin('public-api').service('access') as { native: (key: ApiKey, slug: string, action: string) => { projection: Projection } }
  ).native({ grants } as ApiKey, 'buildings', 'read');
  const records = strapi.plugin('public-api').service('records') as Records;

  // Rows each query sends back to the application.
  let returned = 0;
  knex.on('query-response', (response: unknown) => {
    if (Array.isArray(response)) returned += response.length;
  });

  const cases = [
    { label: `one building, ${largest.links} links`, owners: [Number(largest.owner)] },
    {
      label: `${counts.length} buildings, ${counts.reduce((sum, row) => sum + Number(row.links), 0)} links`,
      owners: counts.map((row) => Number(row.owner)),
    },
  ];
  const figures = [];
  for (const { label, owners } of cases) {
    const before = () => relationsBefore(strapi, owners, 'en');
    const after = async () => {
      const related = await records.relations(access.projection, owners, ['events'], 'en');
      return new Map(
        [...(related.get('events') ?? new Map<number, TargetRef[]>())].map(([owner, refs]) => [owner, refs.map((ref) => ref.documentId)]),
      );
    };
    const same = JSON.stringify([...(await before())].sort()) === JSON.stringify([...(await after())].sort());
    // Alternated run by run, so that the machine's load weighs on both ways alike.
    const ways = [
      { way: 'before (all links, cut in JavaScript)', load: before, samples: [] as number[], rows: 0 },
      { way: 'after (cut in SQL)', load: after, samples: [] as number[], rows: 0 },
    ];
    for (let run = 0; run < runs; run += 1) {
      for (const entry of ways) {
        returned = 0;
        const started = performance.now();
        await entry.load();
        entry.samples.push(performance.now() - started);
        entry.rows = returned;
      }
    }
    for (const { way, samples, rows } of ways)
      figures.push({ case: label, way, rowsReturned: rows, ...summary(samples), sameReferences: same });
  }
  return figures;
};

export const main = async (args: string[]): Promise<number> => {
  const { values } = parseArgs({
    args,
    options: { events: { type: 'string', default: '20000' }, runs: { type: 'string', default: '30' } },
  });
  const events = Number(values.events);
  const runs = Number(values.runs);
  if (!Number.isInteger(events) || events < 1 || !Number.isInteger(runs) || runs < 1) {
    process.stderr.write('usage: node scripts/run.js bench-reference-lists [--events N] [--runs N] (whole numbers from 1)\n');
    return 2;
  }
  benchEnvironment('reference-lists.db');
  const figures = await withStrapi(async (strapi) => {
    await seedDemo(strapi, { log: () => {} });
    await seedBulkEvents(strapi, events, { log: () => {} });
    return measure(strapi, runs);
  });
  say(`References of buildings' events lists (${events} benchmark events, ${runs} runs each, milliseconds):`);
  for (const row of figures) say(JSON.stringify(row));
  return 0;
};

/**
 * `npm run bench:json-chunks`: what writing a document in chunks (http/json-chunks.ts) costs against
 * `Buffer.from(JSON.stringify(document))`, on two real documents of the abuse soak's database
 * (bench/.data/abuse.db, prepared as bench:abuse prepares it): a 100-record page (`/events?limit=100`,
 * about 270 KB, the page issue 16 measures) and the heaviest include read bench:abuse (a) sends (about
 * 42 MB). The documents are fetched once from a server and parsed; then both ways are timed in turn,
 * `--rounds` times each, and their medians printed, with the longest stretch the chunked writer holds
 * the thread (what another request waits at most behind it).
 *
 *   npm run bench:json-chunks -- [--rounds 200] [--events 20000]
 */
import { parseArgs } from 'node:util';
import { serializeInChunks } from '../src/plugins/public-api/server/src/http/json-chunks';
import { startServer } from './server';
import { benchEnvironment, createApiKey, withStrapi } from './setup';
import { seedBulkEvents, seedDemo } from '../src/seed';

const say = (line = '') => process.stdout.write(`${line}\n`);

const DOCUMENTS = [
  { name: '100-record page', path: '/events?limit=100', share: 1 },
  { name: 'include flood read', path: '/buildings?limit=4&include=events.venue.events,events.festival.events', share: 40 },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/** Milliseconds of `work`, and the longest stretch between two turns of the event loop meanwhile. */
const timed = async (work: () => unknown): Promise<{ ms: number; longest: number }> => {
  let longest = 0;
  let last = performance.now();
  let turning = true;
  const turn = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (turning) setImmediate(turn);
  };
  setImmediate(turn);
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  turning = false;
  longest = Math.max(longest, performance.now() - last);
  return { ms, longest };
};

export const main = async (args: string[]): Promise<number> => {
  const { values } = parseArgs({
    args,
    options: { rounds: { type: 'string', default: '200' }, events: { type: 'string', default: '20000' } },
  });
  const rounds = Number(values.rounds);
  const env = benchEnvironment('abuse.db');
  const key = await withStrapi(async (strapi) => {
    await seedDemo(strapi, { log: () => {} });
    await seedBulkEvents(strapi, Number(values.events), { log: () => {} });
    return createApiKey(strapi, `json-chunks ${Date.now()}`, 'all');
  });
  const server = await startServer(env);
  const documents: { name: string; value: unknown; text: string; rounds: number }[] = [];
  try {
    for (const document of DOCUMENTS) {
      const res = await fetch(`${server.url}/api/v2${document.path}`, { headers: { Authorization: `Bearer ${key}` } });
      if (res.status !== 200) throw new Error(`${document.path}: ${res.status}`);
      const text = await res.text();
      documents.push({ name: document.name, value: JSON.parse(text), text, rounds: Math.max(3, Math.ceil(rounds / document.share)) });
    }
  } finally {
    await server.stop();
  }
  say(`bench:json-chunks, ${new Date().toISOString()}, medians of interleaved rounds`);
  say('| Document | Bytes | Buffer.from(JSON.stringify) | serializeInChunks | Ratio | Chunks | Longest stretch |');
  say('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const document of documents) {
    const chunked = Buffer.concat(await serializeInChunks(document.value)).toString('utf8');
    if (chunked !== JSON.stringify(document.value)) throw new Error(`${document.name}: the chunks are not JSON.stringify's text`);
    const native: number[] = [];
    const inChunks: number[] = [];
    const stretches: number[] = [];
    let chunks = 0;
    for (let round = 0; round < document.rounds; round += 1) {
      native.push((await timed(() => Buffer.from(JSON.stringify(document.value), 'utf8'))).ms);
      const run = await timed(async () => (chunks = (await serializeInChunks(document.value)).length));
      inChunks.push(run.ms);
      stretches.push(run.longest);
    }
    say(
      `| ${document.name} | ${Buffer.byteLength(document.text).toLocaleString('en')} | ${median(native).toFixed(2)} ms | ${median(inChunks).toFixed(2)} ms | ${(median(inChunks) / median(native)).toFixed(2)} | ${chunks} | ${median(stretches).toFixed(1)} ms |`,
    );
  }
  return 0;
};

/**
 * `.env.example` lists every environment variable the code reads, each under a comment saying what it does
 * (issue 33, item 10: it lacked the nine webhook settings and SERVE_ADMIN). The reads are found in the
 * sources (test/helpers/env-reads.ts), so a new `env('X')` or `process.env.X` fails here until it is listed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { environmentReads } from '../helpers/env-reads';

const EXAMPLE = fs.readFileSync(path.join(__dirname, '..', '..', '.env.example'), 'utf8');

/** Read by the code, but not settings of the application: not listed, for the reason given. */
const NOT_SETTINGS: Record<string, string> = {
  PATH: "the system's; scripts/supported-node.js puts the pinned node first on it",
  PUBLIC_API_TRANSFORM_THREADS:
    'set by the transform pool (assets/transform-pool.ts) for the processes it forks, from the CPUs and the transforms in flight',
  PDA_SKIP_COMPILE: 'set by the test suite for the scripts it runs (it compiled once already)',
  WEBHOOK_SECRET: "the local webhook receiver's input (scripts/webhook-receiver.js), given on its command line",
  TEST_CHANGED_SINCE: "the base `npm run test:changed` compares with (scripts/test-changed.js): a developer's choice for one run",
};

/** Listed, but read by Strapi itself rather than by this code. */
const READ_BY_STRAPI: Record<string, string> = {
  JWT_SECRET: 'the users-permissions secret Strapi reads if that plugin is added',
  NODE_ENV: "Strapi's runtime mode (scripts/lib/cluster.ts sets it for its instances)",
};

/** Every variable the file lists, set (`NAME=`) or shown commented out (`# NAME=`), with its line index. */
const listed = (): Map<string, number> => {
  const names = new Map<string, number>();
  EXAMPLE.split('\n').forEach((line, index) => {
    const match = /^(?:#\s*)?([A-Z][A-Z0-9_]*)=/.exec(line);
    if (match && !names.has(match[1]!)) names.set(match[1]!, index);
  });
  return names;
};

test('every variable the code reads is in .env.example', () => {
  const reads = environmentReads();
  // The scan finds what it should: the settings of config/, src/settings/, the plugin and the scripts.
  for (const known of ['PUBLIC_API_KEY_SECRET', 'DATABASE_URL', 'SERVE_ADMIN', 'PUBLIC_API_WEBHOOKS_RETRY_WINDOW_MS', 'CLUSTER_HOST']) {
    expect(reads.has(known)).toBe(true);
  }
  const names = listed();
  const missing = [...reads.entries()]
    .filter(([name]) => !names.has(name) && !(name in NOT_SETTINGS))
    .map(([name, files]) => `${name} (read in ${files.join(', ')})`);
  expect(missing).toEqual([]);
});

test('the nine webhook settings, SERVE_ADMIN and NODE_ENV are listed', () => {
  const names = listed();
  const webhooks = [...names.keys()].filter((name) => name.startsWith('PUBLIC_API_WEBHOOKS_'));
  expect(webhooks).toHaveLength(9);
  expect(names.has('SERVE_ADMIN')).toBe(true);
  expect(names.has('NODE_ENV')).toBe(true);
});

test('every variable listed is read, by the code or by Strapi', () => {
  const reads = environmentReads();
  const stale = [...listed().keys()].filter((name) => !reads.has(name) && !(name in READ_BY_STRAPI));
  expect(stale).toEqual([]);
});

test('every variable has a comment: each group of lines starts with one', () => {
  const lines = EXAMPLE.split('\n');
  const uncommented = [...listed().entries()]
    .filter(([, index]) => {
      for (let at = index - 1; at >= 0 && lines[at]!.trim() !== ''; at -= 1) {
        const line = lines[at]!;
        if (line.startsWith('#') && !/^#\s*[A-Z][A-Z0-9_]*=/.test(line)) return false;
      }
      return true;
    })
    .map(([name]) => name);
  expect(uncommented).toEqual([]);
});

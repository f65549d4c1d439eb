/**
 * Every API suite is placed on purpose: repeated on PostgreSQL, or not, with the reason written down
 * (test/postgres-suites.js). A new suite on neither list fails here until someone decides. The MariaDB
 * pass repeats the PostgreSQL one but for the suites that say why they cannot hold there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { notOnMariadb, notOnPostgres, onPostgres } from '../postgres-suites';

const API_DIR = path.resolve(__dirname, '..', 'api');
const suites = fs
  .readdirSync(API_DIR)
  .filter((name) => name.endsWith('.test.ts'))
  .sort();

test('every API suite is on exactly one of the lists', () => {
  const placed = suites.filter((suite) => suite in onPostgres !== suite in notOnPostgres);
  expect(placed).toEqual(suites);
});

test('the lists name only suites that exist', () => {
  const listed = [...Object.keys(onPostgres), ...Object.keys(notOnPostgres)].sort();
  expect(listed.filter((suite) => !suites.includes(suite))).toEqual([]);
});

test('every suite left off the PostgreSQL pass says why, and so does every suite on it', () => {
  for (const [suite, reason] of [...Object.entries(notOnPostgres), ...Object.entries(onPostgres)]) {
    expect({ suite, reason: reason.trim().length > 10 }).toEqual({ suite, reason: true });
  }
});

test('the PostgreSQL pass runs exactly the listed suites', () => {
  const config = require('../postgres.config.js') as { projects: { rootDir: string; testMatch: string[] }[] };
  expect(config.projects).toHaveLength(1);
  expect(config.projects[0]!.rootDir).toBe(path.resolve(__dirname, '..', '..'));
  expect(config.projects[0]!.testMatch.map((pattern) => path.basename(pattern)).sort()).toEqual(Object.keys(onPostgres).sort());
});

test('the MariaDB pass runs suites of the PostgreSQL list only, never one said not to, which says why', () => {
  for (const [suite, reason] of Object.entries(notOnMariadb)) {
    expect({ suite, listed: suite in onPostgres, reason: reason.trim().length > 10 }).toEqual({ suite, listed: true, reason: true });
  }
  const config = require('../mariadb.config.js') as { onMariadb: string[]; projects: { rootDir: string; testMatch: string[] }[] };
  expect(config.onMariadb.filter((suite) => !(suite in onPostgres) || suite in notOnMariadb)).toEqual([]);
  expect(config.projects).toHaveLength(1);
  expect(config.projects[0]!.testMatch.map((pattern) => path.basename(pattern)).sort()).toEqual([...config.onMariadb].sort());
});

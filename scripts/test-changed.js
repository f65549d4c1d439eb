'use strict';

/**
 * `npm run test:changed`: the suites a change touches, not the whole `npm test`.
 *
 * The change is what differs from the branch's base (the merge base with TEST_CHANGED_SINCE, else
 * origin/main, else main), committed or not, plus untracked files. The suites are:
 * - those that import a changed file, directly or through other modules (jest's --findRelatedTests over
 *   its dependency graph; a changed suite is related to itself);
 * - for a changed file of the plugin's server (src/plugins/public-api/server/src/<area>/), the API suites
 *   named after its area (assets/ -> asset-*.test.ts and assets*.test.ts, webhooks/ -> webhooks-*.test.ts,
 *   read/ -> read-*.test.ts): the application loads the server from its build at run time, so no import
 *   leads from an API suite to most of it.
 * A change that reaches no suite this way (a content type's schema, config/, the lock file) runs none and
 * says so: `npm test` stays the check before a merge. Arguments after `--` go to jest.
 */
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
const lines = (text) => text.split('\n').filter(Boolean);

const baseRef = () => {
  const candidates = [process.env.TEST_CHANGED_SINCE, 'origin/main', 'main'].filter(Boolean);
  for (const ref of candidates) {
    try {
      return { ref, base: git('merge-base', 'HEAD', ref) };
    } catch {
      // Not a ref of this clone: the next one.
    }
  }
  throw new Error(`None of ${candidates.join(', ')} is a git ref here: set TEST_CHANGED_SINCE to the branch to compare with.`);
};

const SERVER = 'src/plugins/public-api/server/src/';
const API_DIR = path.join(root, 'test', 'api');

/** The API suites named after the server area a file belongs to (its first folder, singular or plural). */
const areaSuites = (file) => {
  if (!file.startsWith(SERVER)) return [];
  const [area, rest] = file.slice(SERVER.length).split('/', 2);
  if (!rest) return [];
  const stem = area.replace(/s$/, '');
  return fs
    .readdirSync(API_DIR)
    .filter(
      (name) => name.endsWith('.test.ts') && (name.startsWith(`${stem}-`) || name.startsWith(`${stem}s`) || name === `${stem}.test.ts`),
    )
    .map((name) => path.join('test', 'api', name));
};

const main = () => {
  const { ref, base } = baseRef();
  const changed = [
    ...new Set([...lines(git('diff', '--name-only', base)), ...lines(git('ls-files', '--others', '--exclude-standard'))]),
  ].filter((file) => fs.existsSync(path.join(root, file)));
  const extra = [...new Set(changed.flatMap(areaSuites))].filter((suite) => !changed.includes(suite));
  process.stderr.write(
    `test:changed: ${changed.length} file(s) changed since ${ref} (${base.slice(0, 10)})` +
      (extra.length ? `; with the API suites of their server areas: ${extra.join(', ')}` : '') +
      '\n',
  );
  if (changed.length === 0) {
    process.stderr.write('test:changed: nothing changed, nothing to run\n');
    return 0;
  }
  const passThrough = process.argv.slice(2);
  const jest = require.resolve('jest/bin/jest');
  const result = spawnSync(process.execPath, [jest, '--passWithNoTests', ...passThrough, '--findRelatedTests', ...changed, ...extra], {
    cwd: root,
    stdio: 'inherit',
  });
  return result.status ?? 1;
};

process.exitCode = main();

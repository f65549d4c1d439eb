#!/usr/bin/env node
/**
 * Fails when `npm install` changed what the committed lock file installs.
 *
 * `npm ci` cannot be the check: whether npm records other platforms' optional builds (e.g.
 * `@rollup/rollup-android-*`) depends on what the registry this machine reaches serves that day, so the lock
 * may gain or lose such entries without anything this machine installs changing. This compares the
 * committed lock (`git show HEAD:package-lock.json`) with the working one, ignoring optional entries that
 * are limited to a platform (`os`, `cpu` or `libc`); any other difference (a version, an integrity, a
 * package added or removed) fails with the list of paths.
 */
const { execFileSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const committed = JSON.parse(execFileSync('git', ['show', 'HEAD:package-lock.json'], { cwd: root, maxBuffer: 1 << 28 }).toString());
const working = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));

const platformOnly = (entry) => entry.optional === true && Boolean(entry.os || entry.cpu || entry.libc);
const comparable = (lock) =>
  new Map(
    Object.entries(lock.packages ?? {})
      .filter(([, entry]) => !platformOnly(entry))
      .map(([key, entry]) => [key, JSON.stringify(entry)]),
  );

const before = comparable(committed);
const after = comparable(working);
const changed = [...new Set([...before.keys(), ...after.keys()])].filter((key) => before.get(key) !== after.get(key));

if (changed.length > 0) {
  console.error(`package-lock.json changed on install (${changed.length} entries):`);
  for (const key of changed.slice(0, 40))
    console.error(`  ${key || '(root)'}: ${before.has(key) ? (after.has(key) ? 'changed' : 'removed') : 'added'}`);
  process.exit(1);
}
console.log('package-lock.json: what it installs is unchanged');

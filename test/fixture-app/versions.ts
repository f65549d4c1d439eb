/**
 * Which Strapi the fixture application runs on: the version this repository locks, or the lowest the
 * plugin supports (FIXTURE_STRAPI=5.45.0), installed once into .cache/fixture-<version>.
 */
import fs from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const FIXTURE_SOURCE = path.join(REPO_ROOT, 'test', 'fixtures', 'blog-app');

/** The lowest Strapi release the plugin's peer range admits; CI runs the fixture on it and on the locked one. */
export const LOWEST_STRAPI = '5.45.0';

export const lockedStrapi = (): string =>
  (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules', '@strapi', 'strapi', 'package.json'), 'utf8')) as { version: string })
    .version;

/** FIXTURE_STRAPI, an exact version (or `locked`); unset: the locked version. */
export const wantedStrapi = (): string => {
  const asked = (process.env.FIXTURE_STRAPI ?? '').trim();
  if (!asked || asked === 'locked') return lockedStrapi();
  if (!/^5\.\d+\.\d+$/.test(asked)) throw new Error(`FIXTURE_STRAPI must be an exact 5.x version (e.g. ${LOWEST_STRAPI}), not '${asked}'.`);
  return asked;
};

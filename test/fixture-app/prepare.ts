/**
 * Makes the fixture application ready to run, the way a Strapi user would: the plugin packed into a
 * tarball (`npm run plugin:pack`), a fresh copy of test/fixtures/blog-app, the tarball installed into it,
 * and `strapi build`. Strapi itself is not downloaded again for the locked version: the copy lives under
 * the repository's .tmp/, so Node resolves @strapi/* (and React, TypeScript) from the root node_modules.
 * For another version the copy lives in .cache/fixture-<version>, whose node_modules holds that version,
 * installed once.
 *
 * The tarball goes where npm would put it, node_modules/<its name>, with its own dependencies installed
 * into its own folder (so the plugin gets what its package.json declares, not what the repository happens
 * to have), its peers (Strapi, React) left to the application, and its bin linked into node_modules/.bin.
 * npm is not asked to install the tarball into the application directly because it would then install the
 * application's own dependencies too, that is, Strapi a second time.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import TEST_SECRETS from '../helpers/test-secrets.json';
import { FIXTURE_SOURCE, REPO_ROOT, lockedStrapi } from './versions';

export type PreparedFixture = {
  version: string;
  /** The application's folder: run `strapi`, `npx public-api` there. */
  appDir: string;
  strapiBin: string;
  tarball: string;
  /** The hash of the tarball and the fixture's sources this copy was built from. */
  inputs: string;
  /** Seconds each step took, for the report (docs/testing.md). */
  timings: Record<string, number>;
};

/**
 * The environment every run of the fixture gets: the test-only secrets of the main application, and
 * NODE_PATH at the application's node_modules. Strapi finds an installed plugin with a plain
 * `require('<package>/package.json')` from its own files (@strapi/core), which in a normal installation sit
 * in the application's node_modules; here they sit in the shared one, from which Node never looks down into
 * the application's folder. NODE_PATH is where Node looks last, so it changes nothing else.
 */
export const fixtureEnv = (appDir: string): Record<string, string> => ({
  ...TEST_SECRETS,
  NODE_ENV: 'production',
  STRAPI_TELEMETRY_DISABLED: 'true',
  NODE_PATH: path.join(appDir, 'node_modules'),
});

export const stateFile = (version: string) => path.join(REPO_ROOT, '.tmp', 'fixture-app', `state-${version}.json`);

const run = (command: string, args: string[], cwd: string, env: Record<string, string> = {}): string => {
  try {
    return execFileSync(command, args, {
      cwd,
      env: { ...process.env, ...env },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const failed = error as { status?: number; stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(' ')} (in ${cwd}) exited with ${failed.status}:\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`,
      { cause: error },
    );
  }
};

const timed = <T>(timings: Record<string, number>, step: string, work: () => T): T => {
  const started = process.hrtime.bigint();
  try {
    return work();
  } finally {
    timings[step] = Number((process.hrtime.bigint() - started) / 1_000_000n) / 1000;
  }
};

/** The tarball: FIXTURE_TARBALL when given (CI packs once for both versions), else `npm run plugin:pack`. */
export const packPlugin = (): string => {
  const given = process.env.FIXTURE_TARBALL;
  if (given) {
    if (!fs.existsSync(given)) throw new Error(`FIXTURE_TARBALL names ${given}, which does not exist.`);
    return path.resolve(given);
  }
  const output = run('npm', ['run', '--silent', 'plugin:pack'], REPO_ROOT).trim().split('\n');
  const tarball = path.resolve(REPO_ROOT, output[output.length - 1]!.trim());
  if (!tarball.endsWith('.tgz') || !fs.existsSync(tarball)) {
    throw new Error(`npm run plugin:pack did not print a tarball's path on its last line:\n${output.join('\n')}`);
  }
  return tarball;
};

type Manifest = {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  bin?: string | Record<string, string>;
};

const readManifest = (file: string): Manifest => JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;

/** The fixture's own package.json, which names the plugin with a placeholder the harness replaces. */
const fixtureManifest = () => readManifest(path.join(FIXTURE_SOURCE, 'package.json'));

/**
 * .cache/fixture-<version>: the fixture's dependencies with @strapi/strapi at `version`, installed once
 * (again only when that list changes). Every @strapi/* package Strapi depends on must then be at that very
 * version, or the run would not be testing it.
 */
const installStrapi = (version: string, timings: Record<string, number>): string => {
  const dir = path.join(REPO_ROOT, '.cache', `fixture-${version}`);
  const manifest = fixtureManifest();
  const dependencies = Object.fromEntries(
    Object.entries(manifest.dependencies ?? {})
      .filter(([name]) => !name.startsWith('strapi-plugin-'))
      .map(([name, range]) => [name, name === '@strapi/strapi' ? version : range]),
  );
  const wanted = `${JSON.stringify(
    {
      name: `fixture-strapi-${version}`,
      private: true,
      description: `Strapi ${version} for the fixture application (test/fixture-app); written by the harness`,
      dependencies,
      devDependencies: manifest.devDependencies,
    },
    null,
    2,
  )}\n`;
  const marker = path.join(dir, '.installed');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === wanted) return dir;
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), wanted);
  timed(timings, `npm install (Strapi ${version})`, () => run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock'], dir));
  const strapi = readManifest(path.join(dir, 'node_modules', '@strapi', 'strapi', 'package.json'));
  const wrong = Object.keys(strapi.dependencies ?? {})
    .filter((name) => name.startsWith('@strapi/'))
    .concat('@strapi/strapi')
    .map((name) => [name, readManifest(path.join(dir, 'node_modules', ...name.split('/'), 'package.json')).version])
    .filter(([, installed]) => installed !== version);
  if (wrong.length)
    throw new Error(`Strapi ${version} came with other versions of its packages: ${wrong.map((w) => w.join('@')).join(', ')}`);
  fs.writeFileSync(marker, wanted);
  return dir;
};

const copyFixture = (appDir: string) => {
  fs.rmSync(appDir, { recursive: true, force: true });
  const skipped = new Set(['node_modules', 'dist', '.tmp', '.strapi', 'build', '.cache']);
  fs.cpSync(FIXTURE_SOURCE, appDir, { recursive: true, filter: (source) => !skipped.has(path.basename(source)) });
};

/** The tarball into node_modules/<name>, its dependencies into its own folder, its bins linked. */
const installPlugin = (appDir: string, tarball: string, timings: Record<string, number>) => {
  const staging = path.join(appDir, 'node_modules', '.plugin-staging');
  fs.mkdirSync(staging, { recursive: true });
  run('tar', ['-xzf', tarball, '-C', staging, '--strip-components=1'], appDir);
  const plugin = readManifest(path.join(staging, 'package.json'));
  if (!plugin.name) throw new Error(`${tarball} has no package name.`);
  const pluginDir = path.join(appDir, 'node_modules', ...plugin.name.split('/'));
  fs.mkdirSync(path.dirname(pluginDir), { recursive: true });
  fs.renameSync(staging, pluginDir);
  if (Object.keys(plugin.dependencies ?? {}).length) {
    // Prefer npm's cache: the root install fetched the same packages already.
    timed(timings, 'plugin dependencies', () =>
      run(
        'npm',
        [
          'install',
          '--omit=dev',
          '--omit=peer',
          '--legacy-peer-deps',
          '--ignore-scripts',
          '--no-package-lock',
          '--no-audit',
          '--no-fund',
          '--prefer-offline',
        ],
        pluginDir,
      ),
    );
  }
  const bins = typeof plugin.bin === 'string' ? { [plugin.name.split('/').pop()!]: plugin.bin } : (plugin.bin ?? {});
  const binDir = path.join(appDir, 'node_modules', '.bin');
  fs.mkdirSync(binDir, { recursive: true });
  for (const [name, target] of Object.entries(bins)) {
    const file = path.join(pluginDir, target);
    fs.chmodSync(file, 0o755);
    fs.symlinkSync(path.relative(binDir, file), path.join(binDir, name));
  }
  // The application's package.json names the tarball it was given, as `npm install <tarball>` would write it.
  const manifestFile = path.join(appDir, 'package.json');
  const manifest = readManifest(manifestFile);
  const dependencies = Object.fromEntries(
    Object.entries(manifest.dependencies ?? {}).filter(([name]) => !name.startsWith('strapi-plugin-')),
  );
  dependencies[plugin.name] = `file:${tarball}`;
  fs.writeFileSync(manifestFile, `${JSON.stringify({ ...manifest, dependencies }, null, 2)}\n`);
};

/** What a build is made of: the tarball's bytes and the fixture's sources (paths and contents). */
const inputsHash = (tarball: string, version: string): string => {
  const hash = createHash('sha256').update(version).update('\0').update(fs.readFileSync(tarball));
  const files = fs
    .readdirSync(FIXTURE_SOURCE, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) hash.update(path.relative(FIXTURE_SOURCE, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  return hash.digest('hex');
};

/**
 * Everything before the suites run; the result is also written to stateFile(version) for them. A copy
 * built from the same tarball and fixture sources is used again (the build is most of the time).
 */
export const prepareFixture = (version: string): PreparedFixture => {
  const timings: Record<string, number> = {};
  const tarball = timed(timings, 'pack', packPlugin);
  const modulesRoot = version === lockedStrapi() ? REPO_ROOT : installStrapi(version, timings);
  const appDir = path.join(modulesRoot, '.tmp', 'fixture-app', version, 'blog-app');
  const inputs = inputsHash(tarball, version);
  const previous = fs.existsSync(stateFile(version)) ? (JSON.parse(fs.readFileSync(stateFile(version), 'utf8')) as PreparedFixture) : null;
  if (previous?.inputs === inputs && previous.appDir === appDir && fs.existsSync(path.join(appDir, 'dist', 'build', 'index.html'))) {
    return { ...previous, timings };
  }
  timed(timings, 'copy', () => copyFixture(appDir));
  timed(timings, 'install plugin', () => installPlugin(appDir, tarball, timings));
  const strapiBin = path.join(path.dirname(require.resolve('@strapi/strapi/package.json', { paths: [appDir] })), 'bin', 'strapi.js');
  const installed = readManifest(path.join(path.dirname(strapiBin), '..', 'package.json')).version;
  if (installed !== version) throw new Error(`The fixture resolved Strapi ${installed}, not ${version} (${strapiBin}).`);
  timed(timings, 'strapi build', () => run(process.execPath, [strapiBin, 'build'], appDir, fixtureEnv(appDir)));
  const prepared = { version, appDir, strapiBin, tarball, inputs, timings };
  fs.mkdirSync(path.dirname(stateFile(version)), { recursive: true });
  fs.writeFileSync(stateFile(version), `${JSON.stringify(prepared, null, 2)}\n`);
  return prepared;
};

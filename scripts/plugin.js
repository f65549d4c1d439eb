#!/usr/bin/env node
'use strict';

/**
 * The public-api plugin as a package of its own (src/plugins/public-api, built by Strapi's plugin SDK into
 * its own dist/), for this application:
 *
 *   node scripts/plugin.js build     builds the plugin when its sources changed since its last build
 *   node scripts/plugin.js pack      builds it, runs `strapi-plugin verify`, packs it into .tmp/plugin/ and
 *                                    prints the tarball's path alone on the last line (`npm run plugin:pack`)
 *   node scripts/plugin.js develop   `strapi develop`, with the plugin rebuilt (and Strapi restarted) on a change
 *
 * The application loads the plugin only from that build (config/plugins.ts resolves the package, whose
 * `exports` name dist/), so every command that boots it builds the plugin first: `npm run build`, `npm run
 * develop`, scripts/run.js, the test suite's global setup (through `ensurePluginBuilt`).
 *
 * Plain CommonJS: it runs before anything is compiled.
 */
const { execFileSync, spawn } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const PLUGIN_DIR = path.join(ROOT, 'src', 'plugins', 'public-api');
const DIST = path.join(PLUGIN_DIR, 'dist');
const PACK_DIR = path.join(ROOT, '.tmp', 'plugin');
/** The hash of the sources dist/ was built from; not packed (package.json `files`). */
const STAMP = path.join(DIST, '.source-hash');

/** What a build reads: everything in the plugin's folder but its output, and the locked tool versions. */
const isSource = (relative) => !/^(dist|node_modules)(\/|$)/.test(relative) && !relative.endsWith('.tsbuildinfo');

const sourceFiles = () =>
  fs
    .readdirSync(PLUGIN_DIR, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(PLUGIN_DIR, path.join(entry.parentPath ?? entry.path, entry.name)))
    .filter(isSource)
    .sort();

/** 64 hex digits that change whenever a file the build reads changes. */
const sourceHash = () => {
  const hash = createHash('sha256');
  for (const file of sourceFiles())
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(PLUGIN_DIR, file)))
      .update('\0');
  hash.update(fs.readFileSync(path.join(ROOT, 'package-lock.json')));
  return hash.digest('hex');
};

/** Runs the SDK's command line in the plugin's folder (on this node: callers run on a supported one). */
const sdk = (args, { quiet = false } = {}) =>
  execFileSync(
    process.execPath,
    [path.join(path.dirname(require.resolve('@strapi/sdk-plugin/package.json')), 'bin', 'strapi-plugin.js'), ...args],
    {
      cwd: PLUGIN_DIR,
      // The SDK logs to standard output; a caller that prints a result of its own (pack) keeps it on standard error.
      stdio: ['ignore', quiet ? 'ignore' : process.stderr, 'inherit'],
      env: { ...process.env, NODE_ENV: 'production' },
    },
  );

/** Builds the plugin (server, transform worker, command line, admin) into its dist/, and stamps it. */
const build = ({ quiet = false } = {}) => {
  const hash = sourceHash();
  sdk(['build', ...(quiet ? ['--silent'] : [])], { quiet });
  fs.writeFileSync(STAMP, hash);
};

/** Builds the plugin unless dist/ was built from the sources as they are; true when it built. */
const ensurePluginBuilt = ({ quiet = false } = {}) => {
  if (fs.existsSync(STAMP) && fs.readFileSync(STAMP, 'utf8') === sourceHash()) return false;
  build({ quiet });
  return true;
};

/** What a tarball may hold: the package's manifest and documents, its command and its build (no maps). */
const PACKABLE =
  /^(package\.json|README\.md|LICENSE|bin\/[^/]+\.js|dist\/(server|cli|transform-worker)\/index\.js|dist\/admin\/[^/]+\.m?js)$/;

/** The paths of a tarball's content list that are not the package's build, manifest or documents. */
const unpackable = (paths) => paths.filter((file) => !PACKABLE.test(file));

/** Builds, verifies and packs the plugin; resolves to the tarball's path. */
const pack = () => {
  build();
  sdk(['verify']);
  fs.mkdirSync(PACK_DIR, { recursive: true });
  const output = execFileSync('npm', ['pack', '--json', '--pack-destination', PACK_DIR], {
    cwd: PLUGIN_DIR,
    stdio: ['ignore', 'pipe', 'inherit'],
  }).toString();
  const [packed] = JSON.parse(output);
  const tarball = path.join(PACK_DIR, packed.filename);
  const unexpected = unpackable(packed.files.map((file) => file.path));
  if (unexpected.length > 0) {
    fs.rmSync(tarball, { force: true });
    throw new Error(`The tarball would hold files that are not the package's build:\n  ${unexpected.join('\n  ')}`);
  }
  for (const entry of ['package.json', 'bin/public-api.js', 'dist/server/index.js', 'dist/admin/index.mjs', 'dist/cli/index.js']) {
    if (!packed.files.some((file) => file.path === entry)) throw new Error(`The tarball lacks ${entry}.`);
  }
  process.stderr.write(`${packed.name}@${packed.version}: ${packed.files.length} files, ${packed.size} bytes packed\n`);
  return tarball;
};

/**
 * `strapi develop` with the plugin rebuilt when its sources change. Strapi's own watcher ignores the
 * plugin's folder (config/admin.ts `watchIgnoreFiles`): a restart before the rebuild ends would load the
 * old build, or none while dist/ is rewritten. Once a rebuild has ended, config/plugins.ts (which declares
 * the plugin) is touched, and Strapi restarts on the new build; the admin's dev server reloads dist/admin.
 */
const develop = () => {
  const strapi = spawn(process.execPath, [path.join(ROOT, 'scripts', 'supported-node.js'), 'strapi', 'develop', ...process.argv.slice(3)], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  let timer = null;
  let building = false;
  let again = false;
  const rebuild = () => {
    if (building) {
      again = true;
      return;
    }
    building = true;
    try {
      if (ensurePluginBuilt({ quiet: true })) {
        const declaration = path.join(ROOT, 'config', 'plugins.ts');
        const now = new Date();
        fs.utimesSync(declaration, now, now);
        process.stderr.write('[public-api] plugin rebuilt; Strapi restarts on it\n');
      }
    } catch (error) {
      process.stderr.write(`[public-api] the plugin does not build: ${error.message}\n`);
    } finally {
      building = false;
    }
    if (again) {
      again = false;
      rebuild();
    }
  };
  const watcher = fs.watch(PLUGIN_DIR, { recursive: true }, (_event, file) => {
    if (!file || !isSource(String(file))) return;
    clearTimeout(timer);
    timer = setTimeout(rebuild, 300);
  });
  const stop = (signal) => strapi.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stop(signal));
  strapi.on('exit', (code) => {
    watcher.close();
    clearTimeout(timer);
    process.exit(code ?? 1);
  });
};

module.exports = { ensurePluginBuilt, sourceHash, unpackable, PLUGIN_DIR };

if (require.main === module) {
  const supportedNode = require('./supported-node');
  // The SDK and Strapi run on a supported Node.js line (scripts/supported-node.js).
  if (!supportedNode.onWantedNode()) supportedNode.runOnSupportedNode(process.execPath, process.argv.slice(1));
  else {
    const [command] = process.argv.slice(2);
    try {
      if (command === 'build') {
        if (!ensurePluginBuilt()) process.stderr.write('The public-api plugin is built already (dist/ matches its sources).\n');
      } else if (command === 'pack') process.stdout.write(`${pack()}\n`);
      else if (command === 'develop') develop();
      else {
        process.stderr.write('usage: node scripts/plugin.js build|pack|develop\n');
        process.exit(2);
      }
    } catch (error) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
  }
}

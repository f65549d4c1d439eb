'use strict';

// Before the browser tests: Chromium installed (by the project's own script when missing), and the
// plugin built and the application compiled (once per run) with its admin panel built (only when the admin's sources changed since the last
// build, the same check `npm run demo` uses).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

module.exports = async () => {
  const root = path.resolve(__dirname, '..', '..');
  const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!fs.existsSync(chromium)) {
    execFileSync('sh', [path.join(root, 'scripts', 'install-browser.sh')], { cwd: root, stdio: 'inherit' });
  }
  // The api project's setup built the plugin and compiled the application already when it is part of this run.
  if (!process.env.PDA_TEST_COMPILED) require(path.join(root, 'scripts', 'plugin.js')).ensurePluginBuilt({ quiet: true });
  if (!process.env.PDA_TEST_COMPILED)
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
  const { adminBuildIsCurrent, markAdminBuild } = require(path.join(root, 'dist', 'scripts', 'lib', 'admin-build.js'));
  if (adminBuildIsCurrent(root)) return;
  // The build loads the application's configuration, which needs its secrets: on a fresh clone there is
  // no .env, so the build gets the tests' own (a .env or the environment, when present, wins).
  const secrets = require(path.join(root, 'test', 'helpers', 'test-secrets.json'));
  execFileSync(process.execPath, [path.join(root, 'node_modules', '@strapi', 'strapi', 'bin', 'strapi.js'), 'build'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...secrets, ...process.env },
  });
  markAdminBuild(root);
};

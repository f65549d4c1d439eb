'use strict';

/**
 * Before the API suites: the public-api plugin built (its package's dist/, which the application loads;
 * only when its sources changed since the last build: scripts/plugin.js) and the application compiled
 * (once per run: tsc is incremental, and the browser project's setup reuses this compilation when the api
 * project runs too), then the template databases (templates.js) the suites copy: the schema always, the
 * demo content when a suite of this run uses it.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..', '..');
const API_DIR = path.join(root, 'test', 'api');

/** The API suites that start from the demo template (they say so to bootApp). */
const demoSuites = () =>
  fs
    .readdirSync(API_DIR)
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => path.join(API_DIR, name))
    .filter((file) => /template:\s*'demo'/.test(fs.readFileSync(file, 'utf8')));

/** Whether this run selects a suite (all of them when no path pattern was given) that uses the demo template. */
const runUsesDemo = (globalConfig) => {
  const patterns = globalConfig.testPathPatterns;
  if (!patterns || !patterns.isSet()) return demoSuites().length > 0;
  const selected = patterns.toExecutor({ rootDir: globalConfig.rootDir });
  return demoSuites().some((file) => selected.isMatch(file));
};

const compile = () =>
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });

module.exports = async (globalConfig) => {
  require('../../scripts/plugin').ensurePluginBuilt({ quiet: true });
  compile();
  // Read by the browser project's setup: this run's application is compiled already.
  process.env.PDA_TEST_COMPILED = '1';
  const { ensureTemplate, pruneTemplates } = require('./templates');
  await pruneTemplates();
  await ensureTemplate('schema');
  if (runUsesDemo(globalConfig)) await ensureTemplate('demo');
};

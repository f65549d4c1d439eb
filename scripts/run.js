#!/usr/bin/env node
'use strict';

/**
 * Runs one of the application's TypeScript scripts (scripts/<name>.ts): builds the public-api plugin when
 * its sources changed and compiles the application incrementally (each a no-op when nothing changed), then calls the script's exported `main(args)`,
 * whose resolved number is the exit status.
 */
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const supportedNode = require('./supported-node');

// On a machine whose node is not of a supported line, the script runs again on one (scripts/supported-node.js).
if (!supportedNode.onWantedNode()) supportedNode.runOnSupportedNode(process.execPath, process.argv.slice(1));
else main();

function main() {
  const root = path.resolve(__dirname, '..');
  const [name, ...args] = process.argv.slice(2);

  if (!name || !/^[a-z][a-z0-9-]*$/.test(name)) {
    process.stderr.write('usage: node scripts/run.js <script> [args...]\n');
    process.exit(2);
  }

  // The test suite builds and compiles once in its global setup and sets PDA_SKIP_COMPILE for the processes it runs.
  try {
    // The application loads the plugin from its package's build (scripts/plugin.js): built when its sources changed.
    if (!process.env.PDA_SKIP_COMPILE) require('./plugin').ensurePluginBuilt({ quiet: true });
  } catch (error) {
    process.stderr.write(`The public-api plugin does not build: ${error.message}\n`);
    process.exit(1);
  }
  try {
    if (!process.env.PDA_SKIP_COMPILE)
      execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], {
        cwd: root,
        stdio: ['ignore', 'inherit', 'inherit'],
      });
  } catch {
    process.stderr.write('The application does not compile; see the errors above.\n');
    process.exit(1);
  }

  const script = require(path.join(root, 'dist', 'scripts', `${name}.js`));
  Promise.resolve()
    .then(() => script.main(args))
    .then(
      (code) => process.exit(typeof code === 'number' ? code : 0),
      (error) => {
        process.stderr.write(`${error && error.message ? error.message : String(error)}\n`);
        process.exit(1);
      },
    );
}

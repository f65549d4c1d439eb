#!/usr/bin/env node
'use strict';

/**
 * `public-api key <command>`: the plugin's command line, run in the Strapi application's folder
 * (`npx public-api key create --name shop --all`). The command is built into dist/cli (cli/src/index.ts).
 */
const { main } = require('../dist/cli/index.js');

main(process.argv.slice(2)).then(
  // Strapi's database pool and timers may outlive the command: the status is final, so the process ends.
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${error && error.message ? error.message : String(error)}\n`);
    process.exit(1);
  },
);

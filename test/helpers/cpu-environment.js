'use strict';

/**
 * jest's node environment, which also measures the CPU seconds (user and system) the jest worker spends on
 * one suite file: from before the file's modules load to after its last afterAll, boots and teardown
 * included; child processes it starts are not counted (their own CPU is theirs). A worker runs one file at
 * a time, so the process's CPU over that span is the suite's. The figure goes to a file that
 * suite-report-reporter.js reads for that suite (PDA_SUITE_CPU_DIR, set by the reporter), so the report
 * gives CPU seconds beside the wall seconds, which on a shared machine are mostly the neighbours' load.
 */
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { TestEnvironment } = require('jest-environment-node');

/** The file a suite's CPU figure is written to and read from. */
const cpuFile = (dir, testPath) => path.join(dir, `${createHash('sha1').update(testPath).digest('hex')}.json`);

class CpuEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    this.cpuAtStart = process.cpuUsage();
  }

  async teardown() {
    await super.teardown();
    const dir = process.env.PDA_SUITE_CPU_DIR;
    if (!dir) return;
    const { user, system } = process.cpuUsage(this.cpuAtStart);
    try {
      fs.writeFileSync(cpuFile(dir, this.testPath), JSON.stringify({ user: user / 1e6, system: system / 1e6 }));
    } catch {
      // The report is a measurement: a folder removed under a run loses one figure, never the suite.
    }
  }
}

module.exports = CpuEnvironment;
module.exports.cpuFile = cpuFile;

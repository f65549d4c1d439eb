/**
 * A jest reporter that counts the assertions that ran and times each suite.
 *
 * At the end of a run it prints one line: suites, tests, passing assertions (expect calls that held,
 * as jest-circus counts them per test) and the CPU seconds the jest workers spent in the suites. With
 * SUITE_REPORT=<file> it also writes every suite's path, duration (wall seconds), CPU seconds (user+sys
 * of its jest worker, measured by cpu-environment.js; child processes not included), tests and
 * assertions as JSON, so that two runs (before and after a change to the suite's structure) can be
 * compared: the count must not fall, and the CPU seconds show where the time goes on a shared machine.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { cpuFile } = require('./cpu-environment');

/** The CPU seconds cpu-environment.js recorded for a suite, or null (a suite that did not load). */
const readCpu = (dir, testPath) => {
  try {
    const { user, system } = JSON.parse(fs.readFileSync(cpuFile(dir, testPath), 'utf8'));
    return Math.round((user + system) * 10) / 10;
  } catch {
    return null;
  }
};

class SuiteReportReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.suites = [];
    // The workers are started after the reporters and inherit this; a run inside a run keeps the outer one.
    if (!process.env.PDA_SUITE_CPU_DIR) {
      this.ownCpuDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pda-suite-cpu-'));
      process.env.PDA_SUITE_CPU_DIR = this.ownCpuDir;
    }
    this.cpuDir = process.env.PDA_SUITE_CPU_DIR;
  }

  onTestResult(_test, result) {
    const assertions = result.testResults.reduce((sum, test) => sum + (test.numPassingAsserts ?? 0), 0);
    this.suites.push({
      suite: path.relative(this.rootDir, result.testFilePath),
      seconds: Math.round((result.perfStats.end - result.perfStats.start) / 100) / 10,
      cpuSeconds: readCpu(this.cpuDir, result.testFilePath),
      tests: result.testResults.length,
      passed: result.numPassingTests,
      assertions,
    });
  }

  onRunComplete() {
    const total = (key) => this.suites.reduce((sum, suite) => sum + (suite[key] ?? 0), 0);
    const cpuSeconds = Math.round(total('cpuSeconds'));
    process.stderr.write(
      `\n[suite report] ${this.suites.length} suites, ${total('tests')} tests, ${total('assertions')} passing assertions, ` +
        `${cpuSeconds} CPU s in the jest workers\n`,
    );
    if (this.ownCpuDir) fs.rmSync(this.ownCpuDir, { recursive: true, force: true });
    const file = process.env.SUITE_REPORT;
    if (!file) return;
    const suites = [...this.suites].sort((a, b) => (b.cpuSeconds ?? 0) - (a.cpuSeconds ?? 0));
    fs.writeFileSync(file, `${JSON.stringify({ assertions: total('assertions'), tests: total('tests'), cpuSeconds, suites }, null, 2)}\n`);
  }
}

module.exports = SuiteReportReporter;

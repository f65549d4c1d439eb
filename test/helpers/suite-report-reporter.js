/**
 * A jest reporter that counts the assertions that ran and times each suite.
 *
 * At the end of a run it prints one line: suites, tests and passing assertions (expect calls that held,
 * as jest-circus counts them per test). With SUITE_REPORT=<file> it also writes every suite's path,
 * duration, tests and assertions as JSON, so that two runs (before and after a change to the suite's
 * structure) can be compared: the count must not fall, and the durations show where the time goes.
 */
const fs = require('node:fs');
const path = require('node:path');

class SuiteReportReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.suites = [];
  }

  onTestResult(_test, result) {
    const assertions = result.testResults.reduce((sum, test) => sum + (test.numPassingAsserts ?? 0), 0);
    this.suites.push({
      suite: path.relative(this.rootDir, result.testFilePath),
      seconds: Math.round((result.perfStats.end - result.perfStats.start) / 100) / 10,
      tests: result.testResults.length,
      passed: result.numPassingTests,
      assertions,
    });
  }

  onRunComplete() {
    const total = (key) => this.suites.reduce((sum, suite) => sum + suite[key], 0);
    process.stderr.write(
      `\n[suite report] ${this.suites.length} suites, ${total('tests')} tests, ${total('assertions')} passing assertions\n`,
    );
    const file = process.env.SUITE_REPORT;
    if (!file) return;
    const suites = [...this.suites].sort((a, b) => b.seconds - a.seconds);
    fs.writeFileSync(file, `${JSON.stringify({ assertions: total('assertions'), tests: total('tests'), suites }, null, 2)}\n`);
  }
}

module.exports = SuiteReportReporter;

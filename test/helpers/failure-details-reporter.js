/**
 * A jest reporter that prints the raw error of every failure whose formatted message is empty.
 *
 * Jest's formatting drops an error whose message is empty and whose stack lies in node_modules (an
 * AggregateError, or an error rejected from a torn-down suite's Strapi, as the pool timeouts fixed by
 * database/drain.ts were): the failure then shows no text at all. This prints such an error as Node
 * inspects it, so that the next one says what it was.
 */
const util = require('node:util');

class FailureDetailsReporter {
  onTestResult(_test, result) {
    const blank = (text) => !text || text.trim() === '';
    const report = (where, details) => {
      for (const detail of details ?? []) {
        process.stderr.write(`\n[failure details] ${where}:\n${util.inspect(detail, { depth: 6, showHidden: false })}\n`);
      }
    };
    if (result.testExecError && blank(result.testExecError.message)) report(`${result.testFilePath} (suite)`, [result.testExecError]);
    for (const test of result.testResults) {
      if (test.status === 'failed' && test.failureMessages.every(blank))
        report(`${result.testFilePath} › ${test.fullName}`, test.failureDetails);
    }
  }
}

module.exports = FailureDetailsReporter;

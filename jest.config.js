/**
 * Three projects: fast unit tests of pure modules, API tests that boot the real application, and
 * browser tests of the admin panel (test/browser/jest.config.js).
 */
const transform = { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
// dist/ holds compiled copies (package.json included) that must not shadow the sources; so do the fixture
// application's built copies (test/fixture-app) under .tmp/fixture-app and .cache/fixture-<version>.
// jest's node environment that also measures each suite's CPU seconds (test/helpers/cpu-environment.js).
const testEnvironment = '<rootDir>/test/helpers/cpu-environment.js';
const modulePathIgnorePatterns = ['<rootDir>/dist/', '<rootDir>/.tmp/fixture-app/', '<rootDir>/.cache/'];
// @apidevtools/json-schema-ref-parser (under swagger-parser) ships ES modules only: compile it like our own code.
const transformIgnorePatterns = ['/node_modules/(?!@apidevtools/json-schema-ref-parser/)'];

module.exports = {
  // Two workers on two cores: an API suite waits on I/O, timers and child processes much of its time, so a
  // second one fills it (the api project measured 567 s instead of 1,041 s wall, with the same CPU seconds;
  // docs/testing.md). Jest's default on two cores would be one.
  maxWorkers: 2,
  // Every API suite boots Strapi in a module registry of its own, and a worker keeps some of each suite's
  // heap: over a whole run one worker grew to its heap limit (3.3 GB, 1,028 s in) and crashed the suite it
  // held. A worker whose heap passes this after a suite is replaced by a fresh one (a few seconds).
  workerIdleMemoryLimit: '1536MB',
  reporters: ['default', '<rootDir>/test/helpers/failure-details-reporter.js', '<rootDir>/test/helpers/suite-report-reporter.js'],
  projects: [
    {
      displayName: 'unit',
      testEnvironment,
      transform,
      transformIgnorePatterns,
      modulePathIgnorePatterns,
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      displayName: 'api',
      testEnvironment,
      transform,
      transformIgnorePatterns,
      modulePathIgnorePatterns,
      testMatch: ['<rootDir>/test/api/**/*.test.ts'],
      globalSetup: '<rootDir>/test/helpers/global-setup.js',
      setupFilesAfterEnv: ['<rootDir>/test/helpers/api-setup.ts'],
    },
    '<rootDir>/test/browser/jest.config.js',
  ],
};

/**
 * Browser tests: the real admin panel (built by `npm run build`) served by the application and driven
 * by playwright-core in Debian's chromium. A project of its own, because it needs the built admin and
 * a browser; the root config lists it, so `npm test` runs it, and `npm run test:browser` runs it alone.
 */
const path = require('node:path');

const transform = { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] };

module.exports = {
  rootDir: path.resolve(__dirname, '..', '..'),
  displayName: 'browser',
  testEnvironment: '<rootDir>/test/helpers/cpu-environment.js',
  transform,
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.tmp/fixture-app/', '<rootDir>/.cache/'],
  testMatch: ['<rootDir>/test/browser/**/*.test.ts'],
  globalSetup: '<rootDir>/test/browser/global-setup.js',
  setupFilesAfterEnv: ['<rootDir>/test/browser/setup.ts'],
  testTimeout: 300000,
  maxWorkers: 1,
};

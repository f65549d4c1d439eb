/**
 * The fixture application's suites (test/fixture-app): a second Strapi application that installs the packed
 * plugin, run once per Strapi version (`npm run test:fixture`, FIXTURE_STRAPI=5.45.0 for the lowest
 * supported one). A config of its own, not a project of the root config: `npm test` tests the plugin in this
 * repository's application, this one tests the package in someone else's, and CI runs it twice.
 */
const path = require('node:path');

const transform = { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] };

module.exports = {
  rootDir: path.resolve(__dirname, '..', '..'),
  displayName: 'fixture',
  testEnvironment: 'node',
  transform,
  // @apidevtools/json-schema-ref-parser (under swagger-parser) ships ES modules only: compile it like our own code.
  transformIgnorePatterns: ['/node_modules/(?!@apidevtools/json-schema-ref-parser/)'],
  // The fixture's copies (with their package.json) live under .tmp/ and .cache/.
  modulePathIgnorePatterns: ['<rootDir>/dist/', '<rootDir>/.tmp/', '<rootDir>/.cache/'],
  testMatch: ['<rootDir>/test/fixture-app/**/*.test.ts'],
  globalSetup: '<rootDir>/test/fixture-app/global-setup.ts',
  reporters: ['default', '<rootDir>/test/helpers/failure-details-reporter.js'],
  testTimeout: 300000,
  // The suites start the application as child processes; one at a time keeps two cores for them.
  maxWorkers: 1,
};

/**
 * Three projects: fast unit tests of pure modules, API tests that boot the real application, and
 * browser tests of the admin panel (test/browser/jest.config.js).
 */
const transform = { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
// dist/ holds compiled copies (package.json included) that must not shadow the sources.
const modulePathIgnorePatterns = ['<rootDir>/dist/'];
// @apidevtools/json-schema-ref-parser (under swagger-parser) ships ES modules only: compile it like our own code.
const transformIgnorePatterns = ['/node_modules/(?!@apidevtools/json-schema-ref-parser/)'];

module.exports = {
  reporters: ['default', '<rootDir>/test/helpers/failure-details-reporter.js', '<rootDir>/test/helpers/suite-report-reporter.js'],
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform,
      transformIgnorePatterns,
      modulePathIgnorePatterns,
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      displayName: 'api',
      testEnvironment: 'node',
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

/**
 * The PostgreSQL pass (`npm run test:postgres`, with TEST_DATABASE=postgres): the api project narrowed to
 * the suites whose outcome depends on the database (test/postgres-suites.js says which, and why the
 * others are not repeated). One suite on PostgreSQL, listed or not: TEST_DATABASE=postgres npx jest <path>.
 */
const path = require('node:path');
const root = require('../jest.config.js');
const { onPostgres } = require('./postgres-suites.js');

const api = root.projects.find((project) => typeof project === 'object' && project.displayName === 'api');

const rootDir = path.resolve(__dirname, '..');

module.exports = {
  rootDir,
  reporters: root.reporters,
  maxWorkers: root.maxWorkers,
  workerIdleMemoryLimit: root.workerIdleMemoryLimit,
  // A project's <rootDir> is its own config file's folder unless it says otherwise.
  projects: [
    { ...api, rootDir, displayName: 'postgres', testMatch: Object.keys(onPostgres).map((suite) => `<rootDir>/test/api/${suite}`) },
  ],
};

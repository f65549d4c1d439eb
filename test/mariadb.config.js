/**
 * The MariaDB pass (`npm run test:mariadb`, with TEST_DATABASE=mariadb), each suite on a MariaDB database
 * of its own on 127.0.0.1:3306 (or TEST_MARIADB_URL), created from a template and dropped after
 * (test/helpers/database.ts). One suite on MariaDB, listed or not: TEST_DATABASE=mariadb npx jest <path>.
 *
 * Which suites: those of the PostgreSQL pass (test/postgres-suites.js says which, and why the others are
 * not repeated), all but the ones `notOnMariadb` names, each with the reason it cannot hold there (issue 35).
 */
const path = require('node:path');
const root = require('../jest.config.js');
const { onPostgres, notOnMariadb } = require('./postgres-suites.js');

const suites = Object.keys(onPostgres).filter((suite) => !(suite in notOnMariadb));

const api = root.projects.find((project) => typeof project === 'object' && project.displayName === 'api');

const rootDir = path.resolve(__dirname, '..');

module.exports = {
  rootDir,
  reporters: root.reporters,
  maxWorkers: root.maxWorkers,
  // A project's <rootDir> is its own config file's folder unless it says otherwise.
  projects: [{ ...api, rootDir, displayName: 'mariadb', testMatch: suites.map((suite) => `<rootDir>/test/api/${suite}`) }],
};

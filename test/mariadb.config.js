/**
 * The MariaDB pass (`npm run test:mariadb`, with TEST_DATABASE=mariadb), each suite on a MariaDB database
 * of its own on 127.0.0.1:3306 (or TEST_MARIADB_URL), created from a template and dropped after
 * (test/helpers/database.ts). One suite on MariaDB, listed or not: TEST_DATABASE=mariadb npx jest <path>.
 *
 * Which suites: those of the PostgreSQL pass (test/postgres-suites.js says which, and why the others are
 * not repeated) that have been made to pass on MariaDB so far (`ON_MARIADB`); MariaDB support is being
 * completed suite by suite (issue 35), and `MARIADB_SUITES=all` runs the whole PostgreSQL list to see
 * what is left. A suite joins `ON_MARIADB` once it passes there.
 */
const path = require('node:path');
const root = require('../jest.config.js');
const { onPostgres } = require('./postgres-suites.js');

const ON_MARIADB = [
  'admin-keys.test.ts',
  'atomic-operations.test.ts',
  'audit-log.test.ts',
  'authentication.test.ts',
  'change-journal.test.ts',
  'commands.test.ts',
  'hot-path-caches.test.ts',
  'http-caching.test.ts',
  'rate-limits.test.ts',
  'read-basics.test.ts',
  'read-filters.test.ts',
  'read-locale-fallback.test.ts',
  'read-pagination.test.ts',
  'storable-input.test.ts',
  'sync.test.ts',
  'usage.test.ts',
  'webhooks-admin.test.ts',
  'webhooks-delivery.test.ts',
  'webhooks-events.test.ts',
  'website-slugs.test.ts',
  'write-idempotency.test.ts',
  'write-native.test.ts',
  'write-round-trip.test.ts',
];
const suites = process.env.MARIADB_SUITES === 'all' ? Object.keys(onPostgres) : ON_MARIADB.filter((suite) => suite in onPostgres);

const api = root.projects.find((project) => typeof project === 'object' && project.displayName === 'api');

const rootDir = path.resolve(__dirname, '..');

module.exports = {
  rootDir,
  reporters: root.reporters,
  maxWorkers: root.maxWorkers,
  // A project's <rootDir> is its own config file's folder unless it says otherwise.
  projects: [{ ...api, rootDir, displayName: 'mariadb', testMatch: suites.map((suite) => `<rootDir>/test/api/${suite}`) }],
};

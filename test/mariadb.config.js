/**
 * The MariaDB pass (`npm run test:mariadb`, with TEST_DATABASE=mariadb), each suite on a MariaDB database
 * of its own on 127.0.0.1:3306 (or TEST_MARIADB_URL), created from a template and dropped after
 * (test/helpers/database.ts). One suite on MariaDB, listed or not: TEST_DATABASE=mariadb npx jest <path>.
 *
 * Which suites: those of the PostgreSQL pass (test/postgres-suites.js says which, and why the others are
 * not repeated) that have passed on MariaDB (`ON_MARIADB`); a suite joins once it passes there (issue 35).
 * `notOnMariadb` (test/postgres-suites.js) names those that cannot hold on MariaDB, with the reason.
 * `MARIADB_SUITES=all` runs every suite of the PostgreSQL list but those, to see what is left.
 */
const path = require('node:path');
const root = require('../jest.config.js');
const { onPostgres, notOnMariadb } = require('./postgres-suites.js');

const ON_MARIADB = [
  'admin-keys.test.ts',
  'admin-registry.test.ts',
  'admin-websites.test.ts',
  'assets-remote.test.ts',
  'assets.test.ts',
  'atomic-operations.test.ts',
  'atomic-time-limit.test.ts',
  'audit-log.test.ts',
  'authentication.test.ts',
  'change-journal.test.ts',
  'command-uploads.test.ts',
  'commands.test.ts',
  'components-demo.test.ts',
  'components-read.test.ts',
  'cost-accounting.test.ts',
  'demo-key.test.ts',
  'domain-rules.test.ts',
  'event-scope.test.ts',
  'fuzz.test.ts',
  'hot-path-caches.test.ts',
  'http-caching.test.ts',
  'journal-references.test.ts',
  'operations.test.ts',
  'rate-limits.test.ts',
  'read-basics.test.ts',
  'read-fieldsets.test.ts',
  'read-filters.test.ts',
  'read-grants-property.test.ts',
  'read-include.test.ts',
  'read-indexes.test.ts',
  'read-locale-fallback.test.ts',
  'read-pagination.test.ts',
  'read-preview.test.ts',
  'read-reference-lists.test.ts',
  'revalidation-memo.test.ts',
  'storable-input.test.ts',
  'sync.test.ts',
  'usage.test.ts',
  'webhooks-admin.test.ts',
  'webhooks-delivery.test.ts',
  'webhooks-events.test.ts',
  'webhooks-fan-out.test.ts',
  'webhooks-removals.test.ts',
  'website-slugs.test.ts',
  'write-cms.test.ts',
  'write-components.test.ts',
  'write-idempotency.test.ts',
  'write-native.test.ts',
  'write-property.test.ts',
  'write-refusals.test.ts',
  'write-relation-changes.test.ts',
  'write-round-trip.test.ts',
];
const listed = Object.keys(onPostgres).filter((suite) => !(suite in notOnMariadb));
const suites = process.env.MARIADB_SUITES === 'all' ? listed : ON_MARIADB.filter((suite) => listed.includes(suite));

const api = root.projects.find((project) => typeof project === 'object' && project.displayName === 'api');

const rootDir = path.resolve(__dirname, '..');

module.exports = {
  onMariadb: ON_MARIADB,
  rootDir,
  reporters: root.reporters,
  maxWorkers: root.maxWorkers,
  workerIdleMemoryLimit: root.workerIdleMemoryLimit,
  // A project's <rootDir> is its own config file's folder unless it says otherwise.
  projects: [{ ...api, rootDir, displayName: 'mariadb', testMatch: suites.map((suite) => `<rootDir>/test/api/${suite}`) }],
};

'use strict';

/**
 * Which API suites run a second time on PostgreSQL (`npm run test:postgres`, test/postgres.config.js).
 *
 * Every suite runs on SQLite in `npm test`. The PostgreSQL pass repeats the suites whose outcome depends
 * on the database: the SQL the plugin writes itself (read/sql.ts, indexes, idempotency claims, slugs,
 * asset lookups, key storage), what Strapi stores and compares differently per database (types, ranges,
 * collation, JSON), transactions and their rollbacks, the connection pool. The others answer from the
 * registry, the grants, the HTTP layer or files alone; each says why below. test/unit/postgres-suites.test.ts
 * fails while an API suite is on neither list, so a new suite is placed on purpose.
 */
const onPostgres = {
  'demo-key.test.ts': "the demo key's file is named after the connection Strapi was configured with: a PostgreSQL one on this pass",
  'admin-keys.test.ts': 'keys are stored rows (grants as JSON, whose key order PostgreSQL does not keep)',
  'admin-registry.test.ts':
    "editors' field labels are read from Strapi's core store by key prefix (one $startsWith query; its value is text on both)",
  'admin-websites.test.ts': "unique website slugs, and every key's stored grants rewritten when a website changes",
  'audit-log.test.ts': "entries written in the change's own transaction (rolled back with it), keyset paging by id in SQL",
  'usage.test.ts':
    'additive upserts (ON CONFLICT ... DO UPDATE) of the usage counters, rollup with DELETE ... RETURNING; two processes adding up (PostgreSQL only)',
  'atomic-time-limit.test.ts': 'an atomic request past its time limit rolls back whole: what each database keeps of it (nothing)',
  'postgres-slug-locks.test.ts':
    "slug locks per value (advisory locks): another key's write to the type completes while an atomic request holds its transaction (PostgreSQL only)",
  'atomic-operations.test.ts': 'up to 100 writes in one transaction: what a rollback leaves in each database, lids resolved by queries',
  'assets.test.ts': 'asset lookups are SQL of the plugin (services/assets.ts, file-versions.ts); one case needs a second connection',
  'assets-remote.test.ts':
    "the asset lookup reads the provider's columns (provider_metadata: JSON, an object on PostgreSQL and text on SQLite) for its signed URLs",
  'authentication.test.ts': 'key lookup, revocation and expiry are queries and timestamp comparisons',
  'command-uploads.test.ts': "a CV is written inside the command's transaction: rollbacks and what they leave",
  'command-uploads-crash.test.ts': 'a crash mid-transaction and the Idempotency-Key lease taken over after a restart',
  'journal-references.test.ts':
    "entries for records referencing a target from inside components or through files_related_mph, one INSERT ... SELECT per path in the plugin's SQL",
  'event-scope.test.ts':
    "which records a change names for a key: the websites a record's row belonged to, read in the write's transaction, and the journal's own SQL over them",
  'change-journal.test.ts': "the journal is written in each write's transaction (rollbacks), and read below PostgreSQL's snapshot horizon",
  'commands.test.ts': 'commands write records and claims in one transaction',
  'commands-property.test.ts': 'exactly one record per accepted command, none per refused one (counted in the database)',
  'http-caching.test.ts':
    "If-Match reads the record inside the write's transaction (with Idempotency-Key claims); a key's cache policy is stored JSON",
  'components-read.test.ts':
    "component values read from Strapi's _cmps join tables and component tables by the plugin's own SQL, per version and locale",
  'components-demo.test.ts': 'writes republish documents whose components are rows and join rows of their own, copied on publish',
  'domain-rules.test.ts': 'SKU uniqueness across documents is a query',
  'revalidation-memo.test.ts':
    "a remembered 304 is valid while no journal entry lies at or past the horizon taken before its read (PostgreSQL's snapshot horizon)",
  'fuzz.test.ts': 'inputs databases cannot store or compare (NUL, lone surrogates, years 0 and 10000, huge numbers)',
  'operator-commands.test.ts': 'the key command line against each database (and its settings checks)',
  'operations.test.ts':
    "readiness queries the database, the metrics read the pool's numbers (a real pool of several connections on PostgreSQL), the drain waits for a write",
  'read-bounds.test.ts': 'the per-owner cut of reference lists over the relation query, and relation filters',
  'read-reference-lists.test.ts':
    'the per-owner cut of a long reference list is a LIMIT per owner in SQL (LATERAL on PostgreSQL; order, nulls, de-duplication)',
  'hot-path-caches.test.ts':
    'prepared key and website reads on each database, what SQL written elsewhere changes on the next request, the unique key id index',
  'read-basics.test.ts': "the read path's SQL (read/sql.ts): documents, field types, visibility",
  'read-fieldsets.test.ts': 'the columns and queries a sparse fieldset leaves out (observed SQL), and paging by a left-out sort key',
  'read-filters.test.ts': 'filter conditions compiled to SQL',
  'read-grants-property.test.ts': 'random filters, sorts and includes compiled to SQL, and their order',
  'read-include.test.ts': 'relation loading queries at every depth',
  'read-preview.test.ts': 'draft reads are conditions on published_at, an EXISTS per row for meta.status (a boolean on PostgreSQL)',
  'read-locale-fallback.test.ts':
    'the fallback is SQL of the plugin (NOT EXISTS per later locale, keyset on the chosen rows): exact paging on each database',
  'read-indexes.test.ts': 'the indexes the plugin creates, and the plans that use them',
  'rate-limits-instances.test.ts':
    'two processes on one database sharing a counter (the table, then Redis); PostgreSQL only (skipped on SQLite)',
  'cost-accounting.test.ts':
    "charges and refunds of a request's further cost are counts of the plugin's counter table (RateLimiterPostgres); refused atomic requests and uploads write nothing",
  'rate-limits-store.test.ts': "the sweep deletes rows of the plugin's counter table by their expiry (a bigint on PostgreSQL)",
  'rate-limits.test.ts': "the counters are rows of the plugin's table (RateLimiterPostgres on Strapi's connection)",
  'read-pagination.test.ts': 'keyset conditions and sort orders (nulls, ties, collation)',
  'relations-demo.test.ts': 'relations in both locales over the whole demo content',
  'seed.test.ts': "the seed's writes and bulk inserts; its content fingerprint is the same on both databases",
  'shutdown.test.ts': 'the plugin drains the connection pool before the database closes',
  'sync.test.ts': 'deltas are read from the journal below the snapshot horizon, rendered by the read path (website moves, fallback)',
  'storable-input.test.ts': 'what each database can store: the same answer on both',
  'webhooks-admin.test.ts':
    "endpoints and the delivery log are rows of the plugin's tables; the log is keyset SQL and the claim UPDATE ... RETURNING",
  'webhooks-events.test.ts':
    "events come from the change journal, written in the change's own transaction (a rolled-back write sends nothing)",
  'webhooks-removals.test.ts':
    "removals planned in the grant change's transaction (a plugin table), paged by document id in SQL with a compare-and-set on the row",
  'webhooks-fan-out.test.ts':
    "which endpoints a change concerns (the revision row read each turn), each endpoint's journal read on the (content_type, txid, seq) index below PostgreSQL's horizon",
  'webhooks-instances.test.ts': 'two processes on one database, one killed mid-send; PostgreSQL only (skipped on SQLite)',
  'webhooks-delivery.test.ts':
    'claims, settling under the lease token and the endpoint disabled are SQL of the plugin (bigint times on PostgreSQL)',
  'website-slugs.test.ts': 'slug uniqueness per website is SQL of the plugin (services/slugs.ts)',
  'write-relation-changes.test.ts': 'add and remove change links in one transaction; which are linked is a query of the plugin',
  'write-cms.test.ts': 'CMS writes and their references',
  'write-components.test.ts':
    'component values are rows and join rows Strapi replaces in the transaction (what a refusal leaves), references inside resolved by queries',
  'write-components-property.test.ts': 'random zones written and read back: component rows, their order and their links on each database',
  'write-round-trip.test.ts': 'every demo record written back as read: what each database stores and gives back, value by value',
  'write-idempotency.test.ts': 'Idempotency-Key claims are unique rows (services/idempotency.ts)',
  'write-idempotency-processes.test.ts': 'two processes on one database; PostgreSQL only (skipped on SQLite)',
  'write-native.test.ts': 'what a write stores, value by value, read back from the database',
  'write-property.test.ts': 'a refused write leaves the database exactly as it was',
  'write-refusals.test.ts': 'refusals that look records up (absent records, references) before writing nothing',
};

const notOnPostgres = {
  'sqlite-reads-during-writes.test.ts':
    "SQLite's read-only connection beside its one writer; PostgreSQL's pool reads beside its writers (skipped there)",
  'webhooks-cli.test.ts':
    "the command line's arguments and output; the endpoints it stores are webhooks-admin.test.ts's rows, on PostgreSQL",
  'webhooks-local-receiver.test.ts':
    "docs/api.md's local receiver walk-through: the development flag, the command line and a delivery; stored and sent on PostgreSQL by webhooks-admin and webhooks-instances",
  'cluster.test.ts':
    'it always runs on PostgreSQL (and Redis, behind HAProxy): the instances are child processes on one database, whatever TEST_DATABASE says',
  'admin-permissions.test.ts': "RBAC of the admin routes: Strapi's permission engine, no SQL of the plugin",
  'admin-content-manager.test.ts':
    "what an admin may grant, by Strapi's permission engine (rules and conditions matched in memory); the keys and websites it writes are admin-keys and admin-websites's rows, on PostgreSQL",
  'asset-cache.test.ts': "the variant cache on disk; the asset lookup is assets.test.ts's, on PostgreSQL",
  'asset-demo.test.ts': "following the demo's asset URLs is file serving; the demo's reads are relations-demo.test.ts's, on PostgreSQL",
  'asset-presets.test.ts': 'which transforms preset mode allows: the configuration and the handler, not the database',
  'asset-queue.test.ts': 'the transform queue and its time limit: sharp and the process, not the database',
  'asset-transforms.test.ts': 'image transforms and variants: sharp and the cache, not the database',
  'demo-port.test.ts': 'refused before anything starts: no database is opened',
  'error-layer.test.ts': 'the error document and negotiation: the HTTP layer',
  'generated-types.test.ts': 'the committed types/generated against what Strapi generates from the schemas: no database is read',
  'slow-bodies.test.ts': "time limits on receiving a body: the HTTP layer and Node's server, refused before any SQL",
  'generated-client.test.ts': 'a client generated from the OpenAPI document; its calls are reads and writes tested on PostgreSQL elsewhere',
  'load-shedding.test.ts': 'the bound on requests in flight is held in the process, at the edge, before any handler',
  'load-shedding-share.test.ts': "one key's share of the turns and its shed delay: held in the process, at the edge",
  'load-shedding-fair.test.ts': 'the rotation between keys waiting for a turn: held in the process, at the edge',
  'plugin-bin.test.ts': 'the packed bin as a process of its own; the key command against each database is operator-commands',
  'load-shedding-budget.test.ts':
    "the record budget's refusal gives its turn back before its delay: held in the process, whatever the database counts",
  'http-conformance.test.ts': 'methods, Allow, CORS and negotiation per path: the HTTP layer and the registry',
  'openapi.test.ts': 'the OpenAPI document is built from the registry and the grants',
  'openapi-coverage.test.ts': "which operations a key's document lists against which the router refuses (403, 404, 405)",
  'openapi-demo.test.ts': "the document of the demo's registry; the demo's reads are relations-demo.test.ts's, on PostgreSQL",
  'origins.test.ts': 'origin rules and CORS headers: the HTTP layer',
  'request-target.test.ts': 'links from PUBLIC_URL, the Host header and the request target: the HTTP layer',
  'resource-index.test.ts': 'the resource index is the registry filtered by the grants',
  'native-config.test.ts':
    "the registry built from the plugin's configuration and the command registry; a native singleton's reads and PATCH run the singleton path write-cms.test.ts and read-basics.test.ts repeat",
  'security-headers.test.ts': "Strapi's security headers on /api/v2 answers: the HTTP layer",
};

/**
 * The suites of the PostgreSQL pass that the MariaDB pass (`npm run test:mariadb`, test/mariadb.config.js)
 * leaves out, each with the reason it cannot hold there. Every other suite of `onPostgres` runs on MariaDB.
 */
const notOnMariadb = {
  'postgres-slug-locks.test.ts':
    "a write of another slug completing while an atomic request holds its transaction: on MariaDB content writes take turns (the journal's order lock, database/journal-order.ts) and a slug-writing transaction locks the type's slugs whole (services/slugs.ts), so that write waits, by design",
};

module.exports = { onPostgres, notOnPostgres, notOnMariadb };

'use strict';

/**
 * Template databases: a suite starts from a copy of a database the application has already booted on,
 * instead of an empty one that Strapi must first build its schema into (about 2 s of every boot), and
 * the suites about the demo content start from a copy that is already seeded (about 13 s each).
 *
 *   schema  the application booted once on an empty database: tables, indexes, locales, permissions.
 *   demo    the schema template with the demo content seeded (src/seed), its media in public/uploads.
 *
 * A template is named after a fingerprint of everything that decides its content: the compiled
 * application (dist/), the Strapi version, the lock file, the test secrets, this file, and the checkout
 * (the demo's media files are in its public/uploads). Any change
 * there gives another name, so a stale template is never used; templates of other fingerprints are
 * removed once they are old. A template appears under its name only when complete (an atomic rename of
 * a file, or of a PostgreSQL database), so concurrent runs and workers never see one half built: at
 * worst two build the same template at once and one rename wins.
 *
 * SQLite templates are files in .tmp/test-templates/ (a suite's database is a copy of the file);
 * PostgreSQL templates are databases named pda_tpl_<kind>_<fingerprint>_<built at> (a suite's database
 * is `CREATE DATABASE ... TEMPLATE`). The global setup builds the schema template, and the demo template
 * when the run includes a suite that uses it; a suite that finds its template missing builds it.
 *
 * Run as a script (`node test/helpers/templates.js <kind>`), this file is the builder: it boots the
 * compiled application on the database its environment names, seeds it for `demo`, and stops.
 */
const { execFileSync } = require('node:child_process');
const { createHash, randomBytes } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const APP_ROOT = path.resolve(__dirname, '..', '..');
/** SQLite templates, and for every template the list of the media files its rows point to. */
const TEMPLATES_DIR = path.join(APP_ROOT, '.tmp', 'test-templates');
const PLUGIN_DIST = path.join(APP_ROOT, 'src', 'plugins', 'public-api', 'dist');
const UPLOADS_DIR = path.join(APP_ROOT, 'public', 'uploads');
const TEST_SECRETS = path.join(__dirname, 'test-secrets.json');
const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MARIADB_ADMIN_URL = process.env.TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/';

/** Each template and the one it is copied from before it is built on. */
const KINDS = { schema: null, demo: 'schema' };
/** Templates of another fingerprint older than this are removed (a run in another checkout may still use a younger one). */
const STALE_MS = 6 * 3600_000;
/** A build that has not finished after this long was interrupted. */
const ABANDONED_BUILD_MS = 3600_000;
const BUILD_TIMEOUT_MS = 10 * 60_000;

const usingPostgres = () => process.env.TEST_DATABASE === 'postgres';
const usingMariadb = () => process.env.TEST_DATABASE === 'mariadb';

/** The compiled application's files, without tsc's build state and the admin bundle (no schema in either). */
const compiledFiles = (dist) =>
  fs
    .readdirSync(dist, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.tsbuildinfo'))
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name))
    .filter((file) => !file.startsWith(path.join(dist, 'build') + path.sep))
    .sort();

let fingerprintMemo = null;

/** 16 hex digits that change whenever anything a template is built from changes. */
const fingerprint = () => {
  if (fingerprintMemo) return fingerprintMemo;
  const dist = path.join(APP_ROOT, 'dist');
  if (!fs.existsSync(dist)) throw new Error('dist/ is missing: the API global setup compiles the application before templates are built.');
  const hash = createHash('sha256').update(APP_ROOT).update('\0');
  const inputs = [
    ...compiledFiles(dist),
    // The plugin's build (its package's dist/), which the application loads; its admin bundle holds no schema.
    ...compiledFiles(PLUGIN_DIST).filter((file) => !file.startsWith(path.join(PLUGIN_DIST, 'admin') + path.sep)),
    path.join(APP_ROOT, 'package-lock.json'),
    path.join(APP_ROOT, 'node_modules', '@strapi', 'strapi', 'package.json'),
    TEST_SECRETS,
    __filename,
  ];
  for (const file of inputs) {
    hash.update(path.relative(APP_ROOT, file)).update('\0');
    if (fs.existsSync(file)) hash.update(fs.readFileSync(file));
    hash.update('\0');
  }
  fingerprintMemo = hash.digest('hex').slice(0, 16);
  return fingerprintMemo;
};

const testEnv = () => ({
  NODE_ENV: 'test',
  LOG_LEVEL: 'error',
  ...JSON.parse(fs.readFileSync(TEST_SECRETS, 'utf8')),
  SERVE_ADMIN: 'false',
  HOST: '127.0.0.1',
  PORT: '0',
});

/** Boots the compiled application in a child process on the database `env` names (and seeds the demo). */
const runBuilder = (kind, env, mediaList) => {
  try {
    execFileSync(process.execPath, [__filename, kind, mediaList], {
      cwd: APP_ROOT,
      env: { ...process.env, ...testEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: BUILD_TIMEOUT_MS,
    });
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim();
    throw new Error(`Building the ${kind} template database failed: ${error.message}${output ? `\n${output}` : ''}`, { cause: error });
  }
};

// ---- SQLite: files in .tmp/test-templates -------------------------------------------------------

const sqliteFile = (kind) => path.join(TEMPLATES_DIR, `${kind}-${fingerprint()}.db`);

/** The media files a template's rows point to (in public/uploads), listed by the builder. */
const mediaListOf = (name) => path.join(TEMPLATES_DIR, `${path.basename(name)}.media.json`);

/** Whether the media files of a template are still there (e.g. public/uploads was not emptied since). */
const mediaPresent = (name) => {
  const list = mediaListOf(name);
  if (!fs.existsSync(list)) return true;
  return JSON.parse(fs.readFileSync(list, 'utf8')).every((file) => fs.existsSync(path.join(UPLOADS_DIR, file)));
};

const pruneSqlite = () => {
  if (!fs.existsSync(TEMPLATES_DIR)) return;
  const current = fingerprint();
  for (const name of fs.readdirSync(TEMPLATES_DIR)) {
    const file = path.join(TEMPLATES_DIR, name);
    const age = Date.now() - fs.statSync(file).mtimeMs;
    const building = name.includes('.building-');
    if ((building && age > ABANDONED_BUILD_MS) || (!building && !name.includes(current) && age > STALE_MS))
      fs.rmSync(file, { force: true });
  }
};

const ensureSqlite = (kind) => {
  const file = sqliteFile(kind);
  if (fs.existsSync(file) && mediaPresent(file)) return file;
  fs.mkdirSync(TEMPLATES_DIR, { recursive: true });
  const building = `${file}.building-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    if (KINDS[kind]) fs.copyFileSync(ensureSqlite(KINDS[kind]), building);
    runBuilder(kind, { DATABASE_CLIENT: 'sqlite', DATABASE_FILENAME: building }, mediaListOf(building));
    if (fs.existsSync(mediaListOf(building))) fs.renameSync(mediaListOf(building), mediaListOf(file));
    fs.renameSync(building, file);
  } finally {
    for (const leftover of [building, `${building}-wal`, `${building}-shm`, `${building}-journal`, mediaListOf(building)])
      fs.rmSync(leftover, { force: true });
  }
  return file;
};

// ---- PostgreSQL: databases pda_tpl_<kind>_<fingerprint>_<built at> ------------------------------

const withAdminClient = async (fn) => {
  const { Client } = require('pg');
  const client = new Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
};

const databaseUrl = (name) => {
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

const stamp = () => new Date().toISOString().replace(/\D/g, '').slice(0, 14);
const stampTime = (value) =>
  Date.UTC(+value.slice(0, 4), +value.slice(4, 6) - 1, +value.slice(6, 8), +value.slice(8, 10), +value.slice(10, 12), +value.slice(12, 14));

/** The newest complete template of this kind and fingerprint whose media files are present. */
const findPostgres = async (client, kind) => {
  const { rows } = await client.query('SELECT datname FROM pg_database WHERE datname LIKE $1 ORDER BY datname DESC LIMIT 1', [
    `pda\\_tpl\\_${kind}\\_${fingerprint()}\\_%`,
  ]);
  const name = rows[0]?.datname ?? null;
  return name && mediaPresent(name) ? name : null;
};

const prunePostgres = () =>
  withAdminClient(async (client) => {
    const { rows } = await client.query("SELECT datname FROM pg_database WHERE datname LIKE 'pda\\_tpl%'");
    for (const { datname } of rows) {
      const match = /^pda_tpl(build)?_[a-z]+_([0-9a-f]{16})_(\d{14})/.exec(datname);
      if (!match) continue;
      const age = Date.now() - stampTime(match[3]);
      const stale = match[1] ? age > ABANDONED_BUILD_MS : match[2] !== fingerprint() && age > STALE_MS;
      // Without FORCE: a template that a run is copying right now stays (the copy holds it).
      if (!stale) continue;
      const dropped = await client.query(`DROP DATABASE IF EXISTS "${datname}"`).then(
        () => true,
        () => false,
      );
      if (dropped) fs.rmSync(mediaListOf(datname), { force: true });
    }
  });

const ensurePostgres = async (kind) => {
  const existing = await withAdminClient((client) => findPostgres(client, kind));
  if (existing) return existing;
  const from = KINDS[kind] ? await ensurePostgres(KINDS[kind]) : null;
  const built = `pda_tpl_${kind}_${fingerprint()}_${stamp()}`;
  const building = `pda_tplbuild_${kind}_${fingerprint()}_${stamp()}_${randomBytes(3).toString('hex')}`;
  await withAdminClient((client) => client.query(`CREATE DATABASE "${building}"${from ? ` TEMPLATE "${from}"` : ''}`));
  fs.mkdirSync(TEMPLATES_DIR, { recursive: true });
  try {
    runBuilder(
      kind,
      { DATABASE_CLIENT: 'postgres', DATABASE_URL: databaseUrl(building), DATABASE_POOL_MIN: '0', DATABASE_POOL_MAX: '5' },
      mediaListOf(building),
    );
    if (fs.existsSync(mediaListOf(building))) fs.renameSync(mediaListOf(building), mediaListOf(built));
    return await withAdminClient(async (client) => {
      const winner = await findPostgres(client, kind);
      if (winner) return winner;
      try {
        await client.query(`ALTER DATABASE "${building}" RENAME TO "${built}"`);
      } catch (error) {
        // Another worker finished the same template in the same second: use theirs.
        if (error.code !== '42P04') throw error;
      }
      return built;
    });
  } finally {
    fs.rmSync(mediaListOf(building), { force: true });
    await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`));
  }
};

// ---- MariaDB (and MySQL): databases pda_tpl_<kind>_<fingerprint>_<built at> ---------------------
//
// MySQL has neither CREATE DATABASE ... TEMPLATE nor a database rename. A template is built in a database
// of its own and then moved, every table at once, into its final name by one RENAME TABLE (atomic): a
// template is complete when its database holds TEMPLATE_MARK, the last table moved. A suite's database is
// a copy: each table's SHOW CREATE TABLE run in the new database (foreign keys on, checks off while
// copying), then INSERT ... SELECT of its rows.

const TEMPLATE_MARK = 'pda_template_complete';

/** The mysql2 connection options of MARIADB_ADMIN_URL, for `database` (none: the server alone). */
const mariadbOptions = (database) => {
  const url = new URL(MARIADB_ADMIN_URL);
  return {
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username || 'root'),
    password: decodeURIComponent(url.password),
    ...(database ? { database } : {}),
    multipleStatements: false,
  };
};

const withMariadbClient = async (fn) => {
  const mysql = require('mysql2/promise');
  const client = await mysql.createConnection(mariadbOptions());
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
};

/** The application's environment for a MariaDB database of this server. */
const mariadbEnv = (name) => {
  const options = mariadbOptions();
  return {
    DATABASE_CLIENT: 'mysql',
    DATABASE_HOST: options.host,
    DATABASE_PORT: String(options.port),
    DATABASE_NAME: name,
    DATABASE_USERNAME: options.user,
    DATABASE_PASSWORD: options.password,
    DATABASE_POOL_MIN: '0',
    DATABASE_POOL_MAX: '5',
  };
};

const quoteMariadb = (name) => `\`${name.replace(/`/g, '``')}\``;

const tablesOf = async (client, database) => {
  const [rows] = await client.query(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name",
    [database],
  );
  return rows.map((row) => row.name);
};

/** Copies every table of `from` (schema, indexes, foreign keys, auto-increment counters, rows) into the empty database `to`. */
const copyMariadb = async (client, from, to) => {
  await client.query('SET SESSION foreign_key_checks = 0');
  try {
    for (const table of await tablesOf(client, from)) {
      if (table === TEMPLATE_MARK) continue;
      const [[created]] = await client.query(`SHOW CREATE TABLE ${quoteMariadb(from)}.${quoteMariadb(table)}`);
      await client.query(`USE ${quoteMariadb(to)}`);
      await client.query(created['Create Table']);
      await client.query(
        `INSERT INTO ${quoteMariadb(to)}.${quoteMariadb(table)} SELECT * FROM ${quoteMariadb(from)}.${quoteMariadb(table)}`,
      );
    }
  } finally {
    await client.query('SET SESSION foreign_key_checks = 1');
  }
};

const findMariadb = async (client, kind) => {
  const [rows] = await client.query(
    'SELECT table_schema AS name FROM information_schema.tables WHERE table_schema LIKE ? AND table_name = ? ORDER BY table_schema DESC LIMIT 1',
    [`pda\\_tpl\\_${kind}\\_${fingerprint()}\\_%`, TEMPLATE_MARK],
  );
  const name = rows[0]?.name ?? null;
  return name && mediaPresent(name) ? name : null;
};

const pruneMariadb = () =>
  withMariadbClient(async (client) => {
    const [rows] = await client.query("SELECT schema_name AS name FROM information_schema.schemata WHERE schema_name LIKE 'pda\\_tpl%'");
    for (const { name } of rows) {
      const match = /^pda_tpl(build)?_[a-z]+_([0-9a-f]{16})_(\d{14})/.exec(name);
      if (!match) continue;
      const age = Date.now() - stampTime(match[3]);
      const stale = match[1] ? age > ABANDONED_BUILD_MS : match[2] !== fingerprint() && age > STALE_MS;
      if (!stale) continue;
      await client.query(`DROP DATABASE IF EXISTS ${quoteMariadb(name)}`);
      fs.rmSync(mediaListOf(name), { force: true });
    }
  });

const ensureMariadb = async (kind) => {
  const existing = await withMariadbClient((client) => findMariadb(client, kind));
  if (existing) return existing;
  const from = KINDS[kind] ? await ensureMariadb(KINDS[kind]) : null;
  const built = `pda_tpl_${kind}_${fingerprint()}_${stamp()}`;
  const building = `pda_tplbuild_${kind}_${fingerprint()}_${stamp()}_${randomBytes(3).toString('hex')}`;
  await withMariadbClient(async (client) => {
    await client.query(`CREATE DATABASE ${quoteMariadb(building)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    if (from) await copyMariadb(client, from, building);
  });
  fs.mkdirSync(TEMPLATES_DIR, { recursive: true });
  try {
    runBuilder(kind, mariadbEnv(building), mediaListOf(building));
    if (fs.existsSync(mediaListOf(building))) fs.renameSync(mediaListOf(building), mediaListOf(built));
    return await withMariadbClient(async (client) => {
      const winner = await findMariadb(client, kind);
      if (winner) return winner;
      await client.query(`CREATE TABLE ${quoteMariadb(building)}.${TEMPLATE_MARK} (id integer PRIMARY KEY)`);
      await client.query(`CREATE DATABASE IF NOT EXISTS ${quoteMariadb(built)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      const tables = await tablesOf(client, building);
      // The mark last: the template is seen complete only once every table is in it (one statement, atomic).
      const ordered = [...tables.filter((table) => table !== TEMPLATE_MARK), TEMPLATE_MARK];
      await client.query(
        `RENAME TABLE ${ordered.map((table) => `${quoteMariadb(building)}.${quoteMariadb(table)} TO ${quoteMariadb(built)}.${quoteMariadb(table)}`).join(', ')}`,
      );
      return built;
    });
  } finally {
    fs.rmSync(mediaListOf(building), { force: true });
    await withMariadbClient((client) => client.query(`DROP DATABASE IF EXISTS ${quoteMariadb(building)}`));
  }
};

// ---- What the rest of the suite uses --------------------------------------------------------------

/** Builds `kind` unless a complete template of this fingerprint exists; resolves to its file or database name. */
const ensureTemplate = async (kind) => {
  if (!(kind in KINDS)) throw new Error(`Unknown template database '${kind}'; known: ${Object.keys(KINDS).join(', ')}.`);
  if (usingMariadb()) return ensureMariadb(kind);
  return usingPostgres() ? ensurePostgres(kind) : ensureSqlite(kind);
};

/** Removes templates of other fingerprints once they are old, and builds that were interrupted. */
const pruneTemplates = async () => {
  if (usingMariadb()) return pruneMariadb();
  return usingPostgres() ? prunePostgres() : pruneSqlite();
};

module.exports = {
  APP_ROOT,
  KINDS,
  MARIADB_ADMIN_URL,
  POSTGRES_ADMIN_URL,
  copyMariadb,
  databaseUrl,
  ensureTemplate,
  fingerprint,
  mariadbEnv,
  pruneTemplates,
  quoteMariadb,
  withAdminClient,
  withMariadbClient,
};

// ---- The builder ------------------------------------------------------------------------------------

const build = async (kind, mediaList) => {
  const { createStrapi } = require('@strapi/strapi');
  const strapi = createStrapi({ appDir: APP_ROOT, distDir: path.join(APP_ROOT, 'dist') });
  await strapi.load();
  try {
    if (kind === 'demo') {
      // A seed that logs an error builds no template (asset-demo's suite checked this when it seeded itself).
      const logged = [];
      const logError = strapi.log.error;
      strapi.log.error = (message, ...rest) => {
        logged.push(String(message));
        return logError.call(strapi.log, message, ...rest);
      };
      await require(path.join(APP_ROOT, 'dist', 'src', 'seed')).seedDemo(strapi, { log: () => undefined });
      strapi.log.error = logError;
      if (logged.length) throw new Error(`The demo seed logged errors:\n${logged.join('\n')}`);
      const files = await strapi.db.query('plugin::upload.file').findMany({ select: ['url', 'formats'] });
      const names = files
        .flatMap((file) => [file.url, ...Object.values(file.formats ?? {}).map((format) => format.url)])
        .filter((url) => typeof url === 'string' && url.startsWith('/uploads/'))
        .map((url) => url.slice('/uploads/'.length));
      fs.writeFileSync(mediaList, `${JSON.stringify(names)}\n`);
    }
  } finally {
    await strapi.destroy();
  }
};

if (require.main === module) {
  const kind = process.argv[2];
  if (!(kind in KINDS)) {
    process.stderr.write(`usage: node test/helpers/templates.js <${Object.keys(KINDS).join('|')}>\n`);
    process.exit(2);
  }
  build(kind, process.argv[3]).then(
    () => process.exit(0),
    (error) => {
      process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
}

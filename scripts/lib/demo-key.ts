/**
 * Where `npm run demo` keeps the demo key of one database (issue 33, item 13). The plaintext is kept only
 * so that the next run can print it again; the database stores its HMAC alone, so a key saved for one
 * database never works against another. One file per database: a PostgreSQL demo no longer replaces the
 * SQLite demo's key, and two SQLite files (`DATABASE_FILENAME`) keep one each.
 *
 * The file's name comes from the connection Strapi was configured with (config/database.ts): a pure
 * function of it, `demoKeyFile`.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Before keys were kept per database: one file for whichever database ran last. Read once, to adopt its key. */
export const LEGACY_DEMO_KEY_FILE = path.join('.tmp', 'demo-key');
export const DEMO_KEYS_DIR = path.join('.tmp', 'demo-keys');

/** The part of Strapi's `database.connection` that says which database it is (no password). */
export type DatabaseConnection = {
  client: string;
  connection:
    | { filename: string }
    | { connectionString: string; schema?: string }
    | { host?: string; port?: number | string; database?: string; user?: string; schema?: string };
};

const decoded = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/**
 * Which database this is, as one string: the client and the SQLite file, or the server, port, database,
 * user and schema. Two connections that reach the same database give the same string; the password never
 * takes part.
 */
export const databaseIdentity = ({ client, connection }: DatabaseConnection): string => {
  if ('filename' in connection) return `${client}:${path.resolve(connection.filename)}`;
  if ('connectionString' in connection) {
    const url = new URL(connection.connectionString);
    const schema = connection.schema ?? url.searchParams.get('schema') ?? '';
    const port = url.port || '5432';
    return `${client}://${decoded(url.username)}@${url.hostname}:${port}/${decoded(url.pathname.replace(/^\//, ''))}#${schema}`;
  }
  const { host = '', port = '', database = '', user = '', schema = '' } = connection;
  return `${client}://${user}@${host}:${port}/${database}#${schema}`;
};

/** Letters, digits, dots and dashes only, at most 40 of them: a file name part a person can read. */
const readable = (text: string): string =>
  text
    .replace(/[^A-Za-z0-9.-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(0, 40) || 'database';

/**
 * The demo key's file for this database, relative to the application root: `.tmp/demo-keys/` and a name
 * a person recognizes (`sqlite-data.db-…`, `postgres-pda@127.0.0.1-…`), made unique by a hash of the whole
 * identity (two `data.db` files in different folders are different databases).
 */
export const demoKeyFile = (database: DatabaseConnection): string => {
  const { client, connection } = database;
  const name =
    'filename' in connection
      ? path.basename(connection.filename)
      : 'connectionString' in connection
        ? (() => {
            const url = new URL(connection.connectionString);
            return `${decoded(url.pathname.replace(/^\//, ''))}@${url.hostname}`;
          })()
        : `${connection.database ?? ''}@${connection.host ?? ''}`;
  const hash = createHash('sha256').update(databaseIdentity(database)).digest('hex').slice(0, 12);
  return path.join(DEMO_KEYS_DIR, `${readable(client)}-${readable(name)}-${hash}`);
};

/** What the demo needs of the keys service. */
export type DemoKeysService = {
  authenticate: (token: string) => Promise<unknown>;
  create: (input: { name: string; description: string; grants: 'all' }) => Promise<{ plaintext: string }>;
};

export const DEMO_KEY_NAME = 'Demo key (every resource, every action)';

export type DemoKey = {
  key: string;
  /** The file it is kept in, relative to the root. */
  file: string;
  /** Reused from this database's file, adopted from the one file of before (it works here), or created. */
  state: 'reused' | 'adopted' | 'created';
};

const readKey = (file: string): string | null => {
  try {
    return fs.readFileSync(file, 'utf8').trim() || null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
};

const keep = (file: string, key: string) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Kept only so that the next demo run can print it again; the database stores its HMAC alone.
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
};

/**
 * This database's demo key while it still works; else the key of the one file of before when it works on
 * this database (that file is left for the database it may belong to); else a new key. Another database's
 * file is never read or written.
 */
export const ensureDemoKey = async (root: string, database: DatabaseConnection, keys: DemoKeysService): Promise<DemoKey> => {
  const file = demoKeyFile(database);
  const own = readKey(path.join(root, file));
  if (own && (await keys.authenticate(own))) return { key: own, file, state: 'reused' };
  const legacy = readKey(path.join(root, LEGACY_DEMO_KEY_FILE));
  if (legacy && (await keys.authenticate(legacy))) {
    keep(path.join(root, file), legacy);
    return { key: legacy, file, state: 'adopted' };
  }
  const { plaintext } = await keys.create({
    name: DEMO_KEY_NAME,
    description: 'Created by npm run demo: every resource that existed then, every action, every field.',
    grants: 'all',
  });
  keep(path.join(root, file), plaintext);
  return { key: plaintext, file, state: 'created' };
};

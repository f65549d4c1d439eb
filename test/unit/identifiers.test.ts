/**
 * Names in the plugin's raw SQL, quoted per database (database/identifiers.ts) and index statements
 * (database/ensure-index.ts): any name stays one identifier on every database, whatever characters it
 * holds, without ANSI_QUOTES on MySQL and MariaDB.
 */
import Database from 'better-sqlite3';
import fc from 'fast-check';
import type { DatabaseClient } from '../../src/plugins/public-api/server/src/database/connection';
import { createIndexStatement } from '../../src/plugins/public-api/server/src/database/ensure-index';
import { identifierQuoter, quoteIdentifier } from '../../src/plugins/public-api/server/src/database/identifiers';

const CLIENTS: DatabaseClient[] = ['sqlite', 'postgres', 'mysql'];
const QUOTE: Record<DatabaseClient, string> = { sqlite: '"', postgres: '"', mysql: '`' };

/**
 * Reads one quoted identifier at the start of `sql` the way the database's lexer does (a doubled quote is
 * the quote itself; the first single one ends the name): the name and the SQL left after it.
 */
const readIdentifier = (client: DatabaseClient, sql: string): { name: string; rest: string } => {
  const quote = QUOTE[client];
  if (sql[0] !== quote) throw new Error(`not a quoted identifier: ${sql}`);
  let name = '';
  for (let i = 1; i < sql.length; i += 1) {
    if (sql[i] !== quote) name += sql[i];
    else if (sql[i + 1] === quote) {
      name += quote;
      i += 1;
    } else return { name, rest: sql.slice(i + 1) };
  }
  throw new Error(`unterminated identifier: ${sql}`);
};

// Names of any characters (NUL aside: no database takes it in a name), quotes of every kind included.
const names = fc
  .string({
    unit: fc.oneof(fc.constantFrom('"', '`', "'", '\\', ' ', ';', '-', '.'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })),
    minLength: 1,
    maxLength: 40,
  })
  .filter((name) => !name.includes('\u0000'));

test.each(CLIENTS)('any name round-trips through the quoting of %s, as one identifier', (client) => {
  fc.assert(
    fc.property(names, (name) => {
      const quoted = quoteIdentifier(client, name);
      // The whole name is read back, and nothing of it is left over as SQL.
      expect(readIdentifier(client, quoted)).toEqual({ name, rest: '' });
      // Followed by more SQL, the identifier still ends where the quoting says.
      expect(readIdentifier(client, `${quoted} IS NULL`)).toEqual({ name, rest: ' IS NULL' });
    }),
  );
});

test('MySQL and MariaDB quote with backticks, so a name never reads as a string without ANSI_QUOTES', () => {
  expect(quoteIdentifier('mysql', 'published_at')).toBe('`published_at`');
  expect(quoteIdentifier('mysql', 'a`b"c')).toBe('`a``b"c`');
  expect(quoteIdentifier('postgres', 'a`b"c')).toBe('"a`b""c"');
  expect(quoteIdentifier('sqlite', 'order')).toBe('"order"');
  expect(identifierQuoter('mysql')('order')).toBe('`order`');
});

test('SQLite itself reads every quoted name back as it was', () => {
  const db = new Database(':memory:');
  try {
    fc.assert(
      fc.property(names, (name) => {
        // The statement's column names, as SQLite reports them (not a row's keys: `__proto__` is no own key of an object).
        const columns = db.prepare(`SELECT 1 AS ${quoteIdentifier('sqlite', name)}`).columns();
        expect(columns.map((column) => column.name)).toEqual([name]);
      }),
      { numRuns: 200 },
    );
  } finally {
    db.close();
  }
});

describe('index statements', () => {
  const index = { name: 'events_pda_order', table: 'events', columns: ['"published_at"', '"title"'] };

  test('IF NOT EXISTS where the database has it; MySQL 8 has not (ensureIndex looks the index up first)', () => {
    expect(createIndexStatement('sqlite', index)).toBe(
      'CREATE INDEX IF NOT EXISTS "events_pda_order" ON "events" ("published_at", "title")',
    );
    expect(createIndexStatement('postgres', { ...index, unique: true })).toBe(
      'CREATE UNIQUE INDEX IF NOT EXISTS "events_pda_order" ON "events" ("published_at", "title")',
    );
    const mysql = { ...index, columns: ['`published_at`', '`title`'] };
    expect(createIndexStatement('mysql', mysql)).toBe('CREATE INDEX `events_pda_order` ON `events` (`published_at`, `title`)');
    expect(createIndexStatement('mysql', { ...mysql, unique: true })).toMatch(/^CREATE UNIQUE INDEX `events_pda_order` ON/);
  });

  test('a partial index on SQLite and PostgreSQL; refused for MySQL and MariaDB, which have none', () => {
    expect(createIndexStatement('postgres', { ...index, where: '"published_at" IS NOT NULL' })).toMatch(
      /\) WHERE "published_at" IS NOT NULL$/,
    );
    expect(() => createIndexStatement('mysql', { ...index, where: '1 = 1' })).toThrow(/no partial index/);
  });

  test('SQLite makes the index a statement describes, and a second run is no error', () => {
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE "we""ird" ("order" integer, "id" integer)');
      const weird = { name: 'we"ird_pda', table: 'we"ird', columns: ['order', 'id'].map(identifierQuoter('sqlite')) };
      db.exec(createIndexStatement('sqlite', weird));
      db.exec(createIndexStatement('sqlite', weird));
      const indexes = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?`).all('we"ird');
      expect(indexes).toEqual([{ name: 'we"ird_pda' }]);
    } finally {
      db.close();
    }
  });
});

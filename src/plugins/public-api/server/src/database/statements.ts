/**
 * The read path's SQL, built once per query shape and run without knex's query builder (issue 16).
 *
 * A read names its shape (everything its SQL text depends on: resource, columns, locale, sort, filters,
 * limit, the number of ids, which keyset values are null) and hands over the values that vary within the
 * shape (ids, slugs, keyset positions) as parameters. The first time a shape is seen, knex builds it once
 * with a placeholder for every parameter; the SQL text and the order of its bindings (placeholders and
 * constants) are kept as the shape's template. Every later read of the shape fills the template with its
 * values and runs it on a connection of the pool Strapi's knex holds (acquired and released around the
 * statement, or on SQLite one nobody holds used at once: database/idle-connection.ts), or on SQLite on
 * the read-only connection reads have of their own (database/sqlite-reader.ts):
 *
 * - SQLite: each connection keeps its better-sqlite3 prepared statements, by SQL text, so a statement is
 *   prepared once per connection and shape instead of on every query; its text is written so that SQLite
 *   also plans it once (database/sqlite-stable-plans.ts: LIMITs as digits, other placeholders `+?`).
 * - PostgreSQL: each connection keeps named prepared statements (`pda_<hash of the SQL>`), so the server
 *   parses and plans a shape once per connection instead of on every query (measured: 250-450 µs a query
 *   against 380-760 µs unnamed, on the shared machine). pg would keep every name for the connection's
 *   life; the runner keeps at most its cap per connection and `DEALLOCATE`s the least recently used.
 *
 * - MySQL and MariaDB: the kept SQL text is sent as it is, the values in their place (mysql2's text
 *   protocol, whose answers Strapi's typeCast reads: booleans, decimals, dates). The server parses each
 *   statement; the saving is knex's building, not the server's planning.
 *
 * Both caches are LRUs with a cap (shapes come from client input: filters, sort, fieldsets, limits). A
 * shape whose SQL would carry a parameter other than as a whole binding (a placeholder inside a pattern,
 * say) is not templated: it is built with its values every time, as before. Inside a transaction (a
 * write reading back what it wrote) reads go through knex and the transaction, as before.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { idleConnection, type PooledClient } from './idle-connection';
import { stablePlanStatement, type Slot } from './sqlite-stable-plans';
import { createLru, type Lru } from '../utils/lru';

/** How many query shapes are kept (SQL text and binding order). */
export const SHAPE_CAPACITY = 1000;
/** How many prepared statements each connection keeps: SQLite's in this process, PostgreSQL's on the server. */
export const STATEMENTS_PER_CONNECTION = { sqlite: 500, postgres: 200, mysql: 0 } as const;

/** Builds the query of a shape; `param(i)` stands for the i-th value wherever the query binds it. */
export type ShapeBuilder = (param: (index: number) => Knex.Value) => Knex.QueryBuilder;

type Template = { sql: string; slots: Slot[] } | { templated: false };

type Joined = { trx: Knex.Transaction; own: boolean };
type SqliteStatement = { all: (...bindings: unknown[]) => unknown[]; reader: boolean };
type SqliteConnection = { prepare: (sql: string) => SqliteStatement };
type PgConnection = {
  query: (config: string | { name?: string; text: string; values?: unknown[] }) => Promise<{ rows: unknown[] }>;
  /** pg's record of the statements this connection has prepared (name -> text). */
  connection?: { parsedStatements?: Record<string, string> };
};

type MysqlConnection = {
  query: (sql: string, values: unknown[], done: (error: Error | null, rows: unknown) => void) => void;
};

type KnexClient = PooledClient & {
  acquireConnection: () => Promise<unknown>;
  releaseConnection: (connection: unknown) => unknown;
};

export type StatementRunnerOptions = {
  /** The pool's knex (not a transaction's). */
  knex: () => Knex;
  /**
   * The transaction in progress, when a read runs inside one: `own` when the query's builder was made on
   * it already (the plugin's transactions), else the builder is made to join it.
   */
  transaction: () => Joined | null | Promise<Joined>;
  client: 'sqlite' | 'postgres' | 'mysql';
  /**
   * Runs a query built with its values outside a transaction, when reads have a connection of their own
   * (SQLite's read-only one, database/sqlite-reader.ts); else it runs where its builder was made.
   */
  readOutside?: (builder: Knex.QueryBuilder) => Promise<unknown>;
  shapeCapacity?: number;
  statementsPerConnection?: number;
};

/** As knex's better-sqlite3 client passes values: dates as epoch milliseconds, booleans as 0/1. */
const sqliteValue = (value: unknown) => (value instanceof Date ? value.valueOf() : typeof value === 'boolean' ? Number(value) : value);

export const createStatementRunner = (options: StatementRunnerOptions) => {
  const shapeCapacity = options.shapeCapacity ?? SHAPE_CAPACITY;
  const statementsPerConnection = options.statementsPerConnection ?? STATEMENTS_PER_CONNECTION[options.client];
  const shapes: Lru<string, Template> = createLru(shapeCapacity);
  const statements = new WeakMap<object, Lru<string, SqliteStatement>>();
  const pgNames = new WeakMap<object, { names: Lru<string, true>; evicted: string[] }>();
  // Placeholders no value a client sends can equal: a NUL (refused in any request) and a random nonce.
  const marker = `\u0000pda-param-${randomBytes(8).toString('hex')}-`;
  const stats = { built: 0, prepared: 0, templated: 0 };

  const compile = (build: ShapeBuilder): Template => {
    stats.built += 1;
    const asked = new Set<number>();
    const compiled = build((index) => {
      asked.add(index);
      return `${marker}${index}`;
    }).toSQL();
    const native = options.client === 'postgres' ? compiled.toNative() : compiled;
    if (native.sql.includes(marker)) return { templated: false };
    const slots: Slot[] = [];
    for (const binding of native.bindings as unknown[]) {
      if (typeof binding === 'string' && binding.includes(marker)) {
        const index = Number(binding.slice(marker.length));
        if (!binding.startsWith(marker) || !Number.isInteger(index) || `${marker}${index}` !== binding) return { templated: false };
        slots.push({ param: index });
      } else {
        slots.push({ constant: binding });
      }
    }
    // A parameter knex dropped or rewrote (a limit it parsed, say) would leave the SQL without its value.
    const bound = new Set(slots.flatMap((slot) => ('param' in slot ? [slot.param] : [])));
    if ([...asked].some((index) => !bound.has(index))) return { templated: false };
    // SQLite would plan the statement again on every run (database/sqlite-stable-plans.ts).
    return options.client === 'sqlite' ? stablePlanStatement(native.sql, slots) : { sql: native.sql, slots };
  };

  const prepared = (connection: SqliteConnection, sql: string): SqliteStatement => {
    let cache = statements.get(connection);
    if (!cache) {
      cache = createLru(statementsPerConnection);
      statements.set(connection, cache);
    }
    let statement = cache.get(sql);
    if (!statement) {
      stats.prepared += 1;
      statement = connection.prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  };

  /** Runs a named statement on a pg connection, preparing it there first when new; evicts over the cap. */
  const runPg = async (connection: PgConnection, sql: string, values: unknown[]) => {
    let kept = pgNames.get(connection);
    if (!kept) {
      const evicted: string[] = [];
      kept = { names: createLru(statementsPerConnection, (evictedName) => evicted.push(evictedName)), evicted };
      pgNames.set(connection, kept);
    }
    const name = `pda_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    if (!kept.names.get(name)) {
      stats.prepared += 1;
      kept.names.set(name, true);
      for (const old of kept.evicted.splice(0)) {
        // A statement whose preparation failed was never kept by the server: nothing to release.
        await connection.query(`DEALLOCATE "${old}"`).catch(() => undefined);
        if (connection.connection?.parsedStatements) delete connection.connection.parsedStatements[old];
      }
    }
    return (await connection.query({ name, text: sql, values })).rows;
  };

  const runMysql = (connection: MysqlConnection, sql: string, values: unknown[]) =>
    new Promise<unknown[]>((resolve, reject) =>
      connection.query(sql, values, (error, rows) => (error ? reject(error) : resolve(rows as unknown[]))),
    );

  const runSqlite = (connection: SqliteConnection, sql: string, bindings: unknown[]): unknown[] => {
    const statement = prepared(connection, sql);
    if (!statement.reader) throw new Error('Only reads run through the statement cache.');
    return statement.all(...bindings.map(sqliteValue));
  };

  const execute = async (sql: string, bindings: unknown[]): Promise<unknown[]> => {
    const knex = options.knex() as unknown as { client: KnexClient; emit: (event: string, ...data: unknown[]) => boolean };
    const { client } = knex;
    // What knex tells its listeners of a query it runs and of its answer (query logging, tests counting
    // queries and the rows they returned).
    const query = { method: 'select', sql, bindings };
    knex.emit('query', query);
    // SQLite: a statement on a connection nobody holds runs at once, without the pool's round trip
    // (database/idle-connection.ts); better-sqlite3 runs it to its end before anything else can run.
    const idle = options.client === 'sqlite' ? idleConnection(client) : null;
    let rows: unknown[];
    if (idle) rows = runSqlite(idle as SqliteConnection, sql, bindings);
    else {
      const connection = await client.acquireConnection();
      try {
        rows =
          options.client === 'postgres'
            ? await runPg(connection as PgConnection, sql, bindings)
            : options.client === 'mysql'
              ? await runMysql(connection as MysqlConnection, sql, bindings)
              : runSqlite(connection as SqliteConnection, sql, bindings);
      } finally {
        await client.releaseConnection(connection);
      }
    }
    knex.emit('query-response', rows, query);
    return rows;
  };

  return {
    /**
     * The rows of the query `build` makes for `shape`, with `values` in place of its parameters. A null
     * shape (or a read inside a transaction) builds the query with its values and runs it through knex.
     */
    async rows<T = Record<string, unknown>>(shape: string | null, values: readonly unknown[], build: ShapeBuilder): Promise<T[]> {
      const pending = options.transaction();
      const transaction = pending instanceof Promise ? await pending : pending;
      if (shape === null || transaction) {
        const builder = build((index) => values[index] as Knex.Value);
        // Also a builder of the plugin's own transaction: not every caller makes its builder on it (the
        // registry reads websites on the pool), and on SQLite's one connection such a read would wait for
        // the transaction that holds it forever. On a builder made on the transaction this changes nothing.
        if (transaction) builder.transacting(transaction.trx);
        else if (options.readOutside) return (await options.readOutside(builder)) as T[];
        return (await builder) as T[];
      }
      let template = shapes.get(shape);
      if (!template) {
        template = compile(build);
        shapes.set(shape, template);
      }
      if (!('sql' in template)) {
        const builder = build((index) => values[index] as Knex.Value);
        return (await (options.readOutside ? options.readOutside(builder) : builder)) as T[];
      }
      stats.templated += 1;
      const { slots } = template;
      const bindings = slots.map((slot) => ('param' in slot ? values[slot.param] : slot.constant));
      return (await execute(template.sql, bindings)) as T[];
    },

    /** How many shapes and (on this connection kind) statements are kept, and how often each was made. */
    stats: () => ({ ...stats, shapes: shapes.size }),

    /** Forgets every shape (statements follow their connections). */
    clear: () => shapes.clear(),
  };
};

export type StatementRunner = ReturnType<typeof createStatementRunner>;

/**
 * The read path's SQL, built once per query shape and run without knex's query builder (issue 16).
 *
 * A read names its shape (everything its SQL text depends on: resource, columns, locale, sort, filters,
 * limit, the number of ids, which keyset values are null) and hands over the values that vary within the
 * shape (ids, slugs, keyset positions) as parameters. The first time a shape is seen, knex builds it once
 * with a placeholder for every parameter; the SQL text and the order of its bindings (placeholders and
 * constants) are kept as the shape's template. Every later read of the shape fills the template with its
 * values and runs it on a connection of the pool Strapi's knex holds (acquired and released around the
 * statement; no second pool):
 *
 * - SQLite: each connection keeps its better-sqlite3 prepared statements, by SQL text, so a statement is
 *   prepared once per connection and shape instead of on every query.
 * - PostgreSQL: the template's text and values go to the pg client of a pooled connection as an unnamed
 *   statement (the server plans it; pg's named statements would stay on the server for the connection's
 *   life with no bound, and a read's plan depends on its values).
 *
 * Both caches are LRUs with a cap (shapes come from client input: filters, sort, fieldsets, limits). A
 * shape whose SQL would carry a parameter other than as a whole binding (a placeholder inside a pattern,
 * say) is not templated: it is built with its values every time, as before. Inside a transaction (a
 * write reading back what it wrote) reads go through knex and the transaction, as before.
 */
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { createLru, type Lru } from './lru';

/** How many query shapes are kept (SQL text and binding order). */
export const SHAPE_CAPACITY = 1000;
/** How many prepared statements each SQLite connection keeps. */
export const STATEMENTS_PER_CONNECTION = 500;

/** Builds the query of a shape; `param(i)` stands for the i-th value wherever the query binds it. */
export type ShapeBuilder = (param: (index: number) => Knex.Value) => Knex.QueryBuilder;

type Slot = { param: number } | { constant: unknown };
type Template = { sql: string; slots: Slot[] } | { templated: false };

type Joined = { trx: Knex.Transaction; own: boolean };
type SqliteStatement = { all: (...bindings: unknown[]) => unknown[]; reader: boolean };
type SqliteConnection = { prepare: (sql: string) => SqliteStatement };
type PgConnection = { query: (config: { text: string; values: unknown[] }) => Promise<{ rows: unknown[] }> };

type KnexClient = {
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
  client: 'sqlite' | 'postgres';
  shapeCapacity?: number;
  statementsPerConnection?: number;
};

/** As knex's better-sqlite3 client passes values: dates as epoch milliseconds, booleans as 0/1. */
const sqliteValue = (value: unknown) => (value instanceof Date ? value.valueOf() : typeof value === 'boolean' ? Number(value) : value);

export const createStatementRunner = (options: StatementRunnerOptions) => {
  const shapeCapacity = options.shapeCapacity ?? SHAPE_CAPACITY;
  const statementsPerConnection = options.statementsPerConnection ?? STATEMENTS_PER_CONNECTION;
  const shapes: Lru<string, Template> = createLru(shapeCapacity);
  const statements = new WeakMap<object, Lru<string, SqliteStatement>>();
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
    return { sql: native.sql, slots };
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

  const execute = async (sql: string, bindings: unknown[]): Promise<unknown[]> => {
    const knex = options.knex() as unknown as { client: KnexClient; emit: (event: string, data: unknown) => boolean };
    const { client } = knex;
    // What knex tells its listeners of a query it runs (query logging, tests counting queries).
    knex.emit('query', { method: 'select', sql, bindings });
    const connection = await client.acquireConnection();
    try {
      if (options.client === 'postgres') return (await (connection as PgConnection).query({ text: sql, values: bindings })).rows;
      const statement = prepared(connection as SqliteConnection, sql);
      if (!statement.reader) throw new Error('Only reads run through the statement cache.');
      return statement.all(...bindings.map(sqliteValue));
    } finally {
      await client.releaseConnection(connection);
    }
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
        if (transaction && !transaction.own) builder.transacting(transaction.trx);
        return (await builder) as T[];
      }
      let template = shapes.get(shape);
      if (!template) {
        template = compile(build);
        shapes.set(shape, template);
      }
      if (!('sql' in template)) return (await build((index) => values[index] as Knex.Value)) as T[];
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

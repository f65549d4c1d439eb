/**
 * rate-limiter-flexible's SQLite limiter (on Strapi's knex, better-sqlite3), with its two statements
 * prepared once per connection instead of on every call (issue 16).
 *
 * The library prepares its upsert and its read again on every count and every peek, and wraps the upsert
 * (one `INSERT ... ON CONFLICT ... RETURNING` statement, atomic on its own) in a transaction of its own:
 * under a flood of one key, the preparing alone was 5% of the process's CPU and the transaction 2% more
 * (CPU profile of the single-record read). This class runs the very same SQL on the same table, so
 * counters stay shared by every instance on the database and are committed at every request (contract
 * section 13): only the preparing and the extra BEGIN/COMMIT are gone, SQLite planning the upsert
 * again at every run (its placeholders are written `+?`: 30 -> 15 us a count, commit included), and the
 * pool's round trip when the connection is idle (database/idle-connection.ts).
 *
 * It overrides two of the library's internal methods (`_upsertTransaction`, `_get`), which its type
 * declarations do not name; the library is pinned to an exact version in package.json, and the rate
 * limit tests (test/api/rate-limits*.test.ts, test/unit/sqlite-rate-limiter.test.ts) fail if its
 * internals move. Any other SQLite driver than better-sqlite3 goes to the library's own code.
 */
import { RateLimiterSQLite } from 'rate-limiter-flexible';
import { idleConnection, type PooledClient } from './idle-connection';
import { stablePlanSql } from './sqlite-stable-plans';

type Statement = { get: (...bindings: unknown[]) => unknown };
type Connection = { prepare: (sql: string) => Statement };
type Counter = { points: number; expire: number | null };

/** What the library keeps on the instance and its methods this class uses (internal, untyped upstream). */
type LibraryInternals = {
  tableName: string;
  /** The store client: Strapi's knex. */
  client: { client?: PooledClient };
  _internalStoreType: string | null;
  _getConnection: () => Promise<Connection>;
  _releaseConnection: (connection: Connection) => void;
};

/** The SQL of RateLimiterSQLite 11.4 `_upsertTransaction` (not forced) and `_get`, for one table. */
export const counterSql = (table: string) => ({
  upsert: `INSERT INTO ${table} (key, points, expire)
         VALUES (?, ?, ?)
         ON CONFLICT(key) DO UPDATE SET
           points = CASE WHEN expire IS NULL OR expire > ? THEN points + excluded.points ELSE excluded.points END,
           expire = CASE WHEN expire IS NULL OR expire > ? THEN expire ELSE excluded.expire END
         RETURNING points, expire`,
  read: `SELECT points, expire FROM ${table} WHERE key = ? AND (expire > ? OR expire IS NULL)`,
});

export class PreparedRateLimiterSQLite extends RateLimiterSQLite {
  /** Per connection: its prepared upsert and read (a connection closed by the pool takes them along). */
  private readonly prepared = new WeakMap<Connection, { upsert: Statement; read: Statement }>();

  private get internals(): LibraryInternals {
    return this as unknown as LibraryInternals;
  }

  private statementsOf(connection: Connection) {
    let statements = this.prepared.get(connection);
    if (!statements) {
      const sql = counterSql(this.internals.tableName);
      // Placeholders as `+?`, or SQLite plans the upsert again on every run (database/sqlite-stable-plans.ts).
      statements = { upsert: connection.prepare(stablePlanSql(sql.upsert)), read: connection.prepare(stablePlanSql(sql.read)) };
      this.prepared.set(connection, statements);
    }
    return statements;
  }

  /** Whether this instance runs on better-sqlite3, where the prepared statements apply. */
  private get prepares(): boolean {
    return this.internals._internalStoreType === 'better-sqlite3';
  }

  async _upsertTransaction(rlKey: string, points: number, msDuration: number, forceExpire: boolean): Promise<Counter> {
    // `forceExpire` (set/block, which the plugin never calls) keeps the library's own statement.
    if (!this.prepares || forceExpire) {
      const library = RateLimiterSQLite.prototype as unknown as { _upsertTransaction: PreparedRateLimiterSQLite['_upsertTransaction'] };
      return library._upsertTransaction.call(this, rlKey, points, msDuration, forceExpire);
    }
    const now = Date.now();
    const expire = msDuration > 0 ? now + msDuration : null;
    return this.onConnection((connection) => this.statementsOf(connection).upsert.get(rlKey, points, expire, now, now) as Counter);
  }

  async _get(rlKey: string): Promise<Counter | null> {
    if (!this.prepares) {
      const library = RateLimiterSQLite.prototype as unknown as { _get: PreparedRateLimiterSQLite['_get'] };
      return library._get.call(this, rlKey);
    }
    return this.onConnection((connection) => (this.statementsOf(connection).read.get(rlKey, Date.now()) as Counter | undefined) ?? null);
  }

  /**
   * Runs one statement (synchronous, better-sqlite3) on a connection nobody holds at once, else on one
   * acquired from the pool (database/idle-connection.ts).
   */
  private async onConnection<T>(run: (connection: Connection) => T): Promise<T> {
    const pool = this.internals.client.client;
    const idle = pool ? (idleConnection(pool) as Connection | null) : null;
    if (idle) return run(idle);
    const connection = await this.internals._getConnection();
    try {
      return run(connection);
    } finally {
      this.internals._releaseConnection(connection);
    }
  }
}

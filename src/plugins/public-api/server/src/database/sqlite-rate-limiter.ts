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
 *
 * **A count never waits for a writer** (issue 34). A count is a write, and SQLite has one writer: while a
 * write's transaction holds Strapi's one connection (an atomic request of 100 operations: seconds), a
 * count on it would wait, and every request of every key with it. When that connection is busy, a count
 * reads the stored counter on the read-only connection (database/sqlite-reader.ts), adds the points
 * counted here since (held in this process, per counter) and answers at once; the held points are written
 * by one upsert per counter as soon as the connection is free (the next count that finds it idle, or a
 * flush waiting its turn for it), in the same synchronous step that takes them out, so no point is
 * counted twice or lost. With one process per database file (how SQLite is deployed: docs/deployment.md)
 * the count answered is exact. Several processes on one file would each miss the others' held points
 * until the writer is free: at most one write transaction's duration (the atomic time limit) of requests.
 * Points held when the process stops are not written (a window is at most a few minutes; a limiter is a
 * guard, not an account).
 */
import { RateLimiterSQLite } from 'rate-limiter-flexible';
import { idleConnection, type PooledClient } from './idle-connection';
import { openedSqliteReader } from './sqlite-reader';
import { stablePlanSql } from './sqlite-stable-plans';

type Statement = { get: (...bindings: unknown[]) => unknown };
type Connection = { prepare: (sql: string) => Statement };
type Counter = { points: number; expire: number | null };
/** Points counted while the writer's connection was busy, not written yet, and the window they count in. */
type Held = { points: number; expire: number | null };

/** How long a failed write of held points waits before it is tried again. */
const HELD_RETRY_MS = 1_000;

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

  /** Per read-only connection: its prepared read (the upsert is never prepared there). */
  private readonly readOnly = new WeakMap<Connection, Statement>();

  /** Points counted while the writer was busy, by counter (see the header). */
  private readonly held = new Map<string, Held>();

  /** The flush waiting for the writer's connection, if any. */
  private flushing: Promise<void> | null = null;

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
    const pool = this.internals.client.client;
    const idle = pool ? (idleConnection(pool) as Connection | null) : null;
    if (idle) {
      this.writeHeld(idle, now);
      return this.statementsOf(idle).upsert.get(rlKey, points, expire, now, now) as Counter;
    }
    // The writer's connection is busy: count here, from what is stored (committed) plus what is held, in
    // one synchronous step with the read (a flush cannot run between them).
    const counted = await this.onReader((statement): Counter => {
      const stored = (statement.get(rlKey, now) as Counter | undefined) ?? null;
      let held = this.held.get(rlKey);
      if (!held || (held.expire !== null && held.expire <= now)) {
        held = { points: 0, expire: stored ? stored.expire : expire };
        this.held.set(rlKey, held);
      }
      held.points += points;
      return { points: (stored?.points ?? 0) + held.points, expire: stored ? stored.expire : held.expire };
    });
    if (!counted)
      return this.onConnection((connection) => this.statementsOf(connection).upsert.get(rlKey, points, expire, now, now) as Counter);
    this.flushWhenFree();
    return counted.value;
  }

  /**
   * Runs `read` (synchronous) on the read-only connection of this database, if it has one
   * (database/sqlite-reader.ts): `{ value }`, or null without one.
   */
  private async onReader<T>(read: (statement: Statement) => T): Promise<{ value: T } | null> {
    const reader = openedSqliteReader(this.internals.client);
    if (!reader) return null;
    const pool = reader.client as unknown as PooledClient & {
      acquireConnection: () => Promise<unknown>;
      releaseConnection: (connection: unknown) => unknown;
    };
    const statement = (connection: Connection) => {
      let cached = this.readOnly.get(connection);
      if (!cached) {
        cached = connection.prepare(stablePlanSql(counterSql(this.internals.tableName).read));
        this.readOnly.set(connection, cached);
      }
      return cached;
    };
    const idle = idleConnection(pool) as Connection | null;
    if (idle) return { value: read(statement(idle)) };
    const connection = (await pool.acquireConnection()) as Connection;
    try {
      return { value: read(statement(connection)) };
    } finally {
      await pool.releaseConnection(connection);
    }
  }

  /**
   * Writes the held points, one upsert per counter, on a connection this step holds (or nobody holds):
   * synchronous, so a count cannot slip between taking them out and writing them. Points of a window that
   * ended are dropped (the window's count no longer matters).
   */
  private writeHeld(connection: Connection, now: number): void {
    if (this.held.size === 0) return;
    const statements = this.statementsOf(connection);
    const held = [...this.held];
    this.held.clear();
    for (const [index, [rlKey, { points, expire }]] of held.entries()) {
      if (expire !== null && expire <= now) continue;
      try {
        statements.upsert.get(rlKey, points, expire, now, now);
      } catch (error) {
        // Not written (the file busy in another process, say): held again, and tried again later.
        for (const [key, value] of held.slice(index)) this.hold(key, value);
        setTimeout(() => this.flushWhenFree(), HELD_RETRY_MS).unref();
        throw error;
      }
    }
  }

  /** Adds points back to what is held for a counter (a failed write). */
  private hold(rlKey: string, value: Held): void {
    const current = this.held.get(rlKey);
    if (current && current.expire === value.expire) current.points += value.points;
    else if (!current) this.held.set(rlKey, { ...value });
  }

  /** Writes the held points once the writer's connection is free: waits its turn for it in the pool. */
  private flushWhenFree(): void {
    if (this.flushing || this.held.size === 0) return;
    this.flushing = this.onConnection((connection) => this.writeHeld(connection, Date.now()))
      .catch(() => undefined)
      .finally(() => {
        this.flushing = null;
      });
  }

  async _get(rlKey: string): Promise<Counter | null> {
    if (!this.prepares) {
      const library = RateLimiterSQLite.prototype as unknown as { _get: PreparedRateLimiterSQLite['_get'] };
      return library._get.call(this, rlKey);
    }
    const now = Date.now();
    // A read: on the read-only connection, plus the points held here (see the header).
    const read = await this.onReader((statement): Counter | null => {
      const stored = (statement.get(rlKey, now) as Counter | undefined) ?? null;
      const held = this.held.get(rlKey);
      if (!held || (held.expire !== null && held.expire <= now)) return stored;
      return { points: (stored?.points ?? 0) + held.points, expire: stored ? stored.expire : held.expire };
    });
    if (!read)
      return this.onConnection((connection) => (this.statementsOf(connection).read.get(rlKey, now) as Counter | undefined) ?? null);
    return read.value;
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

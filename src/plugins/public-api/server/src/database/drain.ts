/**
 * Waits, before the database closes, until no query is running or waiting for a connection.
 *
 * Strapi's document service emits its entry events after the transaction commits, without awaiting them,
 * and first reads the entry back with every relation populated (core `document-service/events.js`). A
 * shutdown right after a write (a deploy, a test suite ending) closed the pool under those reads: they
 * waited for a connection that never came and, a minute later, rejected with "Knex: Timeout acquiring a
 * connection" where nothing catches it, in whatever ran in that process by then. Called from the
 * plugin's destroy, which Strapi runs before it closes the database.
 */

/** What drain reads of a tarn pool (knex's): counts only. */
export type PoolCounts = {
  numUsed: () => number;
  numPendingAcquires: () => number;
  numPendingCreates: () => number;
};

export type DrainOptions = {
  /** Give up after this long: a shutdown must not hang on a query that never ends. */
  timeoutMs?: number;
  /** How often the pool is looked at. */
  intervalMs?: number;
  /** Idle looks in a row that count as idle: work scheduled after a commit starts a moment later. */
  quietChecks?: number;
};

const idle = (pool: PoolCounts) => pool.numUsed() === 0 && pool.numPendingAcquires() === 0 && pool.numPendingCreates() === 0;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves true once the pool has been idle `quietChecks` looks in a row, false when the time ran out. */
export const drainPool = async (pool: PoolCounts | undefined, options: DrainOptions = {}): Promise<boolean> => {
  const { timeoutMs = 5_000, intervalMs = 10, quietChecks = 3 } = options;
  if (!pool) return true;
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  for (;;) {
    quiet = idle(pool) ? quiet + 1 : 0;
    if (quiet >= quietChecks) return true;
    if (Date.now() >= deadline) return false;
    await pause(intervalMs);
  }
};

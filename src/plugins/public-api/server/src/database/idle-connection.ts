/**
 * An idle connection of the pool Strapi's knex holds, for a statement that runs synchronously from start
 * to end (better-sqlite3) (issue 16).
 *
 * Acquiring through knex costs a pending operation, two promises, pool events and a release for every
 * statement: on a page of ten records, 4% of the process's CPU (perf profile) went to the pool, for a
 * connection that was idle. A better-sqlite3 statement runs to its end without yielding to the event loop,
 * so while it runs no other code can take, use or give back any connection: on a connection nobody holds,
 * running it without marking the connection taken is the same as acquiring and releasing around it.
 *
 * Only a connection in the pool's free list qualifies. One a transaction holds, or one being handed to an
 * acquirer (tarn moves it to its used list before the acquirer resumes), is never free; when none is free
 * the caller acquires as before and waits its turn. Pool internals read here: tarn 3's `free` list of
 * `{ resource }`, behind knex 3's `client.pool` (both pinned by the lockfile; the statement and rate limit
 * suites run every read through this).
 */

type PoolInternals = { free?: readonly { resource: unknown }[] };

/** The knex client whose pool is read (`knex.client`). */
export type PooledClient = { pool?: PoolInternals | null };

/**
 * A connection nobody holds, or null (none free, or the pool is not one this module knows). Use it only
 * for synchronous work, finished before the caller yields.
 */
export const idleConnection = (client: PooledClient): unknown => {
  const free = client.pool?.free;
  if (!Array.isArray(free) || free.length === 0) return null;
  return free[free.length - 1]!.resource ?? null;
};

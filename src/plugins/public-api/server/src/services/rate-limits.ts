/**
 * The rate limit counters (contract section 13), shared by every instance of the application:
 *
 * - in Redis when `redisUrl` is set (rate-limiter-flexible's RateLimiterRedis on ioredis). When Redis does
 *   not answer, each instance counts in its own memory (the insurance limiter) until it answers again:
 *   limits then hold per instance instead of across them, and requests are never refused because the
 *   counter is unreachable;
 * - else in the database, in the plugin's table `public_api_rate_limits` (RateLimiterPostgres, or on
 *   SQLite RateLimiterSQLite with its two statements prepared once per connection, on MySQL and MariaDB
 *   RateLimiterMySQL, on Strapi's knex connection; every count is still one committed statement, two on
 *   MySQL: an upsert and a read in one transaction);
 * - in this process's memory only when `rateLimitStore` is `memory` (one process, e.g. a demo).
 *
 * A counter is named by its subject (`key:<keyId>` or `address:<ip>`) and its window, and counts the units
 * of every request of the window (one at entry, and what the request's work costs beyond that, charged
 * before the work: `charge`, http/request-cost.ts); the limit is compared at each request, so a changed limit applies on the next
 * request without resetting the count (a changed window starts a new count). A busy key's requests are
 * counted in the store a lease of points at a time (database/rate-leases.ts; `rateLimitLeaseMs`, 0 turns it
 * off); failed authentications are always counted one at a time. If the store fails (the
 * database unreachable) the request is let through and the failure logged: a limiter is a guard, and the
 * request would meet the same failure anyway.
 */
import type { Core } from '@strapi/strapi';
import { Redis } from 'ioredis';
import type { Knex } from 'knex';
import {
  RateLimiterMemory,
  RateLimiterMySQL,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { pluginConfig } from '../config';
import { MAX_REQUESTS, type RateLimit } from '../config/rate-limits';
import { databaseClient } from '../database/connection';
import { PreparedRateLimiterSQLite } from '../database/sqlite-rate-limiter';
import { createRateLeases, type CounterState } from '../database/rate-leases';

export const RATE_LIMIT_TABLE = 'public_api_rate_limits';

/** RateLimiterMySQL's table (the columns its statements name), with keys compared as bytes. */
const MYSQL_RATE_LIMIT_TABLE = `CREATE TABLE IF NOT EXISTS ${RATE_LIMIT_TABLE} (
  \`key\` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
  points int NOT NULL DEFAULT 0,
  expire bigint unsigned,
  INDEX ${RATE_LIMIT_TABLE}_expire (expire)
) ENGINE=InnoDB`;

/** How long a first count waits for Redis to connect before the insurance limiter answers instead. */
const REDIS_CONNECT_WAIT_MS = 2_000;
/** How often the counters table is swept, and how long a row is kept after its window ended. */
const SWEEP_INTERVAL_MS = 5 * 60_000;
const EXPIRED_ROWS_KEPT_MS = 60 * 60_000;
/** A refused charge is not given back within this long of its window's end (the count resets anyway). */
const REFUND_MARGIN_MS = 1_000;

/** Resolves when the client is ready, or after the wait: either way the limiter can be used. */
const redisReady = (client: Redis): Promise<void> =>
  client.status === 'ready'
    ? Promise.resolve()
    : new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          client.off('ready', done);
          resolve();
        };
        const timer = setTimeout(done, REDIS_CONNECT_WAIT_MS);
        timer.unref();
        client.once('ready', done);
      });

/** One counted request: where the subject's counter stands, and whether it is past the limit. */
export type RateLimitCount = { exceeded: boolean; remaining: number; resetMs: number };

export type RateLimitSubject = { kind: 'key' | 'address'; id: string };

const subjectName = (subject: RateLimitSubject) => `${subject.kind}:${subject.id}`;

const countOf = (limit: RateLimit, consumed: number, resetMs: number): RateLimitCount => ({
  exceeded: consumed > limit.requests,
  remaining: Math.max(0, limit.requests - consumed),
  resetMs: Math.max(0, resetMs),
});

export default ({ strapi }: { strapi: Core.Strapi }) => {
  /** One limiter per window length; its counters allow any count and the limit is applied here. */
  const limiters = new Map<number, Promise<RateLimiterAbstract>>();
  let redis: Redis | null = null;
  let tableReady: Promise<void> | null = null;
  let sweep: NodeJS.Timeout | null = null;
  let leases: ReturnType<typeof createRateLeases> | null = null;
  const leasesOf = () => {
    const horizonMs = pluginConfig(strapi).rateLimitLeaseMs;
    if (horizonMs <= 0) return null;
    leases ??= createRateLeases({ horizonMs });
    return leases;
  };

  /**
   * Counters in the table outlive their window (the library updates a row in place, never deletes it):
   * every few minutes, rows whose window ended over an hour ago go, so the table does not grow with every
   * client address that ever failed to authenticate. A failed sweep is logged and tried again later.
   */
  /** Removes the counters whose window ended over an hour ago; the number of rows removed. */
  const sweepExpired = (knex: Knex, now = Date.now()): Promise<number> =>
    knex(RATE_LIMIT_TABLE)
      .where('expire', '<', now - EXPIRED_ROWS_KEPT_MS)
      .del();

  const startSweep = (knex: Knex) => {
    if (sweep) return;
    sweep = setInterval(() => {
      sweepExpired(knex).catch((error: Error) =>
        strapi.log.warn(`[public-api] rate limits: could not remove expired counters: ${error.message}`),
      );
    }, SWEEP_INTERVAL_MS);
    sweep.unref();
  };

  const prefixFor = (window: number) => `${pluginConfig(strapi).rateLimitPrefix}:w${window}`;

  const redisClient = (url: string): Redis => {
    // No offline queue: while Redis is away a count fails at once and the insurance limiter answers.
    if (redis) return redis;
    redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    redis.on('error', (error: Error) => strapi.log.warn(`[public-api] rate limits: Redis: ${error.message}`));
    return redis;
  };

  const databaseLimiter = (window: number): Promise<RateLimiterAbstract> => {
    const knex = strapi.db.connection as unknown as Knex;
    const options = {
      storeClient: knex,
      storeType: 'knex',
      tableName: RATE_LIMIT_TABLE,
      keyPrefix: prefixFor(window),
      points: MAX_REQUESTS,
      duration: window,
    };
    // On SQLite, the library's limiter with its statements prepared once (database/sqlite-rate-limiter.ts).
    const client = databaseClient(strapi);
    const Limiter = client === 'postgres' ? RateLimiterPostgres : client === 'mysql' ? RateLimiterMySQL : PreparedRateLimiterSQLite;
    if (client === 'mysql') {
      // RateLimiterMySQL names its table by database, and would create a database of its own otherwise.
      Object.assign(options, { dbName: (strapi.db.config.connection as { connection: { database: string } }).connection.database });
    }
    // The callback says when the table exists (with `tableCreated`, before the constructor returns).
    const create = async (tableCreated: boolean): Promise<RateLimiterAbstract> => {
      let limiter: RateLimiterAbstract | undefined;
      await new Promise<void>((resolve, reject) => {
        limiter = new Limiter({ ...options, tableCreated }, (error?: unknown) => (error ? reject(error) : resolve()));
      });
      return limiter!;
    };
    if (!tableReady) {
      // The table is created (if missing) once per process, by the first limiter. On MySQL and MariaDB by
      // the plugin: the library's table keys counters by a case-insensitive utf8 column, where two key ids
      // that differ in case only would share one count; this one compares keys byte for byte.
      const first = client === 'mysql' ? knex.raw(MYSQL_RATE_LIMIT_TABLE).then(() => create(true)) : create(false);
      tableReady = first.then(() => startSweep(knex));
      tableReady.catch(() => (tableReady = null));
      return first;
    }
    return tableReady.then(() => create(true));
  };

  const createLimiter = (window: number): Promise<RateLimiterAbstract> => {
    const config = pluginConfig(strapi);
    const memory = () => new RateLimiterMemory({ keyPrefix: prefixFor(window), points: MAX_REQUESTS, duration: window });
    if (config.redisUrl) {
      const client = redisClient(config.redisUrl);
      // The first counts wait (briefly) for the connection: without an offline queue they would all go to
      // the insurance limiter, each instance counting alone, until Redis answered.
      return redisReady(client).then(
        () =>
          new RateLimiterRedis({
            storeClient: client,
            keyPrefix: prefixFor(window),
            points: MAX_REQUESTS,
            duration: window,
            insuranceLimiter: memory(),
          }),
      );
    }
    if (config.rateLimitStore === 'memory') return Promise.resolve(memory());
    return databaseLimiter(window);
  };

  const limiterFor = (window: number): Promise<RateLimiterAbstract> => {
    let limiter = limiters.get(window);
    if (!limiter) {
      limiter = createLimiter(window);
      limiters.set(window, limiter);
      limiter.catch(() => limiters.delete(window));
    }
    return limiter;
  };

  /** Counts `points` for `name` in the store of `window`-second windows; null when it could not (logged). */
  const countInStore = async (name: string, points: number, window: number): Promise<CounterState | null> => {
    try {
      const result = await (await limiterFor(window)).consume(name, points);
      return { consumed: result.consumedPoints, resetMs: result.msBeforeNext };
    } catch (error) {
      // A limiter rejects with its result when its own points run out (MAX_REQUESTS in one window).
      if (error instanceof RateLimiterRes) return { consumed: error.consumedPoints, resetMs: error.msBeforeNext };
      strapi.log.error(`[public-api] rate limits: could not count a request: ${(error as Error)?.message ?? String(error)}`);
      return null;
    }
  };

  /** Gives `points` back to `name`'s counter (a refused charge); false when it could not (logged). */
  const refundInStore = async (name: string, points: number, window: number): Promise<boolean> => {
    try {
      await (await limiterFor(window)).reward(name, points);
      return true;
    } catch (error) {
      strapi.log.error(`[public-api] rate limits: could not give back a refused charge: ${(error as Error)?.message ?? String(error)}`);
      return false;
    }
  };

  // Leases are per window length too: a changed window starts a new count.
  const leaseName = (name: string, limit: RateLimit) => `w${limit.window}:${name}`;

  return {
    /** Counts one request of `subject` against `limit`; null when the store could not count it (logged). */
    async count(subject: RateLimitSubject, limit: RateLimit): Promise<RateLimitCount | null> {
      const name = subjectName(subject);
      const leased = subject.kind === 'key' ? leasesOf() : null;
      const state = leased
        ? await leased.count(leaseName(name, limit), limit, (_, points) => countInStore(name, points, limit.window))
        : await countInStore(name, 1, limit.window);
      return state ? countOf(limit, state.consumed, state.resetMs) : null;
    },

    /**
     * Charges `points` more to a key's counter for work its request is about to do (http/request-cost.ts),
     * all or nothing: `charged` false when they are more than the key has left, and then nothing of them
     * stays spent. `known` is where the counter stood at the request's own count: points beyond what it
     * had left then are refused without a write to the store (its count only grows within a window). Else
     * they are counted in the store in one count, like a lease, and given back when the count went past
     * the limit meanwhile (another request of the key, on any instance): until given back they count as
     * spent, so a request in that moment may be refused early, never admitted late. Null when the store
     * could not count (logged): the work is let through, as a request is.
     */
    async charge(
      subject: RateLimitSubject,
      limit: RateLimit,
      points: number,
      known: RateLimitCount,
    ): Promise<{ charged: boolean; count: RateLimitCount } | null> {
      if (points <= 0) return { charged: true, count: known };
      if (points > known.remaining) return { charged: false, count: known };
      const name = subjectName(subject);
      const leased = subject.kind === 'key' ? leasesOf() : null;
      // Points this process leased for the key and holds unused are spent first: they are counted already.
      const fromLease = leased?.take(leaseName(name, limit), points) ?? null;
      const taken = fromLease?.taken ?? 0;
      if (fromLease && taken === points) return { charged: true, count: countOf(limit, fromLease.state.consumed, fromLease.state.resetMs) };
      const rest = points - taken;
      const state = await countInStore(name, rest, limit.window);
      if (!state) return null;
      const counted = countOf(limit, state.consumed, state.resetMs);
      if (counted.exceeded) {
        // A window about to end resets the count anyway; a refund there could land in the next window.
        const given = state.resetMs > REFUND_MARGIN_MS && (await refundInStore(name, rest, limit.window));
        if (taken) leased?.giveBack(leaseName(name, limit), taken);
        const after = given ? { consumed: state.consumed - rest, resetMs: state.resetMs } : state;
        const seen = leased ? leased.settle(leaseName(name, limit), after) : after;
        return { charged: false, count: countOf(limit, seen.consumed, seen.resetMs) };
      }
      const seen = leased ? leased.settle(leaseName(name, limit), state) : state;
      return { charged: true, count: countOf(limit, seen.consumed, seen.resetMs) };
    },

    /** Where `subject`'s counter stands without counting (null: nothing counted in this window, or no store). */
    async peek(subject: RateLimitSubject, limit: RateLimit): Promise<RateLimitCount | null> {
      try {
        const result = await (await limiterFor(limit.window)).get(subjectName(subject));
        return result ? countOf(limit, result.consumedPoints, result.msBeforeNext) : null;
      } catch (error) {
        strapi.log.error(`[public-api] rate limits: could not read a counter: ${(error as Error)?.message ?? String(error)}`);
        return null;
      }
    },

    /**
     * What the sweep does every few minutes, on demand: removes the table's counters whose window ended
     * over an hour before `now`. 0 when the counters are not in the database (Redis, memory) or the table
     * does not exist yet.
     */
    async sweepExpired(now = Date.now()): Promise<number> {
      if (!tableReady) return 0;
      await tableReady;
      return sweepExpired(strapi.db.connection as unknown as Knex, now);
    },

    async stop(): Promise<void> {
      if (sweep) clearInterval(sweep);
      sweep = null;
      limiters.clear();
      leases = null;
      const client = redis;
      redis = null;
      // QUIT needs a connection; a client still (re)connecting is simply told to stop trying.
      if (client?.status === 'ready') await client.quit().catch(() => client.disconnect());
      else client?.disconnect();
    },
  };
};

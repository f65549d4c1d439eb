/**
 * Where the rate limit counters are kept (services/rate-limits.ts): a limiter per window length, in Redis
 * with an insurance limiter in memory, in the plugin's table in the database (created once, swept every
 * few minutes), or in memory. Made by the rate-limits service, once per application, and stopped with it.
 */
import type { Core } from '@strapi/strapi';
import { Redis } from 'ioredis';
import type { Knex } from 'knex';
import {
  RateLimiterMemory,
  RateLimiterMySQL,
  RateLimiterPostgres,
  RateLimiterRedis,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { pluginConfig } from '../config';
import { MAX_REQUESTS } from '../config/rate-limits';
import { databaseClient } from '../database/connection';
import { PreparedRateLimiterSQLite } from '../database/sqlite-rate-limiter';

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

export const createLimiterStores = (strapi: Core.Strapi) => {
  /** One limiter per window length; its counters allow any count and the limit is applied here. */
  const limiters = new Map<number, Promise<RateLimiterAbstract>>();
  let redis: Redis | null = null;
  let tableReady: Promise<void> | null = null;
  let sweep: NodeJS.Timeout | null = null;

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

  return {
    limiterFor,

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

    /** Stops the sweep, forgets the limiters and closes the Redis client. */
    async stop(): Promise<void> {
      if (sweep) clearInterval(sweep);
      sweep = null;
      limiters.clear();
      const client = redis;
      redis = null;
      // QUIT needs a connection; a client still (re)connecting is simply told to stop trying.
      if (client?.status === 'ready') await client.quit().catch(() => client.disconnect());
      else client?.disconnect();
    },
  };
};

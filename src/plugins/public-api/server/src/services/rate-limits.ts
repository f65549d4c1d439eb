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
 *
 * The stores themselves, a limiter per window length, are rate-limit-stores.ts.
 */
import type { Core } from '@strapi/strapi';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { pluginConfig } from '../config';
import type { RateLimit } from '../config/rate-limits';
import { createRateLeases, type CounterState } from '../database/rate-leases';
import { createLimiterStores } from './rate-limit-stores';

export { RATE_LIMIT_TABLE } from './rate-limit-stores';

/** A refused charge is not given back within this long of its window's end (the count resets anyway). */
const REFUND_MARGIN_MS = 1_000;

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
  const stores = createLimiterStores(strapi);
  const { limiterFor } = stores;
  let leases: ReturnType<typeof createRateLeases> | null = null;
  const leasesOf = () => {
    const horizonMs = pluginConfig(strapi).rateLimitLeaseMs;
    if (horizonMs <= 0) return null;
    leases ??= createRateLeases({ horizonMs });
    return leases;
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
    sweepExpired(now = Date.now()): Promise<number> {
      return stores.sweepExpired(now);
    },

    async stop(): Promise<void> {
      leases = null;
      await stores.stop();
    },
  };
};

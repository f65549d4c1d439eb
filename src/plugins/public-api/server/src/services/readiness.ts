/**
 * Whether this instance should receive traffic (`GET /health/ready`, docs/deployment.md): the database
 * answers and the instance is not draining. Redis (REDIS_URL) is reported too, but does not decide: while
 * it is away every instance counts rate limits alone (services/rate-limits.ts) and still answers, and a
 * Redis outage that took every instance out of the rotation would turn a degraded service into none
 * (`degraded`, still 200).
 * The proxy's health checks poll it; an instance told to stop says 503 `draining` before it closes its
 * listener, so the proxy takes it out of the rotation while it still answers (services/graceful-shutdown.ts).
 *
 * Bounded whoever calls: a check runs at most once per `CHECK_TTL_MS` (callers in between share its
 * answer, or the check under way), and each probe gives up after `PROBE_TIMEOUT_MS`.
 */
import type { Core } from '@strapi/strapi';
import { Redis } from 'ioredis';
import { pluginConfig } from '../config';

export const CHECK_TTL_MS = 1_000;
export const PROBE_TIMEOUT_MS = 2_000;

export type ProbeState = { status: 'up' } | { status: 'down'; error: string };

export type Readiness = {
  status: 'ready' | 'degraded' | 'not_ready' | 'draining';
  checks: { database: ProbeState; redis?: ProbeState };
};

const withTimeout = <T>(work: Promise<T>, what: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });

const probe = async (work: () => Promise<unknown>, what: string): Promise<ProbeState> => {
  try {
    await withTimeout(work(), what);
    return { status: 'up' };
  } catch (error) {
    // The reason is for the operator reading the endpoint: a message, never a stack.
    return { status: 'down', error: (error as Error).message.split('\n')[0]!.slice(0, 200) };
  }
};

/** A ping, or the connection's state while it is not connected (it reconnects on its own). */
const ping = async (client: Redis): Promise<string> => {
  if (client.status !== 'ready') throw new Error(`Redis connection is ${client.status}`);
  return client.ping();
};

export default ({ strapi }: { strapi: Core.Strapi }) => {
  let draining = false;
  let redis: Redis | null = null;
  let last: { at: number; answer: Promise<Readiness> } | null = null;

  const redisClient = (url: string): Redis => {
    // Its own connection: the rate limiter's is created on its first count and fails over to counting
    // alone while Redis is away; readiness must say so instead. No offline queue: a ping fails at once.
    redis ??= new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
    redis.on('error', () => undefined);
    return redis;
  };

  const check = async (): Promise<Readiness> => {
    const { redisUrl } = pluginConfig(strapi);
    const [database, redisState] = await Promise.all([
      probe(() => strapi.db.connection.raw('select 1'), 'the database'),
      redisUrl ? probe(() => ping(redisClient(redisUrl)), 'Redis') : Promise.resolve(undefined),
    ]);
    const checks = redisState ? { database, redis: redisState } : { database };
    const status = database.status !== 'up' ? 'not_ready' : redisState?.status === 'down' ? 'degraded' : 'ready';
    return { status: draining ? 'draining' : status, checks };
  };

  return {
    /** The state now (at most CHECK_TTL_MS old); draining shows at once. Ready or degraded: 200, else 503. */
    async state(): Promise<Readiness> {
      const now = Date.now();
      if (!last || now - last.at >= CHECK_TTL_MS) last = { at: now, answer: check() };
      const answer = await last.answer;
      return draining ? { ...answer, status: 'draining' } : answer;
    },

    /** From now on the instance is not ready: it is leaving the rotation. */
    startDraining(): void {
      draining = true;
    },

    isDraining(): boolean {
      return draining;
    },

    /** Closes the Redis connection (shutdown). */
    async stop(): Promise<void> {
      const client = redis;
      redis = null;
      if (client) await client.quit().catch(() => client.disconnect());
    },
  };
};

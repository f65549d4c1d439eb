/**
 * Prometheus metrics of one instance (prom-client), served at `GET /metrics` to holders of METRICS_TOKEN
 * (middlewares/operator.ts; docs/deployment.md, Metrics).
 *
 * Label values are bounded: `route` is a route template or a route's name (never a path), `status` an
 * HTTP status, `key` an API key id (bounded by the key table; empty for requests without a valid key),
 * `scope` a rate limit's policy name. The registry is this instance's own (not prom-client's global one),
 * so applications booted one after another in a process never share counters.
 *
 * Gauges of other parts are read when scraped: the database pool (knex's tarn pool), the transform queue,
 * and, once their owners register them, the turns of keyed requests (`observeRequestTurns`) and the
 * webhook outbox's lag (`observeWebhookOutboxLag`).
 */
import type { Core } from '@strapi/strapi';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { getService } from '../utils/get-service';

/** What the metrics read of knex's tarn pool. */
type PoolNumbers = {
  numUsed: () => number;
  numFree: () => number;
  numPendingAcquires: () => number;
  numPendingCreates: () => number;
  max: number;
};

/** One answered request, as the edge saw it. */
export type RequestObservation = {
  route: string;
  method: string;
  status: number;
  keyId: string | null;
  seconds: number;
  /** The policy of a 429 (`key` or `address`), from its RateLimit-Policy header. */
  rateLimitScope: string | null;
};

/**
 * Latency buckets in seconds: a single record takes about a millisecond, a 100-record page tens of
 * milliseconds, the largest include documents seconds.
 */
const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const OUTBOX_LAG = 'public_api_webhook_outbox_lag_seconds';
const REQUEST_TURNS = 'public_api_request_turns';

/** What the load gate holds now (http/load-gate.ts). */
export type RequestTurns = { inFlight: number; waiting: number; holders: number };

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'public_api_requests_total',
    help: 'Requests answered, by route template, method, status and API key id (empty: no valid key).',
    labelNames: ['route', 'method', 'status', 'key'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'public_api_request_duration_seconds',
    help: 'Time from receiving a request to sending its response headers, by route template and method.',
    labelNames: ['route', 'method'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'public_api_rate_limited_total',
    help: 'Requests refused with 429 by a rate limit, by its scope (key: a key spent its quota; address: failed authentications of a client address).',
    labelNames: ['scope'] as const,
    registers: [registry],
  });
  const shed = new Counter({
    name: 'public_api_shed_requests_total',
    help: 'Requests refused with 503 for load (no turn, the transform queue or the upload bound was full), by route template.',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: 'public_api_requests_in_flight',
    help: 'Requests being answered by this instance now (health checks and scrapes excepted).',
    registers: [registry],
  });
  const draining = new Gauge({
    name: 'public_api_draining',
    help: '1 while this instance drains (told to stop: out of the rotation, finishing its requests), else 0.',
    registers: [registry],
  });
  draining.set(0);

  const pool = (): PoolNumbers | undefined =>
    (strapi.db?.connection as unknown as { client?: { pool?: PoolNumbers } } | undefined)?.client?.pool;
  new Gauge({
    name: 'public_api_db_pool_connections',
    help: "The database connection pool (knex's tarn pool): connections used and free, acquires waiting for one, connections being created.",
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const numbers = pool();
      if (!numbers) return;
      this.set({ state: 'used' }, numbers.numUsed());
      this.set({ state: 'free' }, numbers.numFree());
      this.set({ state: 'pending_acquire' }, numbers.numPendingAcquires());
      this.set({ state: 'pending_create' }, numbers.numPendingCreates());
    },
  });
  new Gauge({
    name: 'public_api_db_pool_max',
    help: 'The most connections the database pool opens (DATABASE_POOL_MAX; 1 on SQLite).',
    registers: [registry],
    collect() {
      const numbers = pool();
      if (numbers) this.set(numbers.max);
    },
  });
  new Gauge({
    name: 'public_api_transform_queue',
    help: 'The image transform queue: transforms running (general turns), running on the lane of cheap ones, and waiting for a turn.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const load = getService('assets').transforms().load();
      this.set({ state: 'running' }, load.running);
      this.set({ state: 'running_cheap' }, load.cheap);
      this.set({ state: 'waiting' }, load.waiting);
    },
  });

  let outboxLag: Gauge | null = null;
  let requestTurns: Gauge | null = null;

  return {
    /** The text exposition format's content type. */
    contentType: registry.contentType,

    /** Every metric, as Prometheus scrapes it. */
    async render(): Promise<string> {
      return registry.metrics();
    },

    requestStarted(): void {
      inFlight.inc();
    },

    requestEnded(observation: RequestObservation): void {
      inFlight.dec();
      const method = METHODS.has(observation.method) ? observation.method : 'OTHER';
      requests.inc({ route: observation.route, method, status: String(observation.status), key: observation.keyId ?? '' });
      latency.observe({ route: observation.route, method }, observation.seconds);
      if (observation.status === 429 && observation.rateLimitScope) rateLimited.inc({ scope: observation.rateLimitScope });
      if (observation.status === 503) shed.inc({ route: observation.route });
    },

    setDraining(value: boolean): void {
      draining.set(value ? 1 : 0);
    },

    /**
     * The registration point of the webhook outbox's lag (issue 20): the outbox calls this once with a
     * function that answers the age in seconds of its oldest undelivered event (0 when none waits), and
     * `public_api_webhook_outbox_lag_seconds` is read from it at every scrape. Until something registers,
     * the metric is absent rather than a made-up 0.
     */
    /**
     * The registration point of the load gate's turns (http/load-gate.ts, made with the /api/v2
     * middleware's limits on its first request): `public_api_request_turns` is read from `load` at every
     * scrape; absent until then. A later registration replaces the earlier.
     */
    observeRequestTurns(load: () => RequestTurns): void {
      if (requestTurns) registry.removeSingleMetric(REQUEST_TURNS);
      requestTurns = new Gauge({
        name: REQUEST_TURNS,
        help: 'Turns of keyed /api/v2 requests: running (at most PUBLIC_API_REQUESTS_IN_FLIGHT), waiting for one (at most PUBLIC_API_REQUESTS_WAITING), and keys holding or waiting for one.',
        labelNames: ['state'] as const,
        registers: [registry],
        collect() {
          const turns = load();
          this.set({ state: 'running' }, turns.inFlight);
          this.set({ state: 'waiting' }, turns.waiting);
          this.set({ state: 'keys' }, turns.holders);
        },
      });
    },

    observeWebhookOutboxLag(oldestUndeliveredSeconds: () => Promise<number> | number): void {
      if (outboxLag) registry.removeSingleMetric(OUTBOX_LAG);
      outboxLag = new Gauge({
        name: OUTBOX_LAG,
        help: 'Age of the oldest webhook event not yet delivered (0: nothing waits).',
        registers: [registry],
        async collect() {
          this.set(await oldestUndeliveredSeconds());
        },
      });
    },
  };
};

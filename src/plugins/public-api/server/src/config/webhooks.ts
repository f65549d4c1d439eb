/**
 * Webhook delivery settings (contract section 16; docs/api.md, "Webhooks"). Every bound here is what
 * keeps a hostile or broken receiver from costing more than its share: how long one send may take, how
 * much of its answer is read, how many sends run at once, how many events wait per endpoint.
 */
import type { Core } from '@strapi/strapi';

/** How failed deliveries are retried (webhooks/retry.ts). */
export type RetryPolicy = {
  /** The first wait, and the least any wait is. */
  baseMs: number;
  /** The longest single wait. */
  capMs: number;
  /** How long a delivery is tried, and how long an endpoint may fail before it is disabled. */
  windowMs: number;
};

/** Seconds to hours: 5 s at first, doubling to at most 4 h per wait, for 24 h in all. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseMs: 5_000,
  capMs: 4 * 60 * 60_000,
  windowMs: 24 * 60 * 60_000,
};

export type WebhookSettings = {
  /** Development only: plain http to the loopback interface, and loopback addresses, allowed. */
  allowHttpLoopback: boolean;
  /** How often each instance looks for journal entries and due deliveries when nothing woke it. */
  pollIntervalMs: number;
  /** One send, from connecting to the last byte of the answer read. */
  timeoutMs: number;
  /** The most bytes of a receiver's answer that are read (the rest is dropped, the send still counts). */
  responseBytes: number;
  /** Sends one instance runs at once. */
  sendsInFlight: number;
  /** Sends to one endpoint one instance runs at once (a slow receiver holds only these). */
  sendsPerEndpoint: number;
  /** Events waiting per endpoint; the journal keeps the rest until the endpoint catches up. */
  queuePerEndpoint: number;
  /** Journal entries one fan-out turn reads for one endpoint. */
  fanOutBatch: number;
  /** How long delivered and failed deliveries are kept in the log. */
  logRetentionMs: number;
  /** Log rows one prune turn deletes at most (by age, and per endpoint over `logPerEndpoint`). */
  pruneBatch: number;
  /**
   * Finished deliveries kept per endpoint, newest first, whatever their age: a busy or hostile key's
   * endpoints cannot grow the log faster than pruning by age takes it away (each endpoint holds at most
   * this plus `queuePerEndpoint` rows, plus what one prune interval adds).
   */
  logPerEndpoint: number;
  retry: RetryPolicy;
};

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  allowHttpLoopback: false,
  pollIntervalMs: 1_000,
  timeoutMs: 10_000,
  responseBytes: 64 * 1024,
  sendsInFlight: 16,
  sendsPerEndpoint: 4,
  queuePerEndpoint: 1_000,
  fanOutBatch: 100,
  logRetentionMs: 7 * 24 * 60 * 60_000,
  pruneBatch: 1_000,
  logPerEndpoint: 1_000,
  retry: DEFAULT_RETRY_POLICY,
};

/**
 * The development flag (issue 33, item 11): plain http to this machine, and loopback addresses, for a local
 * receiver. Read here and nowhere else, from the environment of the process that checks a URL: the server
 * (the admin's form, every delivery) and `npm run key` (webhook-add, the grants file) both reach it through
 * `webhookSettings`, so both must see it; `.env`, which both load, is the place for it.
 */
export const ALLOW_HTTP_LOOPBACK_VARIABLE = 'PUBLIC_API_WEBHOOKS_ALLOW_HTTP_LOOPBACK';

/** Whether the environment sets the development flag (`true` or `1`; anything else, or unset: off). */
export const allowHttpLoopbackFrom = (env: Readonly<Record<string, string | undefined>>): boolean =>
  /^(true|1)$/i.test(env.PUBLIC_API_WEBHOOKS_ALLOW_HTTP_LOOPBACK?.trim() ?? '');

/** What a refusal that the flag would lift says to do, in every message that refuses loopback. */
export const LOOPBACK_FLAG_HINT = `for a local receiver in development, set ${ALLOW_HTTP_LOOPBACK_VARIABLE}=true for the server and for npm run key (in .env, which both read)`;

type WebhookConfig = Partial<Omit<WebhookSettings, 'retry' | 'allowHttpLoopback'>> & { retry?: Partial<RetryPolicy> };

const positive = (value: unknown, fallback: number): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;

/**
 * The plugin config's `webhooks` over the defaults; a setting that is not a positive number keeps its default.
 * The development flag comes from the environment alone (above), never from the plugin config.
 */
export const webhookSettings = (strapi: Core.Strapi): WebhookSettings => {
  const given = ((strapi.config.get('plugin::public-api') as { webhooks?: WebhookConfig } | undefined)?.webhooks ?? {}) as WebhookConfig;
  const d = DEFAULT_WEBHOOK_SETTINGS;
  return {
    allowHttpLoopback: allowHttpLoopbackFrom(process.env),
    pollIntervalMs: positive(given.pollIntervalMs, d.pollIntervalMs),
    timeoutMs: positive(given.timeoutMs, d.timeoutMs),
    responseBytes: positive(given.responseBytes, d.responseBytes),
    sendsInFlight: positive(given.sendsInFlight, d.sendsInFlight),
    sendsPerEndpoint: positive(given.sendsPerEndpoint, d.sendsPerEndpoint),
    queuePerEndpoint: positive(given.queuePerEndpoint, d.queuePerEndpoint),
    fanOutBatch: positive(given.fanOutBatch, d.fanOutBatch),
    logRetentionMs: positive(given.logRetentionMs, d.logRetentionMs),
    pruneBatch: positive(given.pruneBatch, d.pruneBatch),
    logPerEndpoint: positive(given.logPerEndpoint, d.logPerEndpoint),
    retry: {
      baseMs: positive(given.retry?.baseMs, d.retry.baseMs),
      capMs: positive(given.retry?.capMs, d.retry.capMs),
      windowMs: positive(given.retry?.windowMs, d.retry.windowMs),
    },
  };
};

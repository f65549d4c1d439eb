/**
 * Admin route for a key's usage (`GET /public-api/keys/:id/usage?window=24h|7d|30d`): its requests over
 * the window by status class, latency quantiles, rate-limit refusals and the resources it used most.
 */
export const USAGE_WINDOWS = ['24h', '7d', '30d'] as const;
export type UsageWindow = (typeof USAGE_WINDOWS)[number];

export type StatusClassCounts = { '2xx': number; '3xx': number; '4xx': number; '5xx': number };

/** One step of the window (an hour for 24h and 7d, a UTC day for 30d). */
export type UsagePoint = {
  /** Start of the step (ISO 8601, UTC). */
  start: string;
  requests: number;
  byClass: StatusClassCounts;
  /** Requests refused with 429 by the key's rate limit. */
  rateLimited: number;
  /** Latency quantiles (ms), the upper bound of a histogram bucket; null when the step has no requests. */
  p50Ms: number | null;
  p95Ms: number | null;
};

export type UsageTotals = Omit<UsagePoint, 'start'> & {
  /** (4xx + 5xx) / requests; null without requests. */
  errorRate: number | null;
};

export type ResourceUsage = { resource: string; requests: number; errors: number; rateLimited: number };

export type KeyUsage = {
  window: UsageWindow;
  stepMinutes: number;
  from: string;
  to: string;
  points: UsagePoint[];
  totals: UsageTotals;
  /** At most ten, most requests first. */
  topResources: ResourceUsage[];
  /** How often the counts of each instance are written: the newest requests may be this late. */
  flushIntervalSeconds: number;
};

export declare namespace GetKeyUsage {
  export interface Response {
    data: KeyUsage;
  }
}

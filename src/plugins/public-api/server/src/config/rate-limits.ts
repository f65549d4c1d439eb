/**
 * A rate limit as written in config, the grants file or the admin: `{ "requests": 600, "window": 60 }`
 * (at most `requests` units of cost in each window of `window` seconds, an ordinary request costing one;
 * contract section 13, http/request-cost.ts). The field keeps its name, so limits written before costs
 * keep their meaning.
 */
export type RateLimit = { requests: number; window: number };

export type RateLimitIssue = { field: string; message: string };

/** The most a limit may be: a window of a day, a million requests in it. */
export const MAX_WINDOW_SECONDS = 86_400;
export const MAX_REQUESTS = 1_000_000;

/** A key's limit when neither its grants nor the admin set one. */
export const DEFAULT_KEY_RATE_LIMIT: RateLimit = { requests: 600, window: 60 };
/** Requests without a valid key, per client address: enough for a client fixing its key, not for guessing keys. */
export const DEFAULT_UNAUTHENTICATED_RATE_LIMIT: RateLimit = { requests: 30, window: 60 };

const isWhole = (value: unknown, max: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= max;

/** The limit, or every problem with it (one message per field). */
export const parseRateLimit = (value: unknown): { ok: true; limit: RateLimit } | { ok: false; issues: RateLimitIssue[] } => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, issues: [{ field: '', message: 'A limit is an object: { "requests": <number>, "window": <seconds> }.' }] };
  }
  const { requests, window, ...rest } = value as Record<string, unknown>;
  const issues: RateLimitIssue[] = [];
  if (!isWhole(requests, MAX_REQUESTS)) {
    issues.push({ field: 'requests', message: `requests is a whole number from 1 to ${MAX_REQUESTS}.` });
  }
  if (!isWhole(window, MAX_WINDOW_SECONDS)) {
    issues.push({ field: 'window', message: `window is a whole number of seconds from 1 to ${MAX_WINDOW_SECONDS}.` });
  }
  for (const name of Object.keys(rest)) issues.push({ field: name, message: `A limit has no field '${name}': only requests and window.` });
  return issues.length ? { ok: false, issues } : { ok: true, limit: { requests: requests as number, window: window as number } };
};

/** Where the counters live, shared by every instance unless `memory` (one process only). */
export type RateLimitStore = 'database' | 'memory';
export const RATE_LIMIT_STORES: readonly RateLimitStore[] = ['database', 'memory'];

/**
 * Rate limits as a client sees them (contract section 13): the IETF RateLimit header fields
 * (draft-ietf-httpapi-ratelimit-headers) and the 429 that ends a window's quota. Pure: the counters live
 * in services/rate-limits.ts.
 */
import type { RateLimit } from '../config/rate-limits';
import { apiError, type ApiError } from './errors';
import { COST_WEIGHTS, describeCost, unitsOf, type RequestCost } from './request-cost';

/** Where a counter stands after a request was counted. */
export type RateLimitState = {
  /** Units left in the current window (0 once it is spent; http/request-cost.ts says what a request costs). */
  remaining: number;
  /** Milliseconds until the window ends and the quota is whole again. */
  resetMs: number;
};

/** The policy names in the headers: one quota per API key, one per client address for failed authentications. */
export type RateLimitPolicy = 'key' | 'address';

/** Whole seconds until the window ends, never 0 while part of a second is left (a client waits at least 1 s). */
export const secondsToReset = (resetMs: number): number => Math.max(0, Math.ceil(resetMs / 1000));

export const rateLimitHeaders = (limit: RateLimit, state: RateLimitState, policy: RateLimitPolicy = 'key'): Record<string, string> => ({
  'RateLimit-Policy': `"${policy}";q=${limit.requests};w=${limit.window}`,
  RateLimit: `"${policy}";r=${Math.max(0, state.remaining)};t=${secondsToReset(state.resetMs)}`,
});

/** 429 with the RateLimit fields and Retry-After (at least one second). */
export const tooManyRequests = (limit: RateLimit, state: RateLimitState, subject: RateLimitPolicy): ApiError =>
  apiError(
    429,
    subject === 'key'
      ? `This key has used its ${limit.requests} units of the ${limit.window}-second window; retry after the time in Retry-After.`
      : `Too many requests without a valid API key from this address; retry after the time in Retry-After.`,
    {
      reason: subject === 'key' ? 'rate_limited' : 'unauthenticated_rate_limited',
      headers: { ...rateLimitHeaders(limit, state, subject), 'Retry-After': String(Math.max(1, secondsToReset(state.resetMs))) },
    },
  );

/**
 * 429 for work a key cannot pay for (http/request-cost.ts), refused before any of it is done. When the
 * request costs more than the key's whole quota no wait helps: the detail says so, names the cost and the
 * quota, and there is no Retry-After (`meta.reason` `cost_over_quota`). Otherwise it is the ordinary 429
 * of a spent quota (`rate_limited`, Retry-After), its detail naming the cost and what is left.
 *
 * `paid` is the part of `cost` charged already: a chunked upload pays for its body as it arrives, and is
 * refused at the MiB the key cannot pay for. Its detail then names what it has cost so far and that the
 * body was refused there, nothing of it stored.
 */
export const costRefused = (limit: RateLimit, state: RateLimitState, cost: RequestCost, paid: RequestCost = {}): ApiError => {
  const total = COST_WEIGHTS.request + unitsOf(cost);
  const headers = rateLimitHeaders(limit, state, 'key');
  const partly = unitsOf(paid) > 0 || (paid.uploadedBytes ?? 0) > 0;
  const what = partly
    ? `This upload costs ${describeCost(cost)} with the bytes received so far`
    : `This request costs ${describeCost(cost)}`;
  const done = partly
    ? 'Its body was refused there: nothing of it was stored, and the units of the bytes received stay spent'
    : 'Nothing of it was done';
  if (total > limit.requests) {
    return apiError(
      429,
      `${what}, more than this key's whole quota of ${limit.requests} units per ${limit.window}-second window: it can never be served under this limit. ${partly ? `${done}. ` : ''}Ask for less (a smaller page \`limit\`, fewer include paths, fewer operations per request, a smaller file) or for a higher rate limit.`,
      { reason: 'cost_over_quota', headers },
    );
  }
  return apiError(
    429,
    `${what}; this key has ${Math.max(0, state.remaining)} of its ${limit.requests} units of the ${limit.window}-second window left. ${done}; retry after the time in Retry-After.`,
    {
      reason: 'rate_limited',
      headers: { ...headers, 'Retry-After': String(Math.max(1, secondsToReset(state.resetMs))) },
    },
  );
};

/**
 * Rate limits as a client sees them (contract section 13): the IETF RateLimit header fields
 * (draft-ietf-httpapi-ratelimit-headers) and the 429 that ends a window's quota. Pure: the counters live
 * in services/rate-limits.ts.
 */
import type { RateLimit } from '../config/rate-limits';
import { apiError, type ApiError } from './errors';

/** Where a counter stands after a request was counted. */
export type RateLimitState = {
  /** Requests left in the current window (0 once it is spent). */
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
      ? `This key has used its ${limit.requests} requests of the ${limit.window}-second window; retry after the time in Retry-After.`
      : `Too many requests without a valid API key from this address; retry after the time in Retry-After.`,
    {
      reason: subject === 'key' ? 'rate_limited' : 'unauthenticated_rate_limited',
      headers: { ...rateLimitHeaders(limit, state, subject), 'Retry-After': String(Math.max(1, secondsToReset(state.resetMs))) },
    },
  );

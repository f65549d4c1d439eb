/**
 * A request's further cost, charged to its key's rate limit before the work it pays for (contract
 * section 13, http/request-cost.ts). The edge counts a request's own unit; a handler that learns it will
 * expand records, run atomic operations or receive a large upload calls `request.charge` with that work
 * before doing it. Each charge goes to the same counter as the request's unit (services/rate-limits.ts:
 * memory, the database or Redis, shared by every instance), and the RateLimit field of the answer then
 * says what is left after it. A charge the key cannot pay refuses the request with 429 before anything
 * is loaded or written (http/rate-limit.ts `costRefused`).
 */
import type { Context } from 'koa';
import type { RateLimit } from '../config/rate-limits';
import { costRefused, rateLimitHeaders } from '../http/rate-limit';
import { COST_WEIGHTS, unitsOf, type RequestCost } from '../http/request-cost';
import type { RateLimitCount } from '../services/rate-limits';
import { getService } from '../utils/get-service';

/** Where a key's counter stood when its request was counted, and the limit it was counted against. */
export type KeyCount = { keyId: string; limit: RateLimit; count: RateLimitCount };

/**
 * The charge of one request. Without a count (the store could not count the request, logged) nothing is
 * charged either: the request was let through, and so is its work. `paid` is the part of `cost` charged
 * before (a chunked upload pays as its body arrives): only the rest is charged now. `charged` hears the
 * units of every charge that was paid, the request's own unit first (the fair scheduler weighs the key's
 * turns by them, http/fair-usage.ts).
 */
export const createCharge = (ctx: Context, counted: KeyCount | null, charged: (units: number) => void = () => undefined) => {
  let current = counted?.count ?? null;
  if (current) charged(COST_WEIGHTS.request);
  return async (cost: RequestCost, paid: RequestCost = {}): Promise<void> => {
    const units = unitsOf(cost) - unitsOf(paid);
    if (!counted || !current || units <= 0) return;
    const { keyId, limit } = counted;
    const result = await getService('rate-limits').charge({ kind: 'key', id: keyId }, limit, units, current);
    if (!result) return;
    current = result.count;
    if (!result.charged) throw costRefused(limit, result.count, cost, paid);
    charged(units);
    ctx.set(rateLimitHeaders(limit, result.count));
  };
};

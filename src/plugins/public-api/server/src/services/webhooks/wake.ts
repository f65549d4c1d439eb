/**
 * A document service middleware that wakes this instance's webhook dispatcher after a write, so that a
 * change is sent within milliseconds instead of at the next poll. The write's transaction may commit a
 * little after the middleware returns (an outer transaction: an atomic request), so the turn comes a few
 * milliseconds later and, should it still find nothing, the poll finds it. Other instances find it at
 * their next poll.
 */
import type { Modules } from '@strapi/strapi';

const READS = new Set(['findOne', 'findMany', 'findFirst', 'count']);
/** How long after a write the turn comes (writes in a burst share one). */
const WAKE_DELAY_MS = 20;

export const createWebhookWakeMiddleware = (wake: () => void): Modules.Documents.Middleware.Middleware => {
  let pending: NodeJS.Timeout | null = null;
  return async (context, next) => {
    const result = await next();
    if (!READS.has(context.action) && context.uid.startsWith('api::') && !pending) {
      pending = setTimeout(() => {
        pending = null;
        wake();
      }, WAKE_DELAY_MS);
      pending.unref();
    }
    return result;
  };
};

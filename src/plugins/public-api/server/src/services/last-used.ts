/**
 * Records when a key was last used, at most once a minute per key and off the request's path: the
 * write is scheduled after the response and guarded in SQL so that several instances write once.
 */
import type { Core } from '@strapi/strapi';
import { API_KEY_UID, type ApiKey } from '../keys/types';

export const LAST_USED_RESOLUTION_MS = 60_000;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const scheduled = new Map<number, number>();
  const pending = new Set<Promise<unknown>>();

  const write = async (id: number, now: Date) => {
    const threshold = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
    await strapi.db.query(API_KEY_UID).updateMany({
      where: { id, $or: [{ lastUsedAt: { $null: true } }, { lastUsedAt: { $lt: threshold } }] },
      data: { lastUsedAt: now },
    });
  };

  return {
    touch(key: ApiKey) {
      const now = Date.now();
      const last = key.lastUsedAt ? Date.parse(key.lastUsedAt) : 0;
      if (now - last < LAST_USED_RESOLUTION_MS) return;
      if (now - (scheduled.get(key.id) ?? 0) < LAST_USED_RESOLUTION_MS) return;
      scheduled.set(key.id, now);
      const job = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => write(key.id, new Date(now)))
        .catch((error: Error) => strapi.log.warn(`[public-api] could not record key use: ${error.message}`))
        .finally(() => pending.delete(job));
      pending.add(job);
    },

    /** Waits for scheduled writes: used on shutdown and by tests. */
    async flush() {
      await Promise.all([...pending]);
    },
  };
};

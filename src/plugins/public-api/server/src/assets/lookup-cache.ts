/**
 * Recently resolved asset URLs, so that a busy asset is not looked up in the database on every request.
 * Pure (the clock is injected).
 *
 * - Only found values are kept: a URL that names nothing is looked up every time, so made-up URLs cannot
 *   fill the cache, and a file that becomes referenced is served at once.
 * - An entry lives `ttlMs` at most, and `invalidate` (any write to content, in this process) drops every
 *   entry. The time-to-live bounds what another instance's write leaves behind here.
 * - A lookup that was running when an invalidation happened is answered but not kept: it may have read
 *   the state from before that write.
 * - At most `maxEntries` are kept; the least recently used go first.
 */
export type LookupCacheOptions = { ttlMs: number; maxEntries: number; now?: () => number };

export const createLookupCache = <V>({ ttlMs, maxEntries, now = Date.now }: LookupCacheOptions) => {
  // Map order is recency order: the first entry is the least recently used.
  const entries = new Map<string, { value: V; expires: number }>();
  let generation = 0;

  const fresh = (key: string): V | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    entries.delete(key);
    if (entry.expires <= now()) return undefined;
    entries.set(key, entry);
    return entry.value;
  };

  return {
    /** The value under `key`: kept if fresh, else from `load` (kept when found). */
    async get(key: string, load: () => Promise<V | null>): Promise<V | null> {
      const kept = fresh(key);
      if (kept !== undefined) return kept;
      const started = generation;
      const value = await load();
      if (value !== null && started === generation) {
        entries.set(key, { value, expires: now() + ttlMs });
        if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
      }
      return value;
    },

    /** Forgets everything, and everything being looked up right now. */
    invalidate(): void {
      generation += 1;
      entries.clear();
    },

    get size(): number {
      return entries.size;
    },
  };
};

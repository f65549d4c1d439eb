/**
 * A map that keeps at most `capacity` entries, dropping the least recently used first. Pure. For caches
 * whose keys come from requests (query shapes, SQL text): whatever clients send, memory stays bounded.
 */
export type Lru<K, V> = {
  get: (key: K) => V | undefined;
  set: (key: K, value: V) => void;
  delete: (key: K) => boolean;
  clear: () => void;
  readonly size: number;
};

export const createLru = <K, V>(capacity: number, onEvict?: (key: K, value: V) => void): Lru<K, V> => {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`An LRU holds at least one entry, not ${capacity}.`);
  // Map order is recency order: the first entry is the least recently used.
  const entries = new Map<K, V>();
  return {
    get(key) {
      const value = entries.get(key);
      if (value === undefined) return undefined;
      entries.delete(key);
      entries.set(key, value);
      return value;
    },
    set(key, value) {
      entries.delete(key);
      entries.set(key, value);
      while (entries.size > capacity) {
        const [oldest, evicted] = entries.entries().next().value as [K, V];
        entries.delete(oldest);
        onEvict?.(oldest, evicted);
      }
    },
    delete: (key) => entries.delete(key),
    clear: () => entries.clear(),
    get size() {
      return entries.size;
    },
  };
};

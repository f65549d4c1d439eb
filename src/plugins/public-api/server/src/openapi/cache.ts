/**
 * A bounded least-recently-used cache of serialized documents, by entry count and by bytes. Pure
 * (no clock, no I/O): the caller decides the key, and the key says everything the document depends on.
 */
export type CachedDocument = { text: Buffer; etag: string };

export type DocumentCacheLimits = { maxEntries: number; maxBytes: number };

export class DocumentCache {
  private readonly entries = new Map<string, CachedDocument>();
  private bytes = 0;

  constructor(private readonly limits: DocumentCacheLimits) {}

  get(key: string): CachedDocument | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      // Most recently used last: eviction takes from the front.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CachedDocument): void {
    const size = entry.text.length;
    if (size > this.limits.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.bytes -= previous.text.length;
    }
    this.entries.set(key, entry);
    this.bytes += size;
    for (const [oldest, value] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= value.text.length;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

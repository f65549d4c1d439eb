/**
 * A bounded least-recently-used cache of compressed representations, keyed by their strong entity tag
 * (which names the identity bytes and the coding, so an entry can never be stale). Pure.
 */
export class CompressedCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly maxEntryBytes: number,
  ) {}

  get(tag: string): Buffer | undefined {
    const entry = this.entries.get(tag);
    if (entry) {
      this.entries.delete(tag);
      this.entries.set(tag, entry);
    }
    return entry;
  }

  set(tag: string, bytes: Buffer): void {
    if (bytes.length > this.maxEntryBytes || this.entries.has(tag)) return;
    this.entries.set(tag, bytes);
    this.bytes += bytes.length;
    for (const [oldest, value] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= value.length;
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

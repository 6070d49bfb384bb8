/**
 * The parsed entries a lazily indexed cassette keeps in memory: least recently used first out, bounded by the size of
 * their files (a fair proxy for their heap). A cassette whose files fit is read once and then served from memory; a
 * bigger one keeps its hot entries and reads the others again on use.
 */
export class EntryCache<K, V> {
  private readonly items = new Map<K, { value: V; bytes: number }>();
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get(key: K): V | undefined {
    const item = this.items.get(key);
    if (!item) return undefined;
    // most recently used last (a Map keeps insertion order); while the cache is far from full, order does not matter
    if (this.used > this.maxBytes / 2 && this.items.size > 1) {
      this.items.delete(key);
      this.items.set(key, item);
    }
    return item.value;
  }

  set(key: K, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.maxBytes) return; // bigger than the whole cache: read on every use
    this.items.set(key, { value, bytes });
    this.used += bytes;
    for (const [oldest, item] of this.items) {
      if (this.used <= this.maxBytes) break;
      this.items.delete(oldest);
      this.used -= item.bytes;
    }
  }

  delete(key: K): void {
    const item = this.items.get(key);
    if (!item) return;
    this.items.delete(key);
    this.used -= item.bytes;
  }

  clear(): void {
    this.items.clear();
    this.used = 0;
  }

  get bytes(): number {
    return this.used;
  }
}

import type { TrafficEvent } from '../../shared/api.js';

/** The timeline's memory: the newest `capacity` traffic events in a ring (the oldest is dropped when full). */
export class TrafficBuffer {
  private readonly ring: Array<TrafficEvent | undefined>;
  private start = 0;
  private count = 0;

  constructor(readonly capacity = 100_000) {
    this.ring = new Array<TrafficEvent | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  push(event: TrafficEvent): void {
    if (this.count < this.capacity) {
      this.ring[(this.start + this.count) % this.capacity] = event;
      this.count++;
      return;
    }
    this.ring[this.start] = event; // overwrite the oldest
    this.start = (this.start + 1) % this.capacity;
  }

  /** The newest `limit` events (all by default), oldest first. */
  snapshot(limit = this.count): TrafficEvent[] {
    const n = Math.min(limit, this.count);
    const out = new Array<TrafficEvent>(n);
    const first = this.start + this.count - n;
    for (let i = 0; i < n; i++) out[i] = this.ring[(first + i) % this.capacity] as TrafficEvent;
    return out;
  }

  forEach(visit: (event: TrafficEvent) => void): void {
    for (let i = 0; i < this.count; i++) visit(this.ring[(this.start + i) % this.capacity] as TrafficEvent);
  }

  /** Drops the events that match; answers how many. */
  remove(matches: (event: TrafficEvent) => boolean): number {
    const kept: TrafficEvent[] = [];
    this.forEach((event) => void (matches(event) ? undefined : kept.push(event)));
    const dropped = this.count - kept.length;
    if (dropped === 0) return 0;
    this.clear();
    for (const event of kept) this.push(event);
    return dropped;
  }

  /** Empties the buffer; answers how many events were dropped. */
  clear(): number {
    const dropped = this.count;
    this.ring.fill(undefined);
    this.start = 0;
    this.count = 0;
    return dropped;
  }
}

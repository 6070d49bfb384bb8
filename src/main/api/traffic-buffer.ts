import type { TrafficEvent } from '../../shared/api.js';

/** The timeline's memory: the newest `capacity` traffic events in a ring (the oldest is dropped when full). */
export class TrafficBuffer {
  private readonly ring: Array<TrafficEvent | undefined>;
  private start = 0;
  private count = 0;
  /** arrival order of each event, so that events put back (undo of a clear) return to their places */
  private readonly arrival = new WeakMap<TrafficEvent, number>();
  private arrived = 0;

  constructor(readonly capacity = 100_000) {
    this.ring = new Array<TrafficEvent | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  push(event: TrafficEvent): void {
    if (!this.arrival.has(event)) this.arrival.set(event, this.arrived++);
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

  /** The event with this timeline number (the newest first: recent ones are looked up most). */
  find(seq: number): TrafficEvent | undefined {
    for (let i = this.count - 1; i >= 0; i--) {
      const event = this.ring[(this.start + i) % this.capacity] as TrafficEvent;
      if (event.seq === seq) return event;
    }
    return undefined;
  }

  forEach(visit: (event: TrafficEvent) => void): void {
    for (let i = 0; i < this.count; i++) visit(this.ring[(this.start + i) % this.capacity] as TrafficEvent);
  }

  /** Drops the events that match; answers them, oldest first. */
  remove(matches: (event: TrafficEvent) => boolean): TrafficEvent[] {
    const kept: TrafficEvent[] = [];
    const removed: TrafficEvent[] = [];
    this.forEach((event) => void (matches(event) ? removed : kept).push(event));
    if (removed.length === 0) return removed;
    this.clear();
    for (const event of kept) this.push(event);
    return removed;
  }

  /** Puts removed events back in their arrival order (the newest `capacity` are kept). */
  restore(events: TrafficEvent[]): void {
    const all = [...this.snapshot(), ...events].sort((a, b) => (this.arrival.get(a) ?? 0) - (this.arrival.get(b) ?? 0));
    this.clear();
    for (const event of all.slice(-this.capacity)) this.push(event);
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

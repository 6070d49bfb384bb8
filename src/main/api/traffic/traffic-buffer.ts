import type { TrafficEvent } from '../../../shared/api.js';
import { EntryCache } from '../../engine/cassette/entry-cache.js';
import { slimEvent } from './traffic-slim.js';

/** the timeline's bytes by default (its events as slimmed: large bodies truncated) */
export const DEFAULT_TRAFFIC_BYTES = 256 * 1024 * 1024;
/** the full events of truncated ones, kept for `traffic.body` (newest first) */
export const FULL_BODIES_BYTES = 64 * 1024 * 1024;

const fullKey = (proxyId: string, seq: number): string => `${proxyId}\u0000${seq}`;

/**
 * The timeline's memory: the newest traffic events in a ring, bounded by count (`capacity`) and by bytes (`maxBytes`):
 * the oldest go first. Events are kept slimmed (traffic-slim.ts: large bodies truncated); the full version of a
 * truncated one stays available a while longer, within FULL_BODIES_BYTES, for "Load full body".
 */
export class TrafficBuffer {
  private readonly ring: Array<TrafficEvent | undefined>;
  private start = 0;
  private count = 0;
  private used = 0;
  /** arrival order of each event, so that events put back (undo of a clear) return to their places */
  private readonly arrival = new WeakMap<TrafficEvent, number>();
  private arrived = 0;
  private readonly full = new EntryCache<string, TrafficEvent>(FULL_BODIES_BYTES);

  constructor(
    readonly capacity = 100_000,
    readonly maxBytes = DEFAULT_TRAFFIC_BYTES,
  ) {
    this.ring = new Array<TrafficEvent | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** what the kept events weigh */
  get bytes(): number {
    return this.used;
  }

  /** Adds an event (slimmed, unless it was already); answers it as kept — what the view should get. */
  push(event: TrafficEvent): TrafficEvent {
    let kept = event;
    if (event.bytes === undefined) {
      const slim = slimEvent(event);
      kept = slim.event;
      if (slim.truncated)
        this.full.set(
          fullKey(event.proxyId, event.seq),
          event,
          (kept.truncated?.request ?? 0) +
            (kept.truncated?.response ?? 0) +
            (kept.truncated?.stream ?? 0) +
            (kept.truncated?.original ?? 0),
        );
    }
    if (!this.arrival.has(kept)) this.arrival.set(kept, this.arrival.get(event) ?? this.arrived++);
    if (this.count === this.capacity) this.dropOldest();
    this.ring[(this.start + this.count) % this.capacity] = kept;
    this.count++;
    this.used += kept.bytes ?? 0;
    while (this.used > this.maxBytes && this.count > 1) this.dropOldest();
    return kept;
  }

  /** The full version of an event whose bodies were truncated, while it is held. */
  fullOf(proxyId: string, seq: number): TrafficEvent | undefined {
    return this.full.get(fullKey(proxyId, seq));
  }

  private dropOldest(): void {
    const oldest = this.ring[this.start] as TrafficEvent;
    this.ring[this.start] = undefined;
    this.start = (this.start + 1) % this.capacity;
    this.count--;
    this.used -= oldest.bytes ?? 0;
  }

  /** The newest `limit` events (all by default), oldest first. */
  snapshot(limit = this.count): TrafficEvent[] {
    const n = Math.min(limit, this.count);
    const out = new Array<TrafficEvent>(n);
    const first = this.start + this.count - n;
    for (let i = 0; i < n; i++) out[i] = this.ring[(first + i) % this.capacity] as TrafficEvent;
    return out;
  }

  /**
   * A page of the events that arrived after the one `after` names (its `cursor`; -1: from the oldest), oldest first:
   * at most `maxCount`, and within `maxBytes` (one at least); `matches` picks the ones to answer. `cursor` names the
   * last event looked at, undefined once the newest was: pages stay complete while events come and go between them.
   */
  page(
    after: number,
    maxCount: number,
    maxBytes: number,
    matches: (event: TrafficEvent) => boolean = () => true,
  ): { events: TrafficEvent[]; cursor?: number } {
    const events: TrafficEvent[] = [];
    let bytes = 0;
    for (let i = this.firstAfter(after); i < this.count; i++) {
      const event = this.at(i);
      if (!matches(event)) continue;
      if (events.length === maxCount || (events.length > 0 && bytes + (event.bytes ?? 0) > maxBytes))
        return { events, cursor: this.arrivalOf(events[events.length - 1]) };
      events.push(event);
      bytes += event.bytes ?? 0;
    }
    return { events };
  }

  private at(i: number): TrafficEvent {
    return this.ring[(this.start + i) % this.capacity] as TrafficEvent;
  }

  private arrivalOf(event: TrafficEvent): number {
    return this.arrival.get(event) ?? 0;
  }

  /** the position of the first event that arrived after `after` (the ring is in arrival order: a binary search) */
  private firstAfter(after: number): number {
    let low = 0;
    let high = this.count;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.arrivalOf(this.at(mid)) <= after) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The event with this timeline number (the newest first: recent ones are looked up most), in full while held. */
  find(seq: number): TrafficEvent | undefined {
    for (let i = this.count - 1; i >= 0; i--) {
      const event = this.ring[(this.start + i) % this.capacity] as TrafficEvent;
      if (event.seq === seq) return (event.truncated && this.fullOf(event.proxyId, seq)) || event;
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

  /** Puts removed events back in their arrival order (the newest `capacity`, within `maxBytes`, are kept). */
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
    this.used = 0;
    return dropped;
  }
}

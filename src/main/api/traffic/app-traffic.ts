import { randomUUID } from 'node:crypto';
import {
  SNAPSHOT_MAX_BYTES,
  TRAFFIC_PAGE_BYTES,
  TRAFFIC_PAGE_EVENTS,
  UNDO_CLEAR_MS,
  type CommandInput,
  type CommandOutputs,
  type TrafficEvent,
} from '../../../shared/api.js';
import { megabytes } from '../../../shared/api-frames.js';
import { FULL_BODIES_BYTES, TrafficBuffer } from './traffic-buffer.js';
import type { TimelineRing } from './timeline-state.js';

/**
 * The timeline's traffic as the UI API sees it: the bounded buffer, a Clear that can be undone for a while, the full
 * bodies of truncated exchanges, and how often each cassette key was served.
 */
export class AppTraffic {
  readonly buffer: TrafficBuffer;
  /** the last clear, while it can be undone */
  private lastClear?: { undo: string; events: TrafficEvent[]; timer: NodeJS.Timeout };

  /** `keeps`: exchanges a Clear leaves in place (pinned or noted) */
  constructor(
    capacity: number | undefined,
    private readonly keeps: (seq: number) => boolean,
  ) {
    this.buffer = new TrafficBuffer(capacity);
  }

  get capacity(): number {
    return this.buffer.capacity;
  }

  /** the bytes the timeline keeps (events with large bodies truncated) */
  get maxBytes(): number {
    return this.buffer.maxBytes;
  }

  /**
   * The buffer as the timeline's verbs use it (files opened, resends): `added` is told of every exchange put in
   * (with what the buffer kept of it), `announce`d ones go to the UI; a snapshot has truncated bodies in full where
   * they are still held (a save writes what was exchanged).
   */
  ring(
    added: (event: TrafficEvent, kept: TrafficEvent) => void,
    announce: (kept: TrafficEvent) => void,
  ): TimelineRing & { snapshot(): TrafficEvent[] } {
    return {
      add: (events, announced) =>
        events.forEach((e) => {
          const kept = this.buffer.push(e);
          added(e, kept);
          if (announced) announce(kept);
        }),
      remove: (matches) => this.buffer.remove(matches),
      find: (seq) => this.buffer.find(seq),
      snapshot: () => this.snapshot().map((e) => (e.truncated && this.buffer.fullOf(e.proxyId, e.seq)) || e),
      kept: () => this.snapshot(),
      maxBytes: this.maxBytes,
    };
  }

  /** the newest `limit` exchanges (all by default), oldest first; `proxyId`: only that proxy's or opened file's */
  snapshot(limit?: number, proxyId?: string): TrafficEvent[] {
    if (proxyId === undefined) return this.buffer.snapshot(limit);
    const mine: TrafficEvent[] = [];
    this.buffer.forEach((e) => void (e.proxyId === proxyId && mine.push(e)));
    return limit === undefined ? mine : mine.slice(-limit);
  }

  /**
   * traffic.snapshot: the exchanges in one answer, refused (with what to do instead) when they weigh more than
   * SNAPSHOT_MAX_BYTES — one answer of a full timeline is hundreds of MB built at once, while nothing else is answered.
   */
  snapshotAnswer(limit?: number, proxyId?: string): TrafficEvent[] {
    const events = this.snapshot(limit, proxyId);
    let bytes = 0;
    for (const e of events) bytes += e.bytes ?? 0;
    if (bytes > SNAPSHOT_MAX_BYTES)
      throw new Error(
        `traffic.snapshot: ${events.length.toLocaleString('en')} exchanges (${megabytes(bytes)}) are more than one answer carries (${megabytes(SNAPSHOT_MAX_BYTES)}): read them page by page with traffic.page`,
      );
    return events;
  }

  /** traffic.page: the exchanges after `after` (a page's `next`), a page at a time (bounded in count and bytes) */
  page({ after = -1, proxyId }: CommandInput<'traffic.page'>): CommandOutputs['traffic.page'] {
    const mine = proxyId === undefined ? undefined : (e: TrafficEvent): boolean => e.proxyId === proxyId;
    const { events, cursor } = this.buffer.page(after, TRAFFIC_PAGE_EVENTS, TRAFFIC_PAGE_BYTES, mine);
    let total = this.buffer.size;
    if (mine) {
      total = 0;
      this.buffer.forEach((e) => void (mine(e) && total++));
    }
    return cursor === undefined ? { events, total } : { events, total, next: cursor };
  }

  /** An exchange whose bodies the timeline truncated, in full, while the engine holds it ("Load full body"). */
  full(proxyId: string, seq: number): CommandOutputs['traffic.body'] {
    const full = this.buffer.fullOf(proxyId, seq);
    if (full) return { held: true, event: full };
    const kept = this.buffer.find(seq);
    if (kept && kept.proxyId === proxyId && !kept.truncated) return { held: true, event: kept };
    return {
      held: false,
      reason: kept
        ? `the full body is no longer held: the engine keeps the newest ${FULL_BODIES_BYTES / 1024 / 1024} MB of truncated bodies`
        : `no exchange #${seq} on the timeline any more`,
    };
  }

  /** Every exchange, one proxy's, or the ones listed; what was removed can be put back for a while (undoClear). */
  clear(scope: CommandInput<'traffic.clear'> = {}): { cleared: number; undo?: string } {
    const listed = scope.items && new Set(scope.items.map((i) => `${i.proxyId}\u0000${i.seq}`));
    const removed = this.buffer.remove(
      (e) =>
        !this.keeps(e.seq) &&
        (listed ? listed.has(`${e.proxyId}\u0000${e.seq}`) : !scope.proxyId || e.proxyId === scope.proxyId),
    );
    this.forgetClear();
    if (removed.length === 0) return { cleared: 0 };
    const undo = randomUUID();
    this.lastClear = {
      undo,
      events: removed,
      timer: setTimeout(() => (this.lastClear = undefined), UNDO_CLEAR_MS).unref(),
    };
    return { cleared: removed.length, undo };
  }

  undoClear(undo: string): { restored: number } {
    const last = this.lastClear;
    if (!last || last.undo !== undo)
      throw new Error('undo: this Clear can no longer be undone (too late, or another Clear came after it)');
    this.forgetClear();
    this.buffer.restore(last.events);
    return { restored: last.events.length };
  }

  /** Times each cassette key was served from cache by the given proxies, each since the time given for it. */
  hits(since: Map<string, number>): Map<string, number> {
    const hits = new Map<string, number>();
    if (since.size === 0) return hits;
    this.buffer.forEach((event) => {
      const from = since.get(event.proxyId);
      if (event.cassette === 'hit' && from !== undefined && event.startedAt >= from)
        hits.set(event.key, (hits.get(event.key) ?? 0) + 1);
    });
    return hits;
  }

  forgetClear(): void {
    clearTimeout(this.lastClear?.timer);
    this.lastClear = undefined;
  }
}

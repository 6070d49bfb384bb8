import { describe, expect, it } from 'vitest';
import type { TrafficEvent } from '../../src/shared/api.js';
import { TrafficBuffer } from '../../src/main/api/traffic/traffic-buffer.js';

// traffic.page's cursor (src/main/api/traffic/traffic-buffer.ts): pages stay complete and without duplicates while
// exchanges come (live traffic), go (the oldest dropped at the cap, a Clear) and come back (its undo) between pages.

const event = (seq: number, proxyId = 'p1'): TrafficEvent =>
  ({
    seq,
    proxyId,
    method: 'tools/call',
    key: `k${seq}`,
    source: 'upstream',
    cassette: 'none',
    request: { jsonrpc: '2.0', id: seq, method: 'tools/call' },
    stream: [],
    startedAt: seq,
    durationMs: 1,
  }) as TrafficEvent;

function readAll(buffer: TrafficBuffer, between: (page: number) => void, count = 3, proxy?: string): number[] {
  const seen: number[] = [];
  let after = -1;
  for (let page = 0; ; page++) {
    const { events, cursor } = buffer.page(after, count, 1e9, proxy ? (e) => e.proxyId === proxy : undefined);
    seen.push(...events.map((e) => e.seq));
    if (cursor === undefined) return seen;
    after = cursor;
    between(page);
  }
}

describe('the timeline read a page at a time', () => {
  it('gets every exchange once, in order, and the ones that arrive meanwhile', () => {
    const buffer = new TrafficBuffer(100);
    for (let i = 1; i <= 10; i++) buffer.push(event(i));
    let next = 11;
    const seen = readAll(buffer, () => void buffer.push(event(next++)));
    expect(seen).toEqual(Array.from({ length: next - 1 }, (_, i) => i + 1));
  });

  it('skips what was dropped or cleared meanwhile, never repeats, and finds what an undo put back', () => {
    const buffer = new TrafficBuffer(8);
    for (let i = 1; i <= 8; i++) buffer.push(event(i));
    const seen = readAll(buffer, (page) => {
      if (page === 0) buffer.push(event(9)); // at the cap: #1 goes (already read)
      if (page === 1) {
        const removed = buffer.remove((e) => e.seq === 7 || e.seq === 8); // not read yet
        buffer.push(event(10));
        buffer.restore(removed.filter((e) => e.seq === 8)); // #8 back in its place, before #9
      }
    });
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 8, 9, 10]);
  });

  it('pages one proxy’s exchanges by count, and keeps within the bytes (one at least)', () => {
    const buffer = new TrafficBuffer(100);
    for (let i = 1; i <= 20; i++) buffer.push(event(i, i % 2 ? 'odd' : 'even'));
    expect(readAll(buffer, () => {}, 4, 'even')).toEqual([2, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
    const sizes = buffer.snapshot().map((e) => e.bytes ?? 0);
    const page = buffer.page(-1, 100, sizes[0] + sizes[1]);
    expect(page.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(buffer.page(-1, 100, 1).events).toHaveLength(1);
  });
});

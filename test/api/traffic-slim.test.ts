import { describe, expect, it } from 'vitest';
import type { TrafficEvent } from '../../src/shared/api.js';
import { BODY_LIMIT, slimEvent } from '../../src/main/api/traffic/traffic-slim.js';

// The timeline's truncation limit and the sizes it reports are UTF-8 bytes, as the wire carries them: a body in a
// non-Latin script weighs up to 3 bytes per UTF-16 code unit.

const bytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v), 'utf8');
const answer = (text: string): TrafficEvent =>
  ({
    seq: 1,
    key: 'k',
    method: 'tools/call',
    request: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: '天気_予報', arguments: {} } },
    response: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } },
    stream: [],
  }) as unknown as TrafficEvent;

describe('slimEvent counts bytes', () => {
  it('cuts a body over the limit in bytes even when its code units are under it, and says its full bytes', () => {
    const event = answer('あ'.repeat(Math.ceil(BODY_LIMIT / 2))); // fewer code units than the limit, 1.5× its bytes
    expect(JSON.stringify(event.response).length).toBeLessThan(BODY_LIMIT);
    const { event: slim, truncated } = slimEvent(event);
    expect(truncated).toBe(true);
    expect(slim.truncated).toEqual({ response: bytes(event.response) });
    const result = (slim.response as unknown as { result: { $truncated: { bytes: number; preview: string } } }).result;
    expect(result.$truncated.bytes).toBe(bytes(event.response));
    expect(result.$truncated.preview).toContain('あああ');
    expect(slim.bytes).toBeGreaterThanOrEqual(bytes(slim.request) + bytes(slim.response));
    expect(slim.bytes).toBeLessThan(BODY_LIMIT);
  });

  it('keeps a body within the limit whole, weighed in bytes', () => {
    const event = answer('🔧é'.repeat(1000));
    const { event: kept, truncated } = slimEvent(event);
    expect(truncated).toBe(false);
    expect(kept.response).toBe(event.response);
    expect(kept.bytes).toBe(600 + bytes(event.request) + bytes(event.response));
  });

  it('says a cut stream in bytes', () => {
    const event = { ...answer('ok'), stream: Array.from({ length: 3 }, () => answer('ש'.repeat(120_000)).response) };
    const { event: slim } = slimEvent(event as TrafficEvent);
    expect(slim.truncated?.stream).toBe(bytes(event.stream));
  });
});

import { describe, expect, it } from 'vitest';
import { commands } from '../../src/shared/api.js';
import type { ExchangeEvent } from '../../src/shared/traffic.js';

// attach.exchanges carries the engine's ExchangeEvent as it is (its type, not a second description), checked loosely.
const event: ExchangeEvent = {
  seq: 3,
  method: 'tools/call',
  tool: 'echo',
  key: 'tools-call-echo-0123456789abcdef',
  source: 'upstream',
  cassette: 'recorded',
  request: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } },
  stream: [{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } }],
  response: { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'Echo: hi' }] } },
  startedAt: 1_700_000_000_000,
  durationMs: 2.5,
  final: 'answered',
  timing: { sentUpstream: 0.1, firstByte: 2 },
};
const schema = commands['attach.exchanges'];
const attachId = 'abcdefgh1234';

describe('attach.exchanges', () => {
  it('takes an engine exchange with every field it has, unchanged', () => {
    const parsed = schema.parse({ attachId, events: [event] });
    expect(parsed.events).toEqual([event]);
  });

  it('refuses a malformed exchange, naming the field and its place in the batch', () => {
    const { seq: _seq, ...noSeq } = event;
    const bad = { ...event, source: 'elsewhere' };
    const result = schema.safeParse({ attachId, events: [event, noSeq, bad, 'not an exchange'] });
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['events.1.seq', 'events.2.source', 'events.3']));
    expect(paths.some((p) => p.startsWith('events.0'))).toBe(false);
  });
});

/**
 * The timeline is capped by bytes as well as by count, in the engine and in the view: bodies over 256 kB are
 * truncated on the timeline (the engine keeps the full exchange a while for "Load full body"), and the oldest
 * exchanges go once the bytes are spent. Real engine and shell (startUi), real SDK peers.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TrafficEvent } from '../../src/shared/api.js';
import { FULL_BODIES_BYTES, TrafficBuffer } from '../../src/main/api/traffic/traffic-buffer.js';
import { connectStores } from '../../src/renderer/src/stores/connection.js';
import { flushTraffic, ingestTraffic, useTraffic } from '../../src/renderer/src/stores/traffic.js';
import { tempDir } from '../helpers/temp.js';
import { browserShell, closeAll, closers, eventually, mcpClient, textOf, upstream } from './shell.js';

afterEach(closeAll);
beforeEach(() => useTraffic.setState(useTraffic.getInitialState(), true));

const BIG = 'x'.repeat(600_000);

describe('a large exchange on the timeline', () => {
  it('arrives with its bodies truncated and its size; "Load full body" gets it in full from the engine', async () => {
    const { api } = await browserShell();
    const proxy = await api.call('proxies.create', {
      mode: 'record',
      upstreamUrl: await upstream(),
      cacheDir: await tempDir('rewind-cassette-'),
    });
    closers.push(connectStores(api));
    const client = await mcpClient(proxy.url as string);
    expect(textOf(await client.client.callTool({ name: 'echo', arguments: { text: BIG } }))).toBe(`echo: ${BIG}`); // the client got it all
    const event = await eventually(
      () => useTraffic.getState().exchanges.find((e) => e.tool === 'echo'),
      'the echo exchange',
    );
    expect(event.truncated?.request).toBeGreaterThan(600_000);
    expect(event.truncated?.response).toBeGreaterThan(600_000);
    expect(event.bytes).toBeLessThan(10_000);
    expect(JSON.stringify(event).length).toBeLessThan(10_000);
    expect(event.response).toMatchObject({
      result: { $truncated: { bytes: expect.any(Number), preview: expect.stringContaining('echo: xxx') } },
    });

    await useTraffic.getState().loadFullBody(event);
    const full = useTraffic.getState().full?.event;
    expect(textOf(full?.response && 'result' in full.response ? full.response.result : {})).toBe(`echo: ${BIG}`);
    expect((full?.request.params?.arguments as { text: string }).text).toBe(BIG);

    // the engine lets full bodies go, newest kept: asked again later, it says so
    const gone = await api.call('traffic.body', { proxyId: proxy.id, seq: event.seq + 1_000_000 });
    expect(gone).toEqual({ held: false, reason: expect.stringContaining('no exchange') });
  });
});

describe('the byte cap', () => {
  it('the engine ring keeps what fits, newest first; full bodies are held within their own budget', () => {
    const ring = new TrafficBuffer(100_000, 2 * 1024 * 1024);
    const event = (seq: number): TrafficEvent =>
      ({
        seq,
        proxyId: 'p',
        method: 'tools/call',
        key: 'k',
        source: 'upstream',
        cassette: 'none',
        startedAt: 0,
        durationMs: 1,
        stream: [],
        request: { jsonrpc: '2.0', id: seq, method: 'tools/call', params: { name: 'big' } },
        response: { jsonrpc: '2.0', id: seq, result: { content: [{ type: 'text', text: 'y'.repeat(1_000_000) }] } },
      }) as TrafficEvent;
    for (let seq = 1; seq <= 300; seq++) ring.push(event(seq)); // 300 MB of bodies
    expect(ring.bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(ring.size).toBe(300); // truncated, each is small: all fit
    expect(ring.fullOf('p', 300)?.response).toEqual(event(300).response);
    expect(ring.fullOf('p', 1)).toBeUndefined(); // beyond FULL_BODIES_BYTES of newer ones
    expect(FULL_BODIES_BYTES).toBeLessThan(300 * 1_000_000);
    const tight = new TrafficBuffer(100_000, 20_000);
    for (let seq = 1; seq <= 50; seq++) tight.push(event(seq));
    expect(tight.bytes).toBeLessThanOrEqual(20_000);
    expect(tight.size).toBeLessThan(50);
    expect(tight.snapshot().at(-1)?.seq).toBe(50);
  });

  it('the view drops its oldest exchanges once their bytes exceed its cap', () => {
    useTraffic.setState({ maxBytes: 50_000 });
    ingestTraffic(Array.from({ length: 20 }, (_, i) => ({ seq: i + 1, proxyId: 'p', bytes: 10_000 }) as TrafficEvent));
    flushTraffic();
    const { exchanges, dropped } = useTraffic.getState();
    expect(exchanges.map((e) => e.seq)).toEqual([16, 17, 18, 19, 20]);
    expect(dropped).toBe(15);
  });
});

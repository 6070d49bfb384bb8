import { afterEach, describe, expect, it } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import { startCustomUpstream, type CustomUpstream } from '../helpers/custom-upstream.js';
import { startSubscriber } from '../helpers/subscriber.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});

describe('HTTP edges', () => {
  it('relays OAuth discovery documents from the upstream origin, path and all', async () => {
    const upstream: CustomUpstream = await startCustomUpstream(
      () => new Server({ name: 'u', version: '1' }, { capabilities: {} }),
    );
    open.push(upstream);
    const proxy: RunningProxy = await startProxy({ mode: 'proxy-only', upstreamUrl: upstream.url });
    open.push(proxy);
    const direct = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', upstream.url));
    const relayed = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', proxy.url));
    expect(relayed.status).toBe(direct.status);
    expect(await relayed.text()).toBe(await direct.text());
    expect(upstream.requests.filter((r) => r.url === '/.well-known/oauth-protected-resource/mcp')).toHaveLength(2);
  });

  it('answers a JSON-RPC batch from the cassette in replay, one answer per request, 202 for notification-only posts', async () => {
    const proxy = await startProxy({ mode: 'replay', cacheDir: await tempDir() });
    open.push(proxy);
    const post = (body: unknown) =>
      fetch(proxy.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(body),
      });
    const batch = await post([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 7, method: 'tools/list' },
    ]);
    expect(batch.status).toBe(200);
    expect(await batch.json()).toEqual([
      { jsonrpc: '2.0', id: 'a', result: {} },
      { jsonrpc: '2.0', id: 7, result: { tools: [] } },
    ]);
    const notification = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    expect(notification.status).toBe(202);
    const streamOnly = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(streamOnly.headers.get('content-type')).toBe('text/event-stream');
    expect(await streamOnly.text()).toBe('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n');
  });
});

describe('the standalone GET stream', () => {
  it('relays server-initiated notifications (tools/list_changed) to the client in live modes', async () => {
    const { CallToolRequestSchema, ListToolsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const { connectClient } = await import('../fixtures/client.js');
    const upstream = await startCustomUpstream(() => {
      const server = new Server({ name: 'pusher', version: '1' }, { capabilities: { tools: { listChanged: true } } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [{ name: 'poke', inputSchema: { type: 'object' } }],
      }));
      server.setRequestHandler(CallToolRequestSchema, async () => {
        await server.sendToolListChanged(); // not tied to the request: travels on the GET stream
        return { content: [{ type: 'text', text: 'poked' }] };
      });
      return server;
    });
    open.push(upstream);
    const proxy = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir: await tempDir() });
    open.push(proxy);
    const c = await connectClient(proxy.url);
    open.push(c);
    // the SDK client opens its GET stream after initialize; wait until it reached the upstream through the proxy
    await expect.poll(() => upstream.requests.some((r) => r.method === 'GET'), { timeout: 5000 }).toBe(true);
    await c.client.callTool({ name: 'poke', arguments: {} });
    await expect
      .poll(() => c.notifications.map((n) => n.method), { timeout: 5000 })
      .toContain('notifications/tools/list_changed');
  });
});

describe('server notifications outside requests', () => {
  it('are recorded after the exchange they followed and replayed on the server stream after it', async () => {
    const { connectClient } = await import('../fixtures/client.js');
    const upstream = await startSubscriber();
    open.push(upstream);
    const cacheDir = await tempDir();
    const recording = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir });
    const live = await connectClient(recording.url);
    await expect.poll(() => upstream.requests.some((r) => r.method === 'GET'), { timeout: 5000 }).toBe(true);
    await live.client.subscribeResource({ uri: 'demo://a' });
    await expect
      .poll(() => live.notifications.map((n) => n.method), { timeout: 5000 })
      .toContain('notifications/resources/updated');
    await recording.flush();
    await live.close();
    await recording.close();
    await upstream.close();

    const replaying = await startProxy({ mode: 'replay', cacheDir });
    open.push(replaying);
    const c = await connectClient(replaying.url);
    open.push(c);
    await c.client.subscribeResource({ uri: 'demo://a' });
    await expect
      .poll(() => c.notifications, { timeout: 5000 })
      .toEqual([{ method: 'notifications/resources/updated', params: { uri: 'demo://a' } }]);
  });
});

describe('resumability in live modes', () => {
  it('relays SSE event ids, retry and priming events byte for byte, and Last-Event-ID back to the upstream', async () => {
    const http = await import('node:http');
    const seen: Array<{ method?: string; lastEventId?: string | string[] }> = [];
    const body =
      'id: prime-1\nretry: 1500\ndata: \n\nid: ev-2\nevent: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n';
    const raw = http.createServer((req, res) => {
      seen.push({ method: req.method, lastEventId: req.headers['last-event-id'] });
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'upstream-session' });
      res.end(body);
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise<void>((resolve) => raw.close(() => resolve())) });
    const upstreamUrl = `http://127.0.0.1:${(raw.address() as { port: number }).port}/mcp`;
    for (const mode of ['proxy-only', 'record'] as const) {
      const proxy = await startProxy({ mode, upstreamUrl, cacheDir: await tempDir() });
      open.push(proxy);
      const post = await fetch(proxy.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': 'upstream-session',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(await post.text()).toBe(body);
      const resume = await fetch(proxy.url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': 'upstream-session', 'last-event-id': 'ev-2' },
      });
      expect(await resume.text()).toBe(body);
      expect(seen.at(-1)).toEqual({ method: 'GET', lastEventId: 'ev-2' });
    }
  });
});

/**
 * Live modes at their edges: what is not valid JSON-RPC goes to the server, which judges it (also when someone
 * watches the traffic, so the proxy parses POSTs); a client that goes away is logged as such, never as an upstream
 * failure.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startProxy } from '../../src/main/engine/proxy.js';
import type { ExchangeEvent } from '../../src/shared/traffic.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { startCustomUpstream } from '../helpers/custom-upstream.js';
import { keeper } from '../helpers/keep.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';
import { rawPost } from '../helpers/three-ways.js';

const { keep, closeAll } = keeper();
afterEach(async () => {
  await closeAll();
  await removeTempDirs();
});

const INVALID = [
  { name: 'id null', body: { jsonrpc: '2.0', id: null, method: 'tools/list' } },
  { name: 'id an object', body: { jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' } },
  { name: 'no jsonrpc', body: { id: 1, method: 'tools/list' } },
  { name: 'not JSON', body: '{"jsonrpc":' },
];

describe.each(['proxy-only', 'record'] as const)(
  '%s with someone watching: invalid requests reach the server',
  (mode) => {
    it.each(INVALID)('$name: the server answers it, not the proxy', async ({ body }) => {
      const server = keep(await startSdkServer());
      const proxy = keep(
        await startProxy({
          mode,
          upstreamUrl: server.url,
          cacheDir: mode === 'record' ? await tempDir() : undefined,
          onLog: () => {},
        }),
      );
      proxy.events.on('exchange', () => {}); // someone watches: POSTs are parsed, not piped
      const h = { 'mcp-protocol-version': '2025-11-25' };
      const direct = await rawPost(server.url, body, h);
      const through = await rawPost(proxy.url, body, h);
      expect(direct.status).toBe(400);
      expect(through).toEqual(direct);
    });
  },
);

describe('a client that disconnects', () => {
  it('is logged as a disconnected client, not as "upstream closed the stream"; the timeline flags it', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const upstream = keep(
      await startCustomUpstream(() => {
        const server = new Server({ name: 'slow', version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
        server.setRequestHandler(ListToolsRequestSchema, () => ({
          tools: [{ name: 'slow', inputSchema: { type: 'object' } }],
        }));
        server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
          await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'working' } });
          started();
          await new Promise((resolve) => setTimeout(resolve, 2_000));
          return { content: [{ type: 'text', text: 'too late' }] };
        });
        return server;
      }),
    );
    const lines: string[] = [];
    const proxy = keep(
      await startProxy({
        mode: 'record',
        upstreamUrl: upstream.url,
        cacheDir: await tempDir(),
        onLog: (line) => lines.push(line),
      }),
    );
    const events: ExchangeEvent[] = [];
    proxy.events.on('exchange', (e) => events.push(e));
    const init = await rawPost(proxy.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'leaver', version: '1' } },
    });
    const abort = new AbortController();
    const call = fetch(proxy.url, {
      method: 'POST',
      signal: abort.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': init.sessionId as string,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } }),
    }).then((res) => res.text());
    await running;
    abort.abort();
    await call.catch(() => {});
    const end = Date.now() + 5_000;
    while (!events.some((e) => e.method === 'tools/call') && Date.now() < end)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const exchange = events.find((e) => e.method === 'tools/call');
    expect(exchange?.flags).toEqual(['client disconnected before the answer']);
    expect(exchange?.response).toBeUndefined();
    expect(lines.some((l) => l.includes('client disconnected before the answer to tools/call'))).toBe(true);
    expect(lines.some((l) => l.includes('upstream closed the stream'))).toBe(false);
  });
});

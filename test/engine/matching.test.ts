import { afterEach, describe, expect, it } from 'vitest';
import { type McpError, CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { startProxy, type ProxyOptions, type RunningProxy } from '../../src/main/engine/proxy.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { startCustomUpstream } from '../helpers/custom-upstream.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});
async function keep<T extends { close(): Promise<void> }>(thing: Promise<T>): Promise<T> {
  const t = await thing;
  open.push(t);
  return t;
}
const text = (r: unknown): string => ((r as { content: Array<{ text: string }> }).content[0] ?? { text: '' }).text;

/** Records `calls` against the fixture server, stops it, and returns a client of a replay proxy with `options`. */
async function recorded(
  calls: (c: ConnectedClient) => Promise<void>,
  options: Partial<ProxyOptions> = {},
): Promise<ConnectedClient> {
  const server = await startSdkServer();
  const cacheDir = await tempDir();
  const recording = await startProxy({ mode: 'record', upstreamUrl: server.url, cacheDir });
  const c = await connectClient(recording.url);
  await calls(c);
  await c.close();
  await recording.close();
  await server.close();
  const replaying: RunningProxy = await keep(startProxy({ mode: 'replay', cacheDir, ...options }));
  return keep(connectClient(replaying.url));
}

describe('matching a request to a recording', () => {
  it('ignores the order of argument keys (the exact mcp-rewind hash differs)', async () => {
    const c = await recorded(async (r) => void (await r.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })));
    expect(text(await c.client.callTool({ name: 'add', arguments: { b: 2, a: 1 } }))).toBe('3');
  });

  it('ignores --match-ignore paths, and only those', async () => {
    const c = await recorded(
      async (r) => void (await r.client.callTool({ name: 'echo', arguments: { text: 'at 10:00' } })),
      {
        matchIgnore: ['arguments.text'],
      },
    );
    expect(text(await c.client.callTool({ name: 'echo', arguments: { text: 'at 10:05' } }))).toBe('echo: at 10:00');
    const strict = await recorded(
      async (r) => void (await r.client.callTool({ name: 'echo', arguments: { text: 'at 10:00' } })),
    );
    const miss = await strict.client
      .callTool({ name: 'echo', arguments: { text: 'at 10:05' } })
      .catch((e: unknown) => e);
    expect((miss as McpError).code).toBe(-32004);
  });
});

describe('repeated identical requests', () => {
  const twoCounts = async (r: ConnectedClient): Promise<void> => {
    await r.client.callTool({ name: 'counter', arguments: {} });
    await r.client.callTool({ name: 'counter', arguments: {} });
  };
  const three = async (c: ConnectedClient): Promise<string[]> => {
    const out: string[] = [];
    for (let i = 0; i < 3; i++)
      out.push(
        await c.client.callTool({ name: 'counter', arguments: {} }).then(text, (e: McpError) => `error ${e.code}`),
      );
    return out;
  };

  it('replay in recorded order, then repeat the last (default)', async () => {
    expect(await three(await recorded(twoCounts))).toEqual(['count 1', 'count 2', 'count 2']);
  });
  it('--repeat cycle starts over', async () => {
    expect(await three(await recorded(twoCounts, { repeat: 'cycle' }))).toEqual(['count 1', 'count 2', 'count 1']);
  });
  it('--repeat error misses once exhausted, saying so', async () => {
    const c = await recorded(twoCounts, { repeat: 'error' });
    expect(await three(c)).toEqual(['count 1', 'count 2', 'error -32004']);
    const error = (await c.client.callTool({ name: 'counter', arguments: {} }).catch((e: unknown) => e)) as McpError;
    expect(error.message).toContain('all 2 recorded answer(s)');
  });
});

describe('paginated lists', () => {
  it('record each page as its own entry and replay them, nextCursor preserved', async () => {
    const pages: Record<
      string,
      { tools: Array<{ name: string; inputSchema: { type: 'object' } }>; nextCursor?: string }
    > = {
      first: { tools: [{ name: 'one', inputSchema: { type: 'object' } }], nextCursor: 'page-2' },
      'page-2': { tools: [{ name: 'two', inputSchema: { type: 'object' } }], nextCursor: 'page-3' },
      'page-3': { tools: [{ name: 'three', inputSchema: { type: 'object' } }] },
    };
    const upstream = await startCustomUpstream(() => {
      const server = new Server({ name: 'paged', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, (req) => pages[req.params?.cursor ?? 'first']);
      server.setRequestHandler(CallToolRequestSchema, () => ({ content: [] }));
      return server;
    });
    const cacheDir = await tempDir();
    const recording = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir });
    const r = await connectClient(recording.url);
    const live = [
      await r.client.listTools(),
      await r.client.listTools({ cursor: 'page-2' }),
      await r.client.listTools({ cursor: 'page-3' }),
    ];
    await r.close();
    await recording.close();
    await upstream.close();

    const replaying = await keep(startProxy({ mode: 'replay', cacheDir }));
    const c = await keep(connectClient(replaying.url));
    const replayed = [
      await c.client.listTools(),
      await c.client.listTools({ cursor: 'page-2' }),
      await c.client.listTools({ cursor: 'page-3' }),
    ];
    expect(replayed).toEqual(live);
    expect(replayed.map((p) => p.nextCursor)).toEqual(['page-2', 'page-3', undefined]);
    expect(replaying.store?.size).toBeGreaterThanOrEqual(4); // initialize + three pages
  });
});

/**
 * The timeline's store gets the insight checks' findings a moment after each exchange (the `insight` event, over the
 * real WebSocket bridge of the browser shell), keeps them through a snapshot, and `has:problem` in the search box keeps
 * the exchanges that have one. Real engine and shell, a real SDK server that breaks a rule.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectStores } from '../../src/renderer/src/stores/connection.js';
import { syncTraffic, useTraffic } from '../../src/renderer/src/stores/traffic.js';
import { applyFilter, EMPTY_FILTER, problemsOf } from '../../src/renderer/src/views/timeline/model.js';
import { startCustomUpstream } from '../helpers/custom-upstream.js';
import { browserShell, closeAll, closers, eventually, mcpClient } from './shell.js';

afterEach(closeAll);
beforeEach(() => useTraffic.setState(useTraffic.getInitialState(), true));

function duplicateTools(): Server {
  const server = new Server({ name: 'dup', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: 'find', inputSchema: { type: 'object' as const } },
      { name: 'find', inputSchema: { type: 'object' as const } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: 'found' }] }));
  return server;
}

describe('findings on the timeline', () => {
  it('arrive after the exchange, survive a snapshot, and has:problem keeps only those exchanges', async () => {
    const { api } = await browserShell();
    const up = await startCustomUpstream(duplicateTools);
    closers.push(() => up.close());
    const proxy = await api.call('proxies.create', { mode: 'proxy-only', upstreamUrl: up.url });
    closers.push(connectStores(api));
    const client = await mcpClient(proxy.url as string);
    await client.client.listTools();
    await client.client.callTool({ name: 'find', arguments: {} });

    const list = await eventually(
      () => useTraffic.getState().exchanges.find((e) => e.method === 'tools/list' && e.insight),
      'the checked tools/list',
    );
    expect(problemsOf(list)).toEqual({
      count: 1,
      worst: 'error',
      summary: '1 error — tool.name-duplicate: a second tool named "find"',
    });
    expect(list.insight?.problems[0]).toMatchObject({
      id: 'tool.name-duplicate',
      path: 'response.result.tools[1].name',
    });
    await eventually(
      () => useTraffic.getState().exchanges.find((e) => e.method === 'tools/call' && e.insight?.tokens !== undefined),
      'the counted tools/call',
    );

    const all = useTraffic.getState().exchanges;
    expect(applyFilter(all, { ...EMPTY_FILTER, text: 'has:problem' }).map((e) => e.method)).toEqual(['tools/list']);
    expect(applyFilter(all, { ...EMPTY_FILTER, text: 'has:problem find' }).map((e) => e.method)).toEqual([
      'tools/list',
    ]);
    expect(applyFilter(all, { ...EMPTY_FILTER, text: 'has:problem nothing-like-this' })).toEqual([]);

    await syncTraffic(); // a reconnect's snapshot: the engine's copies carry the findings too
    expect(useTraffic.getState().exchanges.find((e) => e.method === 'tools/list')?.insight?.problems[0]?.id).toBe(
      'tool.name-duplicate',
    );
    const counts = (await api.call('proxies.list', {})).find((p) => p.id === proxy.id)?.problems;
    expect(counts).toEqual({ error: 1, warning: 0, info: 0 });
  });
});

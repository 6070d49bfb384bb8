/**
 * Every exchange ends in a final state, set by the engine where it ends (ExchangeEvent.final): answered, error,
 * http-error, client-gone, cancelled, timeout — through real SDK clients and servers, in the modes that observe.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ExchangeEvent } from '../../src/shared/traffic.js';
import { startProxy, type ProxyOptions, type RunningProxy } from '../../src/main/engine/proxy.js';
import { saveTraffic } from '../../src/main/api/traffic/traffic-save.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../fixtures/sdk-server.js';
import { startCustomUpstream, type CustomUpstream } from '../helpers/custom-upstream.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});
const keep = <T extends { close(): Promise<void> }>(thing: T): T => (open.push(thing), thing);

/** A server with a tool that never answers on its own (it lets go when the proxy or the test closes it). */
function hangingServer(): Server {
  const server = new Server({ name: 'hanging', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'hang', inputSchema: { type: 'object' } }],
  }));
  server.setRequestHandler(
    CallToolRequestSchema,
    (_request, extra) =>
      new Promise((resolve) => extra.signal.addEventListener('abort', () => resolve({ content: [] }))),
  );
  return server;
}

/** The proxy's exchange events, and a wait for the first one of a method that matches. */
function watch(p: RunningProxy): { events: ExchangeEvent[]; next(toolOrMethod: string): Promise<ExchangeEvent> } {
  const events: ExchangeEvent[] = [];
  p.events.on('exchange', (e) => events.push(e));
  return {
    events,
    async next(name) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = events.find((e) => (e.tool ?? e.method) === name);
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(`no exchange event for ${name} (have: ${events.map((e) => e.method).join(', ')})`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}

const proxy = async (options: ProxyOptions): Promise<RunningProxy> => keep(await startProxy(options));
const client = async (url: string): Promise<ConnectedClient> => keep(await connectClient(url));
const hanging = async (): Promise<CustomUpstream> => keep(await startCustomUpstream(hangingServer));

describe.each(['record', 'proxy-only'] as const)('every exchange ends in a final state (%s)', (mode) => {
  const options = async (upstreamUrl: string): Promise<ProxyOptions> => ({
    mode,
    upstreamUrl,
    ...(mode === 'record' ? { cacheDir: await tempDir() } : {}),
  });

  it('answered (a tool error result included) and error (a JSON-RPC error)', async () => {
    const server = keep(await startSdkServer());
    const p = await proxy(await options(server.url));
    const seen = watch(p);
    const c = await client(p.url);
    await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    await c.client.callTool({ name: 'fail', arguments: {} });
    await c.client.getPrompt({ name: 'no-such-prompt' }).catch(() => undefined);
    expect((await seen.next('echo')).final).toBe('answered');
    expect((await seen.next('fail')).final).toBe('answered');
    expect((await seen.next('prompts/get')).final).toBe('error');
    expect(seen.events.every((e) => e.final !== undefined)).toBe(true); // initialize, tools/list… too
  });

  it('http-error: the upstream restarted under the session and refused the next call at the HTTP level', async () => {
    const first: SdkServerHandle = await startSdkServer();
    const p = await proxy(await options(first.url));
    const seen = watch(p);
    const c = await client(p.url);
    await c.client.callTool({ name: 'echo', arguments: { text: 'before' } });
    await first.close();
    keep(await startSdkServer({ port: first.port })); // a new server on the same port: our session is unknown to it
    const error = await c.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/404|Session not found/); // what the client got
    const event = await seen.next('add');
    expect(event.final).toBe('http-error');
    expect(event.finalReason).toMatch(/HTTP 404.*Session not found/);
    expect(event.http?.status).toBe(404);

    // Save as HAR keeps it, with its status and why it has no answer (as Chrome writes a failed request)
    const out = join(await tempDir(), 'all.har');
    const saved = await saveTraffic(
      seen.events.map((e) => ({ ...e, proxyId: 'p' })),
      { format: 'har', out, urlOf: () => p.url },
    );
    expect(saved.skipped).toEqual([]);
    const har = JSON.parse(await readFile(out, 'utf8')) as {
      log: { entries: Array<{ response: { status: number; _error?: string }; _mcpRewind: { final?: string } }> };
    };
    const refused = har.log.entries.find((entry) => entry._mcpRewind.final === 'http-error');
    expect(refused?.response.status).toBe(404);
    expect(refused?.response._error).toMatch(/Session not found/);
  });

  it('cancelled: the client cancels a call in flight (notifications/cancelled); it ends at once, cancelled', async () => {
    const up = await hanging();
    const p = await proxy(await options(up.url));
    const seen = watch(p);
    const c = await client(p.url);
    const abort = new AbortController();
    const call = c.client
      .callTool({ name: 'hang', arguments: {} }, undefined, { signal: abort.signal })
      .catch((e: Error) => e);
    await new Promise((r) => setTimeout(r, 200));
    abort.abort('the user pressed stop');
    await call;
    const event = await seen.next('hang');
    expect(event.final).toBe('cancelled');
    expect(event.finalReason).toContain('the user pressed stop');
    expect(event.response).toBeUndefined();
  });

  it.each([true, false])(
    'client-gone: the client goes away before the answer (ending its session first: %s)',
    async (terminateOnClose) => {
      const up = await hanging();
      const p = await proxy(await options(up.url));
      const seen = watch(p);
      const c = await connectClient(p.url, { terminateOnClose });
      void c.client.callTool({ name: 'hang', arguments: {} }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 200));
      await c.close();
      const event = await seen.next('hang');
      expect(event.final).toBe('client-gone');
    },
  );

  it('timeout: the upstream limit cuts the call; the client gets -32005 and the exchange says timed out', async () => {
    const up = await hanging();
    const p = await proxy({ ...(await options(up.url)), upstreamTimeoutMs: 300 });
    const seen = watch(p);
    const c = await client(p.url);
    const error = await c.client.callTool({ name: 'hang', arguments: {} }).then(
      () => undefined,
      (e: { code?: number }) => e,
    );
    expect(error?.code).toBe(-32005);
    const event = await seen.next('hang');
    expect(event.final).toBe('timeout');
    expect(event.finalReason).toMatch(/timeout|timed out|no answer/i);
  });
});

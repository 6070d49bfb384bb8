import { afterEach, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { BreakpointsState, PausedCall } from '../../src/shared/breakpoints.js';
import { type Breakpoints } from '../../src/main/engine/pipeline/breakpoints.js';
import { startProxy, type ProxyOptions, type RunningProxy } from '../../src/main/engine/proxy.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { startSdkServer, type SdkServerHandle, type SdkServerOptions } from '../fixtures/sdk-server.js';
import { distilledFiles, removeTempDirs, tempDir } from '../helpers/temp.js';
import { app, call, cleanup, client as apiClient, failure, textOf, upstream as apiUpstream } from '../api/harness.js';

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
  await cleanup();
});
const keep = <T extends { close(): Promise<void> }>(thing: T): T => (open.push(thing), thing);
const upstream = (options: SdkServerOptions = {}): Promise<SdkServerHandle> => startSdkServer(options).then(keep);
const proxy = (options: ProxyOptions): Promise<RunningProxy> => startProxy(options).then(keep);
const client = (url: string): Promise<ConnectedClient> => connectClient(url).then(keep);
const registry = (p: RunningProxy): Breakpoints => p.breakpoints;

/** Waits until `count` calls are paused in the registry, and returns them. */
async function pausedIn(bp: Breakpoints, count = 1): Promise<PausedCall[]> {
  const deadline = Date.now() + 5_000;
  while (bp.paused().length < count) {
    if (Date.now() > deadline) throw new Error(`expected ${count} paused call(s), have ${bp.paused().length}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return bp.paused();
}

const text = (result: unknown): string => ((result as { content?: Array<{ type: string; text?: string }> }).content ?? []).map((b) => b.text ?? '').join('\n');

describe.each([
  { json: false, mode: 'record' as const },
  { json: true, mode: 'record' as const },
  { json: false, mode: 'proxy-only' as const },
])('breakpoints on a live upstream (json=$json, $mode)', ({ json, mode }) => {
  it('request stage: the call waits; resumed with edited arguments, the upstream gets them and the client their result', async () => {
    const server = await upstream({ json });
    const cacheDir = await tempDir();
    const p = await proxy({ mode, upstreamUrl: server.url, cacheDir: mode === 'record' ? cacheDir : undefined });
    registry(p).set([{ tool: 'echo', when: 'request' }]);
    const c = await client(p.url);

    let settled = false;
    const pending = c.client.callTool({ name: 'echo', arguments: { text: 'original' } }).finally(() => (settled = true));
    const [paused] = await pausedIn(registry(p));
    expect(paused).toMatchObject({ tool: 'echo', stage: 'request', arguments: { text: 'original' } });
    await new Promise((r) => setTimeout(r, 100));
    expect(settled).toBe(false);
    expect(server.calls).toEqual([]); // nothing went upstream yet

    registry(p).resume(paused.id, { arguments: { text: 'edited' } });
    expect(text(await pending)).toBe('echo: edited');
    expect(server.calls.map((call) => call.args)).toEqual([{ text: 'edited' }]);
    expect(registry(p).paused()).toEqual([]);

    // other tools are not affected
    expect((await c.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })).structuredContent).toEqual({ sum: 3 });
    if (mode === 'record') {
      await p.flush();
      const files = await distilledFiles(cacheDir);
      const echo = files.find((f) => f.includes('echo'));
      expect(JSON.parse(await readFile(join(cacheDir, echo!), 'utf8')).arguments).toEqual({ text: 'edited' }); // the key is the edited call's
    }
  });

  it('response stage: the client gets the edited result; the cassette keeps the upstream result', async () => {
    const server = await upstream({ json });
    const cacheDir = await tempDir();
    const p = await proxy({ mode, upstreamUrl: server.url, cacheDir: mode === 'record' ? cacheDir : undefined });
    registry(p).set([{ tool: '*', when: 'response' }]);
    const c = await client(p.url);

    const pending = c.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    const [paused] = await pausedIn(registry(p));
    expect(paused).toMatchObject({ tool: 'echo', stage: 'response', result: { content: [{ type: 'text', text: 'echo: hi' }] } });
    expect(server.calls).toHaveLength(1); // it went upstream; the answer is held
    expect(() => registry(p).resume(paused.id, { result: { content: 'nope' } })).toThrow(/result: not a CallToolResult/);
    expect(() => registry(p).resume(paused.id, { arguments: {} })).toThrow(/holds a result/);
    registry(p).resume(paused.id, { result: { content: [{ type: 'text', text: 'edited at a breakpoint' }] } });
    expect(text(await pending)).toBe('edited at a breakpoint');

    if (mode === 'record') {
      await p.flush();
      const files = await distilledFiles(cacheDir);
      const echo = files.find((f) => f.includes('echo'));
      const entry = JSON.parse(await readFile(join(cacheDir, echo!), 'utf8'));
      expect(entry.result.content).toEqual([{ type: 'text', text: 'echo: hi' }]);
    }
  });

  it('fail answers the client with -32006 at either stage', async () => {
    const server = await upstream({ json });
    const p = await proxy({ mode: 'proxy-only', upstreamUrl: server.url });
    registry(p).set([
      { tool: 'echo', when: 'request' },
      { tool: 'add', when: 'response' },
    ]);
    const c = await client(p.url);

    const echo = c.client.callTool({ name: 'echo', arguments: { text: 'x' } }).catch((e: unknown) => e);
    const [atRequest] = await pausedIn(registry(p));
    registry(p).fail(atRequest.id, 'not today');
    const error = await echo;
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32006);
    expect((error as McpError).message).toContain('mcp-rewind: failed at a breakpoint: not today');
    expect(server.calls).toEqual([]);

    const add = c.client.callTool({ name: 'add', arguments: { a: 1, b: 1 } }).catch((e: unknown) => e);
    const [atResponse] = await pausedIn(registry(p));
    registry(p).fail(atResponse.id);
    expect(((await add) as McpError).code).toBe(-32006);
    expect(server.calls.map((call) => call.tool)).toEqual(['add']);
  });
});

describe('breakpoints', () => {
  it('without a breakpoint nothing changes; a timeout resumes unchanged; cache hits break too', async () => {
    const server = await upstream();
    const cacheDir = await tempDir();
    const rec = await proxy({ mode: 'record', upstreamUrl: server.url, cacheDir });
    expect(registry(rec).active).toBe(false);
    const c = await client(rec.url);
    expect(text(await c.client.callTool({ name: 'echo', arguments: { text: 'plain' } }))).toBe('echo: plain');
    await c.close();
    await rec.close();

    const replay = await proxy({ mode: 'replay', cacheDir });
    registry(replay).timeoutMs = 200;
    registry(replay).set([{ tool: 'echo', when: 'response' }]);
    const r = await client(replay.url);
    const started = Date.now();
    const pending = r.client.callTool({ name: 'echo', arguments: { text: 'plain' } });
    const [paused] = await pausedIn(registry(replay));
    expect(paused.result).toEqual({ content: [{ type: 'text', text: 'echo: plain' }] }); // a cache-answered result
    expect(text(await pending)).toBe('echo: plain'); // resumed unchanged by the timeout
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);

    // request stage on a replayed call: edited arguments are matched against the cassette
    registry(replay).timeoutMs = 60_000;
    registry(replay).set([{ tool: 'echo', when: 'request' }]);
    const missing = r.client.callTool({ name: 'echo', arguments: { text: 'plain' } }).catch((e: unknown) => e);
    const [atRequest] = await pausedIn(registry(replay));
    registry(replay).resume(atRequest.id, { arguments: { text: 'never recorded' } });
    expect(await missing).toBeInstanceOf(McpError); // a cassette miss for the edited call
  });

  it('closing the proxy lets paused calls go on', async () => {
    const server = await upstream();
    const p = await startProxy({ mode: 'proxy-only', upstreamUrl: server.url });
    registry(p).set([{ tool: 'echo', when: 'request' }]);
    const c = await client(p.url);
    const pending = c.client.callTool({ name: 'echo', arguments: { text: 'x' } }).catch((e: unknown) => e);
    await pausedIn(registry(p));
    await p.close();
    await pending; // answered or failed, but not hanging
    expect(registry(p).paused()).toEqual([]);
  });
});

describe('breakpoints through the API handlers', () => {
  it('set, list, the breakpoints event, resume with edited arguments, fail, and bad input', async () => {
    const { api, controller } = await app();
    const server = await apiUpstream();
    const cacheDir = await tempDir();
    const info = await call(api, 'proxies.create', { mode: 'record', upstreamUrl: server.url, cacheDir });
    const events: BreakpointsState[] = [];
    controller.on('breakpoints', (state) => void events.push(state));

    const set = await call(api, 'breakpoints.set', { proxyId: info.id, rules: [{ tool: 'echo', when: 'request' }] });
    expect(set.rules[info.id]).toMatchObject([{ tool: 'echo', when: 'request' }]);
    expect(await failure(call(api, 'breakpoints.set', { proxyId: 'nope', rules: [] }))).toMatch(/proxyId/);
    expect(await failure(call(api, 'breakpoints.set', { proxyId: info.id, rules: [{ tool: 'echo', when: 'later' as 'request' }] }))).toMatch(/when/);

    const c = await apiClient(info.url!);
    const pending = c.client.callTool({ name: 'echo', arguments: { text: 'a' } });
    let state: BreakpointsState;
    const deadline = Date.now() + 5_000;
    do {
      await new Promise((r) => setTimeout(r, 10));
      state = await call(api, 'breakpoints.list', {});
    } while (state.paused.length === 0 && Date.now() < deadline);
    expect(state.paused).toMatchObject([{ proxyId: info.id, tool: 'echo', stage: 'request', arguments: { text: 'a' } }]);
    expect(events.some((e) => e.paused.length === 1)).toBe(true);
    expect(await failure(call(api, 'breakpoints.resume', { id: state.paused[0].id, result: { content: [] } }))).toMatch(/holds a request/);
    await call(api, 'breakpoints.resume', { id: state.paused[0].id, arguments: { text: 'b' } });
    expect(textOf(await pending)).toBe('echo: b');
    expect(await failure(call(api, 'breakpoints.fail', { id: state.paused[0].id }))).toMatch(/no call paused/);

    // kept across a restart of the proxy
    await call(api, 'proxies.stop', { id: info.id });
    await call(api, 'proxies.start', { id: info.id });
    expect((await call(api, 'breakpoints.list', {})).rules[info.id]).toMatchObject([{ tool: 'echo', when: 'request' }]);
    await call(api, 'proxies.remove', { id: info.id });
    expect((await call(api, 'breakpoints.list', {})).rules).toEqual({});
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { BreakpointsState } from '../../src/shared/breakpoints.js';
import type { ExchangeEvent } from '../../src/shared/traffic.js';
import { type Breakpoints } from '../../src/main/engine/pipeline/breakpoints/breakpoints.js';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import { connectClient } from '../fixtures/client.js';
import { distilledFiles, removeTempDirs, tempDir } from '../helpers/temp.js';
import { breakpointPeers, pausedIn } from '../helpers/breakpoint-peers.js';
import { app, call, cleanup, client as apiClient, failure, textOf, upstream as apiUpstream } from '../api/harness.js';

const { closeAll, upstream, proxy, client } = breakpointPeers();
afterEach(async () => {
  await closeAll();
  await removeTempDirs();
  await cleanup();
});
const registry = (p: RunningProxy): Breakpoints => p.breakpoints;

const text = (result: unknown): string =>
  ((result as { content?: Array<{ type: string; text?: string }> }).content ?? []).map((b) => b.text ?? '').join('\n');

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
    const pending = c.client
      .callTool({ name: 'echo', arguments: { text: 'original' } })
      .finally(() => (settled = true));
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
    expect(paused).toMatchObject({
      tool: 'echo',
      stage: 'response',
      result: { content: [{ type: 'text', text: 'echo: hi' }] },
    });
    expect(server.calls).toHaveLength(1); // it went upstream; the answer is held
    expect(() => registry(p).resume(paused.id, { result: { content: 'nope' } })).toThrow(
      /result: not a CallToolResult/,
    );
    // the protocol's own schema for the call's revision (the SDK's): a text block needs its text
    expect(() => registry(p).resume(paused.id, { result: { content: [{ type: 'text' }] } })).toThrow(
      /result: not a CallToolResult \(2025-11-25, @modelcontextprotocol\/sdk\/types\.js\): result\.content\[0\]\.text: Invalid input: expected string, received undefined/,
    );
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
    expect(
      await failure(
        call(api, 'breakpoints.set', { proxyId: info.id, rules: [{ tool: 'echo', when: 'later' as 'request' }] }),
      ),
    ).toMatch(/when/);

    const c = await apiClient(info.url!);
    const pending = c.client.callTool({ name: 'echo', arguments: { text: 'a' } });
    let state: BreakpointsState;
    const deadline = Date.now() + 5_000;
    do {
      await new Promise((r) => setTimeout(r, 10));
      state = await call(api, 'breakpoints.list', {});
    } while (state.paused.length === 0 && Date.now() < deadline);
    expect(state.paused).toMatchObject([
      { proxyId: info.id, tool: 'echo', stage: 'request', arguments: { text: 'a' } },
    ]);
    expect(events.some((e) => e.paused.length === 1)).toBe(true);
    expect(await failure(call(api, 'breakpoints.resume', { id: state.paused[0].id, result: { content: [] } }))).toMatch(
      /holds a request/,
    );
    await call(api, 'breakpoints.resume', { id: state.paused[0].id, arguments: { text: 'b' } });
    expect(textOf(await pending)).toBe('echo: b');
    expect(await failure(call(api, 'breakpoints.fail', { id: state.paused[0].id }))).toMatch(/no call paused/);

    // kept across a restart of the proxy
    await call(api, 'proxies.stop', { id: info.id });
    await call(api, 'proxies.start', { id: info.id });
    expect((await call(api, 'breakpoints.list', {})).rules[info.id]).toMatchObject([{ tool: 'echo', when: 'request' }]);
    await call(api, 'proxies.remove', { id: info.id });
    expect((await call(api, 'breakpoints.list', {})).rules).toEqual({});
    await controller.close(); // its workspace write lands before this file's afterEach removes the data folder
  });
});

describe('a held call its client gave up on is released at once (issue 25)', () => {
  /** The first exchange event of a tool, once it comes. */
  const eventOf = (p: RunningProxy, tool: string): Promise<ExchangeEvent> =>
    new Promise((resolve) => {
      const on = (e: ExchangeEvent): void => {
        if (e.tool !== tool) return;
        p.events.off('exchange', on);
        resolve(e);
      };
      p.events.on('exchange', on);
    });

  it.each(['request', 'response'] as const)(
    'cancelled by the client while held before %s: released, the row says cancelled',
    async (when) => {
      const server = await upstream();
      const p = await proxy({ mode: 'proxy-only', upstreamUrl: server.url });
      registry(p).set([{ tool: 'echo', when }]);
      const c = await client(p.url);
      const ended = eventOf(p, 'echo');
      const abort = new AbortController();
      const call = c.client
        .callTool({ name: 'echo', arguments: { text: 'x' } }, undefined, { signal: abort.signal })
        .catch((e: unknown) => e);
      await pausedIn(registry(p));
      abort.abort('no longer needed');
      await call;
      const event = await ended; // at once: long before the hold's timeout
      expect(registry(p).paused()).toEqual([]);
      expect(event.final).toBe('cancelled');
      expect(event.flags).toContain('released at a breakpoint: the client cancelled it');
      expect(server.calls.length).toBe(when === 'request' ? 0 : 1); // a call held before its request never goes upstream
    },
  );

  it('the client goes away while its call is held before request: released, never sent upstream, the row says client gone', async () => {
    const server = await upstream();
    const p = await proxy({ mode: 'proxy-only', upstreamUrl: server.url });
    registry(p).set([{ tool: 'echo', when: 'request' }]);
    const c = await connectClient(p.url, { terminateOnClose: false });
    const ended = eventOf(p, 'echo');
    void c.client.callTool({ name: 'echo', arguments: { text: 'x' } }).catch(() => undefined);
    await pausedIn(registry(p));
    await c.close();
    const event = await ended;
    expect(registry(p).paused()).toEqual([]);
    expect(event.final).toBe('client-gone');
    expect(event.flags).toContain('released at a breakpoint: the client went away');
    await new Promise((r) => setTimeout(r, 100));
    expect(server.calls).toEqual([]);
  });

  it('the hold is 45 s by default (below the clients’ usual 60 s), and the app’s setting changes it', async () => {
    const server = await upstream();
    const p = await proxy({ mode: 'proxy-only', upstreamUrl: server.url });
    registry(p).set([{ tool: 'echo', when: 'request' }]);
    const c = await client(p.url);
    const pending = c.client.callTool({ name: 'echo', arguments: { text: 'x' } });
    const [held] = await pausedIn(registry(p));
    expect(held.timeoutAt - held.since).toBe(45_000);
    registry(p).resume(held.id);
    await pending;

    const { api, controller } = await app();
    const info = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    expect((await call(api, 'breakpoints.list', {})).holdS).toBe(45);
    await call(api, 'settings.set', { breakpointHoldS: 20 });
    await call(api, 'breakpoints.set', { proxyId: info.id, rules: [{ tool: 'echo', when: 'request' }] });
    expect((await call(api, 'breakpoints.list', {})).holdS).toBe(20);
    const d = await apiClient(info.url!);
    const later = d.client.callTool({ name: 'echo', arguments: { text: 'y' } });
    let state: BreakpointsState;
    do state = await call(api, 'breakpoints.list', {});
    while (state.paused.length === 0 && (await new Promise((r) => setTimeout(r, 10)), true));
    expect(state.paused[0].timeoutAt - state.paused[0].since).toBe(20_000);
    await call(api, 'breakpoints.resume', { id: state.paused[0].id });
    await later;
    expect(await failure(call(api, 'settings.set', { breakpointHoldS: 1 }))).toMatch(/breakpointHoldS/);
    await controller.close(); // before this file's afterEach removes the temp folders (its data folder among them)
  });
});

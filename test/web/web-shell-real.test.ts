import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ProxyInfo, ServerFrame, TrafficEvent } from '../../src/shared/api.js';
import { startUi, uiTokenFile, type RunningUi } from '../../src/main/cli/ui-command.js';
import { startWebShell } from '../../src/main/web/web-shell.js';
import {
  ApiCallError,
  bridgeProtocols,
  createWebSocketApi,
  type RewindClient,
  type WebSocketLike,
} from '../../src/renderer/src/api/client.js';
import { useProxies } from '../../src/renderer/src/stores/proxies.js';
import { flushTraffic, useTraffic } from '../../src/renderer/src/stores/traffic.js';
import { connectStores } from '../../src/renderer/src/stores/connection.js';
import { connectClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

/**
 * The browser shell end to end under Node: `startUi` (the `mcp-rewind ui` wiring: AppController + the real handler
 * table + the web shell), the renderer's WebSocket client and its zustand stores, a real SDK upstream and client.
 */

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await removeTempDirs();
});

async function ui(): Promise<RunningUi> {
  const rendererDir = await tempDir('rewind-renderer-');
  mkdirSync(join(rendererDir, 'assets'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>');
  const running = await startUi({
    host: '127.0.0.1',
    port: 0,
    open: false,
    dataDir: await tempDir('rewind-data-'),
    version: '9.9.9-test',
    rendererDir,
  });
  closers.push(() => running.close());
  return running;
}

async function upstream(): Promise<string> {
  const server = await startSdkServer();
  closers.push(() => server.close());
  return server.url;
}

/** the renderer's client, over the `ws` package (Node 20 has no global WebSocket) */
function client(
  url: string,
  options: { token?: string; minDelayMs?: number; queueTimeoutMs?: number } = {},
): RewindClient {
  const { token, ...rest } = options;
  const api = createWebSocketApi({
    url,
    protocols: token ? bridgeProtocols(token) : undefined,
    WebSocket: WebSocket as unknown as new (url: string) => WebSocketLike,
    ...rest,
  });
  closers.push(() => api.close());
  return api;
}
const wsUrl = (running: RunningUi): string => `ws://127.0.0.1:${running.shell.port}/api`;

async function eventually<T>(read: () => T | undefined | false, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('web shell over the real handler table', () => {
  it('answers app.info and proxies.list, and names the bad field of an invalid input', async () => {
    const running = await ui();
    const api = client(wsUrl(running), { token: running.shell.token });
    expect(await api.call('app.info', {})).toEqual({
      version: '9.9.9-test',
      shell: 'browser',
      platform: process.platform,
      trafficCapacity: 100_000,
      trafficBytes: 256 * 1024 * 1024,
    });
    expect(await api.call('proxies.list', {})).toEqual([]);

    const bad = await api.call('proxies.create', { mode: 'bogus' as 'record' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ApiCallError);
    expect((bad as Error).message).toBe('Mode: record, replay, hybrid or proxy-only'); // the New proxy form's label
    await expect(api.call('traffic.snapshot', { limit: -1 })).rejects.toThrow(/limit/);
    await expect(api.call('proxies.start', { id: 'nope' })).rejects.toThrow(/no proxy "nope"/);
    await expect(api.call('nope' as 'app.info', {})).rejects.toThrow(/unknown command nope/);
  });

  it('the raw frames: ok / error frames by id, and the proxies + traffic events of a real exchange', async () => {
    const running = await ui();
    const upstreamUrl = await upstream();
    const ws = new WebSocket(wsUrl(running), bridgeProtocols(running.shell.token), { origin: running.shell.origin });
    closers.push(() => ws.terminate());
    const frames: ServerFrame[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(data.toString()) as ServerFrame));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));

    ws.send(
      JSON.stringify({
        id: 1,
        command: 'proxies.create',
        input: { mode: 'record', upstreamUrl, cacheDir: await tempDir('rewind-cassette-') },
      }),
    );
    ws.send(JSON.stringify({ id: 2, command: 'proxies.create', input: { mode: 'record', upstreamUrl: 'ftp://x' } }));
    ws.send('garbage');
    const created = await eventually(
      () => frames.find((f): f is Extract<ServerFrame, { ok: true }> => 'id' in f && f.id === 1 && f.ok),
      'proxies.create',
    );
    const proxy = created.output as ProxyInfo;
    expect(proxy).toMatchObject({ state: 'running', exchanges: 0, config: { mode: 'record', upstreamUrl } });
    expect(frames.find((f) => 'id' in f && f.id === 2)).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/^Upstream URL: /) },
    });
    expect(await eventually(() => frames.find((f) => 'id' in f && f.id === -1), 'the garbage reply')).toMatchObject({
      ok: false,
      error: { message: 'malformed frame: not JSON' },
    });
    await eventually(
      () =>
        frames.some(
          (f) => 'event' in f && f.event === 'proxies' && (f.payload as ProxyInfo[]).some((p) => p.id === proxy.id),
        ),
      'a proxies event',
    );

    const mcp = await connectClient(proxy.url!);
    closers.push(() => mcp.close());
    await mcp.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    const traffic = await eventually(
      () => frames.find((f) => 'event' in f && f.event === 'traffic' && (f.payload as TrafficEvent).tool === 'echo'),
      'the echo exchange',
    );
    expect(traffic).toMatchObject({
      event: 'traffic',
      payload: { proxyId: proxy.id, method: 'tools/call', tool: 'echo', source: 'upstream', cassette: 'recorded' },
    });
    // the exchange counts follow in a proxies event
    await eventually(
      () =>
        frames.some(
          (f) =>
            'event' in f &&
            f.event === 'proxies' &&
            ((f.payload as ProxyInfo[]).find((p) => p.id === proxy.id)?.exchanges ?? 0) >= 2,
        ),
      'the exchange count',
    );
  });
});

describe('the UI token across restarts', () => {
  it('is kept in the data folder (0600) so a restarted shell accepts an open tab; --new-token replaces it', async () => {
    const rendererDir = await tempDir('rewind-renderer-');
    writeFileSync(join(rendererDir, 'index.html'), '');
    const dataDir = await tempDir('rewind-data-');
    const start = (newToken?: boolean) =>
      startUi({ host: '127.0.0.1', port: 0, open: false, dataDir, version: 'test', rendererDir, newToken });
    const first = await start();
    const token = first.shell.token;
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(statSync(uiTokenFile(dataDir)).mode & 0o777).toBe(0o600);
    await first.close();
    const second = await start();
    closers.push(() => second.close());
    expect(second.shell.token).toBe(token);
    const api = client(wsUrl(second), { token });
    expect(await api.call('app.info', {})).toMatchObject({ shell: 'browser' });
    await second.close();
    const third = await start(true);
    closers.push(() => third.close());
    expect(third.shell.token).not.toBe(token);
    // the old token is refused now: the page's client ends in 'unauthorized' (it asks /api/auth), not in a retry loop
    const stale = createWebSocketApi({
      url: wsUrl(third),
      protocols: bridgeProtocols(token),
      WebSocket: WebSocket as unknown as new (url: string) => WebSocketLike,
      minDelayMs: 10,
      checkAuth: async () => {
        const res = await fetch(`http://127.0.0.1:${third.shell.port}/api/auth`, {
          headers: { authorization: `Bearer ${token}` },
        });
        return res.status === 401 ? 'refused' : 'ok';
      },
    });
    closers.push(async () => stale.close());
    await expect(stale.call('app.info', {})).rejects.toThrow(/not signed in to mcp-rewind/);
    expect(stale.status()).toBe('unauthorized');
  });
});

describe('renderer client (WebSocket adapter)', () => {
  it('rejects in-flight calls when the connection drops, reconnects with backoff, and queues calls meanwhile', async () => {
    const rendererDir = await tempDir('rewind-renderer-');
    writeFileSync(join(rendererDir, 'index.html'), '');
    let hold: (() => void) | undefined;
    const handlers = {
      call: async (command: string) => {
        if (command === 'hold') return new Promise((resolve) => (hold = () => resolve('held')));
        return { command };
      },
      on: () => () => {},
    };
    let shell = await startWebShell({ rendererDir, handlers });
    const { port, token } = shell;
    const api = client(`ws://127.0.0.1:${port}/api`, { token, minDelayMs: 20 });
    const statuses: string[] = [];
    api.onStatus((s) => statuses.push(s));
    expect(await api.call('app.info', {})).toEqual({ command: 'app.info' }); // queued until the first open
    const inFlight = api.call('hold' as 'app.info', {}).catch((error: unknown) => error);
    await eventually(() => hold, 'the held call');
    await shell.close();
    expect(await inFlight).toMatchObject({
      name: 'ApiCallError',
      message: expect.stringMatching(/connection to mcp-rewind was lost before "hold" was answered/),
    });
    expect(api.status()).toBe('reconnecting');
    const queued = api.call('proxies.list', {});
    shell = await startWebShell({ rendererDir, handlers, port, token });
    closers.push(() => shell.close());
    expect(await queued).toEqual({ command: 'proxies.list' });
    expect(api.status()).toBe('open');
    expect(statuses).toEqual(['open', 'reconnecting', 'open']);
  });

  it('fails a queued call after its timeout with a clear message, and refuses calls once closed', async () => {
    const api = client('ws://127.0.0.1:1/api', { minDelayMs: 10_000, queueTimeoutMs: 200 });
    await expect(api.call('app.info', {})).rejects.toThrow(/mcp-rewind is not reachable \("app.info" waited/);
    api.close();
    expect(api.status()).toBe('closed');
    await expect(api.call('app.info', {})).rejects.toThrow(/client is closed/);
  });
});

describe('renderer stores over the browser shell', () => {
  it('proxies store: loads the list, follows proxies events; traffic store: follows traffic, pauses, clears', async () => {
    const running = await ui();
    const upstreamUrl = await upstream();
    const api = client(wsUrl(running), { token: running.shell.token });
    closers.push(connectStores(api));
    await eventually(() => useProxies.getState().loaded, 'the proxies list');
    expect(useProxies.getState().proxies).toEqual([]);

    const proxy = await useProxies
      .getState()
      .create({ mode: 'hybrid', upstreamUrl, cacheDir: await tempDir('rewind-cassette-') });
    expect(useProxies.getState().proxies.map((p) => p.id)).toEqual([proxy.id]);
    await expect(useProxies.getState().create({ mode: 'record' })).rejects.toThrow(/^Upstream URL: /);

    const mcp = await connectClient(proxy.url!);
    closers.push(() => mcp.close());
    await mcp.client.callTool({ name: 'echo', arguments: { text: 'one' } });
    await eventually(() => useTraffic.getState().exchanges.some((e) => e.tool === 'echo'), 'echo in the traffic store');
    await eventually(
      () => (useProxies.getState().proxies[0]?.exchanges ?? 0) >= 2,
      'the exchange count in the proxies store',
    );
    const before = useTraffic.getState().exchanges.length;

    useTraffic.getState().pause();
    await mcp.client.callTool({ name: 'echo', arguments: { text: 'two' } });
    await eventually(() => useTraffic.getState().held >= 1, 'a held exchange');
    flushTraffic();
    expect(useTraffic.getState().exchanges).toHaveLength(before);
    useTraffic.getState().resume();
    expect(useTraffic.getState().exchanges.length).toBeGreaterThan(before);
    expect(useTraffic.getState().exchanges.at(-1)?.request).toMatchObject({ params: { arguments: { text: 'two' } } }); // newest last

    const seqs = (list: TrafficEvent[]): number[] => list.map((e) => e.seq);
    const all = seqs(useTraffic.getState().exchanges);
    await useTraffic.getState().clear({ label: 'every exchange' });
    expect(useTraffic.getState().exchanges).toEqual([]);
    expect(await api.call('traffic.snapshot', {})).toEqual([]); // the engine's buffer too
    expect(useTraffic.getState().cleared).toMatchObject({
      count: all.length,
      label: 'every exchange',
      undo: expect.any(String),
    });
    await useTraffic.getState().undoClear(); // back in the engine and the view, in their order
    expect(seqs(useTraffic.getState().exchanges)).toEqual(all);
    expect(seqs(await api.call('traffic.snapshot', {}))).toEqual(all);
    await useTraffic.getState().clear({ label: 'echo', matches: (e) => e.tool === 'echo' });
    expect(useTraffic.getState().exchanges.every((e) => e.tool !== 'echo')).toBe(true);
    expect(seqs(await api.call('traffic.snapshot', {}))).toEqual(seqs(useTraffic.getState().exchanges));
    await useTraffic.getState().clear({ label: 'every exchange' });
    expect(await api.call('traffic.snapshot', {})).toEqual([]);
    await expect(api.call('traffic.undoClear', { undo: 'stale' })).rejects.toThrow(/can no longer be undone/);

    await useProxies.getState().stop(proxy.id);
    expect(useProxies.getState().proxies[0]).toMatchObject({ state: 'stopped' });
    await useProxies.getState().remove(proxy.id);
    expect(useProxies.getState().proxies).toEqual([]);
  });
});

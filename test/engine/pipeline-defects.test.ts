/**
 * Regression tests for the defects the hard-wired pipeline had (issue "One pipeline of hooks"), each with real SDK
 * peers over loopback:
 * 1. server notifications on the GET stream were not recorded when the proxy had rules (every app proxy), nor in
 *    hybrid once the cassette held some;
 * 2. an empty rule set rewrote initialize and tools/list (app proxies were not byte for byte);
 * 3. the stdio/legacy-SSE bridge had no Host/Origin check and spawned a child before validating the request;
 * 4. a cassette write failure during an owned initialize was swallowed silently.
 */
import { mkdir, readdir } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy, type ProxyOptions, type RunningProxy } from '../../src/main/engine/proxy.js';
import { startUpstreamBridge } from '../../src/main/engine/transports/upstream-bridge.js';
import { connectClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { keeper } from '../helpers/keep.js';
import { startSubscriber } from '../helpers/subscriber.js';
import { removeTempDirs, tempDir } from '../helpers/temp.js';

const { keep, closeAll } = keeper();
afterEach(async () => {
  await closeAll();
  await removeTempDirs();
});

const EMPTY_RULES: ProxyOptions['rules'] = { overlay: { tools: [], passthrough: true } };
const ACCEPT = 'application/json, text/event-stream';

/** An upstream that sends resources/updated on the GET stream shortly after a subscribe. */
async function subscriber() {
  return keep(await startSubscriber());
}

/** Records a subscribe and the notification that followed it; answers the cassette's follow-up file names. */
async function recordSubscription(
  proxy: RunningProxy,
  upstream: { requests: Array<{ method: string }> },
  cacheDir: string,
): Promise<string[]> {
  const live = keep(await connectClient(proxy.url));
  await expect.poll(() => upstream.requests.some((r) => r.method === 'GET'), { timeout: 5000 }).toBe(true);
  await live.client.subscribeResource({ uri: 'demo://a' });
  await expect
    .poll(() => live.notifications.map((n) => n.method), { timeout: 5000 })
    .toContain('notifications/resources/updated');
  await expect
    .poll(async () => (await readdir(cacheDir)).filter((n) => n.includes('after_')), { timeout: 5000 })
    .not.toEqual([]);
  await proxy.flush();
  return (await readdir(cacheDir)).filter((n) => n.includes('after_') && !n.includes('.re'));
}

describe('defect 1: GET-stream notifications are recorded whatever else is installed', () => {
  it('with rules (as every app proxy has): recorded, then replayed on the server stream', async () => {
    const upstream = await subscriber();
    const cacheDir = await tempDir();
    const recording = keep(
      await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir, rules: EMPTY_RULES }),
    );
    const files = await recordSubscription(recording, upstream, cacheDir);
    expect(files).toEqual([expect.stringMatching(/^\d+ after_resources_subscribe_[0-9a-f]{16}\.json$/)]);
    await recording.close();

    const replaying = keep(await startProxy({ mode: 'replay', cacheDir }));
    const c = keep(await connectClient(replaying.url));
    await c.client.subscribeResource({ uri: 'demo://a' });
    await expect
      .poll(() => c.notifications, { timeout: 5000 })
      .toEqual([{ method: 'notifications/resources/updated', params: { uri: 'demo://a' } }]);
  });

  it('in hybrid, when the cassette already holds server notifications', async () => {
    const upstream = await subscriber();
    const cacheDir = await tempDir();
    const first = keep(await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir }));
    expect(await recordSubscription(first, upstream, cacheDir)).toHaveLength(1);
    await first.close();

    // hybrid answers initialize from the cassette; a miss opens the upstream session, then the client's server
    // stream (a stream of the proxy's own: it replays recorded notifications) carries the upstream's too
    const hybrid = keep(await startProxy({ mode: 'hybrid', upstreamUrl: upstream.url, cacheDir }));
    const headers = { 'content-type': 'application/json', accept: ACCEPT };
    const post = (body: unknown, sessionId?: string): Promise<Response> =>
      fetch(hybrid.url, {
        method: 'POST',
        headers: { ...headers, ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const sid = init.headers.get('mcp-session-id') as string;
    await init.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sid)).text();
    await (await post({ jsonrpc: '2.0', id: 2, method: 'resources/list' }, sid)).text(); // a miss: the upstream session opens
    const gets = upstream.requests.filter((r) => r.method === 'GET').length;
    const abort = new AbortController();
    const stream = await fetch(hybrid.url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': sid },
      signal: abort.signal,
    });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    void stream.body?.pipeTo(new WritableStream()).catch(() => undefined);
    await expect
      .poll(() => upstream.requests.filter((r) => r.method === 'GET').length, { timeout: 5000 })
      .toBeGreaterThan(gets);
    const before = (await readdir(cacheDir)).filter((n) => n.includes('after_') && !n.includes('.re')).length;
    await (
      await post({ jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'demo://b' } }, sid)
    ).text(); // a miss, forwarded
    await expect
      .poll(async () => (await readdir(cacheDir)).filter((n) => n.includes('after_') && !n.includes('.re')).length, {
        timeout: 5000,
      })
      .toBe(before + 1);
    abort.abort();
  });
});

describe('defect 2: an empty rule set passes initialize and tools/list through byte for byte', () => {
  it.each(['record', 'proxy-only'] as const)('%s: the same bytes as the upstream gives directly', async (mode) => {
    const server = keep(await startSdkServer({ json: true }));
    const proxy = keep(
      await startProxy({ mode, upstreamUrl: server.url, cacheDir: await tempDir(), rules: EMPTY_RULES }),
    );
    const post = async (
      url: string,
      body: unknown,
      sessionId?: string,
    ): Promise<{ text: string; sessionId?: string }> => {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: ACCEPT,
          ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
        },
        body: JSON.stringify(body),
      });
      return { text: await res.text(), sessionId: res.headers.get('mcp-session-id') ?? undefined };
    };
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const bodies = async (url: string): Promise<string[]> => {
      const a = await post(url, init);
      await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, a.sessionId);
      const b = await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, a.sessionId);
      return [a.text, b.text];
    };
    const [directInit, directList] = await bodies(server.url);
    const [proxiedInit, proxiedList] = await bodies(proxy.url);
    expect(proxiedInit).toBe(directInit);
    expect(JSON.parse(proxiedInit).result.capabilities.tools).toEqual(JSON.parse(directInit).result.capabilities.tools); // no forced listChanged
    expect(proxiedList).toBe(directList);
  });
});

describe('defect 3: the upstream bridge checks Host/Origin and validates before it spawns', () => {
  it('refuses a foreign Host, a foreign Origin and a non-JSON body without starting a child', async () => {
    const marker = path.join(await tempDir(), 'spawned');
    // a "server" that leaves a trace when it is started at all
    const command = process.execPath;
    const args = ['-e', `require('node:fs').mkdirSync(${JSON.stringify(marker)}); setInterval(() => {}, 1000)`];
    const bridge = keep(await startUpstreamBridge({ kind: 'stdio', command, args }, () => {}));
    const { port } = new URL(bridge.url);
    const send = (
      headers: Record<string, string>,
      body = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
    ): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/mcp',
            method: 'POST',
            headers: { accept: ACCEPT, 'content-length': Buffer.byteLength(body), ...headers },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    for (let i = 0; i < 3; i++) expect(await send({ host: 'evil.example', 'content-type': 'text/plain' })).toBe(403);
    expect(
      await send({ host: `127.0.0.1:${port}`, origin: 'http://evil.example', 'content-type': 'application/json' }),
    ).toBe(403);
    for (let i = 0; i < 3; i++)
      expect(await send({ host: `127.0.0.1:${port}`, 'content-type': 'text/plain' })).toBe(415);
    expect(
      await send({ host: `127.0.0.1:${port}`, 'content-type': 'application/json', accept: 'application/json' }),
    ).toBe(406);
    expect(bridge.pids()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300)); // a child would have made its folder by now
    await expect(readdir(marker)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('defect 4: a cassette write failure during an owned initialize is reported', () => {
  it('the client is answered, and the failure is logged as a warning naming the entry', async () => {
    const server = keep(await startSdkServer());
    const cacheDir = await tempDir();
    const warnings: string[] = [];
    // rules make the proxy own the sessions: initialize goes through its owned path
    const proxy = keep(
      await startProxy({
        mode: 'record',
        upstreamUrl: server.url,
        cacheDir,
        rules: EMPTY_RULES,
        onLog: (line, level) => level === 'warn' && warnings.push(line),
      }),
    );
    // the first entry's name is taken by a folder with something in it: the rename of the write fails, even as root
    await mkdir(path.join(cacheDir, '1 initialize.json', 'occupied'), { recursive: true });
    const c = keep(await connectClient(proxy.url));
    expect((await c.client.listTools()).tools.length).toBeGreaterThan(0);
    await proxy.flush();
    await expect.poll(() => warnings.join('\n'), { timeout: 5000 }).toMatch(/cassette: could not record initialize/);
  });
});

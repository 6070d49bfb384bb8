import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProxyInfo, TrafficEvent } from '../../src/shared/api.js';
import { TrafficBuffer } from '../../src/main/api/traffic/traffic-buffer.js';
import { distilledFiles, tempDir } from '../helpers/temp.js';
import { app, call, cleanup, client, failure, keep, textOf, upstream } from './harness.js';

afterEach(cleanup);

describe('api: proxies and traffic', () => {
  it('creates a recording proxy, tags its traffic with the proxy id, and shows it as events and in the snapshot', async () => {
    const { api } = await app();
    const server = await upstream();
    const cacheDir = await tempDir();
    const traffic: TrafficEvent[] = [];
    const lists: ProxyInfo[][] = [];
    api.on('traffic', (event) => void traffic.push(event));
    api.on('proxies', (list) => void lists.push(list));

    const info = await call(api, 'proxies.create', { name: 'rec', mode: 'record', upstreamUrl: server.url, cacheDir });
    expect(info).toMatchObject({
      id: expect.any(String),
      name: 'rec',
      state: 'running',
      exchanges: 0,
      config: { mode: 'record', port: 0 },
    });
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(lists.at(-1)?.map((p) => [p.id, p.state])).toEqual([[info.id, 'running']]);

    const c = await client(info.url as string);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toBe('echo: hi');
    await expect.poll(() => traffic.some((e) => e.method === 'tools/call')).toBe(true);

    const call1 = traffic.find((e) => e.method === 'tools/call') as TrafficEvent;
    expect(call1).toMatchObject({
      proxyId: info.id,
      tool: 'echo',
      source: 'upstream',
      cassette: 'recorded',
      behavior: 'relay',
    });
    expect(call1.response).toMatchObject({ result: { content: [{ type: 'text', text: 'echo: hi' }] } });
    expect(traffic.map((e) => e.method)).toContain('initialize');
    expect(traffic.every((e) => e.proxyId === info.id)).toBe(true);

    const snapshot = await call(api, 'traffic.snapshot', {});
    expect(snapshot.map((e) => e.seq)).toEqual(traffic.map((e) => e.seq));
    expect(await call(api, 'traffic.snapshot', { limit: 1 })).toEqual([traffic.at(-1)]);
    await expect
      .poll(async () => (await distilledFiles(cacheDir)).some((f) => f.includes('tools_call_echo_')))
      .toBe(true);

    // the exchange count reaches the list (and, throttled, a 'proxies' event)
    expect((await call(api, 'proxies.list', {}))[0].exchanges).toBe(traffic.length);
    await expect.poll(() => lists.at(-1)?.[0].exchanges, { timeout: 3000 }).toBe(traffic.length);

    expect(await call(api, 'traffic.clear', {})).toEqual({ cleared: traffic.length, undo: expect.any(String) });
    expect(await call(api, 'traffic.snapshot', {})).toEqual([]);
  });

  it('runs several proxies at once, each with its own traffic', async () => {
    const { api } = await app();
    const server = await upstream();
    const a = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    const b = await call(api, 'proxies.create', { mode: 'record', upstreamUrl: server.url, cacheDir: await tempDir() });
    expect(a.id).not.toBe(b.id);
    expect(a.url).not.toBe(b.url);
    const ca = await client(a.url as string);
    const cb = await client(b.url as string);
    await ca.client.callTool({ name: 'echo', arguments: { text: 'a' } });
    await cb.client.callTool({ name: 'echo', arguments: { text: 'b' } });
    const calls = async () =>
      (await call(api, 'traffic.snapshot', {}))
        .filter((e) => e.method === 'tools/call')
        .map((e) => [e.proxyId, e.request.params?.arguments]);
    await expect.poll(calls).toEqual([
      [a.id, { text: 'a' }],
      [b.id, { text: 'b' }],
    ]);
  });

  it('stops, starts again on the same port, and removes a proxy; every change is announced', async () => {
    const { api } = await app();
    const server = await upstream();
    const lists: ProxyInfo[][] = [];
    api.on('proxies', (list) => void lists.push(list));
    const info = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });

    const stopped = await call(api, 'proxies.stop', { id: info.id });
    expect(stopped).toMatchObject({ id: info.id, state: 'stopped' });
    expect(stopped.url).toBeUndefined();
    expect(lists.at(-1)?.[0].state).toBe('stopped');
    await expect(fetch(info.url as string, { method: 'POST' })).rejects.toThrow();

    const started = await call(api, 'proxies.start', { id: info.id });
    expect(started).toMatchObject({ state: 'running', url: info.url }); // the client config stays valid
    const c = await client(started.url as string);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'again' } }))).toBe('echo: again');
    expect(await call(api, 'proxies.start', { id: info.id })).toMatchObject({ state: 'running', url: info.url }); // idempotent

    expect(await call(api, 'proxies.remove', { id: info.id })).toEqual({ removed: true });
    expect(await call(api, 'proxies.list', {})).toEqual([]);
    expect(lists.at(-1)).toEqual([]);
    expect(await failure(call(api, 'proxies.start', { id: info.id }))).toContain(`id: no proxy "${info.id}"`);
  });

  it('lists a proxy that cannot start as failed, with the reason, and starts it once the port is free', async () => {
    const { api } = await app();
    const server = await upstream();
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    keep({ close: () => new Promise<void>((resolve) => blocker.close(() => resolve())) });

    const info = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url, port });
    expect(info).toMatchObject({ state: 'failed', error: expect.stringContaining('EADDRINUSE') });
    expect((await call(api, 'proxies.list', {}))[0]).toMatchObject({ id: info.id, state: 'failed' });

    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    expect(await call(api, 'proxies.start', { id: info.id })).toMatchObject({
      state: 'running',
      url: `http://127.0.0.1:${port}/mcp`,
    });
  });

  it('closes every proxy with the controller', async () => {
    const { api, controller } = await app();
    const server = await upstream();
    const info = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    await controller.close();
    await expect(fetch(info.url as string, { method: 'POST' })).rejects.toThrow();
    expect(await failure(call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url }))).toContain(
      'shutting down',
    );
  });
});

describe('api: the dispatcher', () => {
  it('answers app.info and refuses unknown commands', async () => {
    const { api } = await app();
    expect(await call(api, 'app.info', {})).toEqual({
      version: '0.0.0-test',
      shell: 'browser',
      platform: process.platform,
      trafficCapacity: 100_000,
      trafficBytes: 256 * 1024 * 1024,
    });
    expect(await failure(api.call('proxies.explode', {}))).toBe('unknown command proxies.explode');
    expect(await failure(api.call('toString', {}))).toBe('unknown command toString');
    expect(await failure(api.call('__proto__', {}))).toBe('unknown command __proto__');
  });

  it('rejects invalid input with a message naming the field', async () => {
    const { api } = await app();
    const bad = (command: string, input: unknown): Promise<string> => failure(api.call(command, input));
    // a new proxy's problems are named after the New proxy form's fields, never the API's (upstreamUrl, cacheDir)
    expect(await bad('proxies.create', { mode: 'rewind' })).toBe('Mode: record, replay, hybrid or proxy-only');
    expect(await bad('proxies.create', { mode: 'record', upstreamUrl: 'ftp://x' })).toBe(
      'Upstream URL: must start with http:// or https:// (not ftp://)',
    );
    expect(await bad('proxies.create', { mode: 'record', upstreamUrl: 'localhost 3000' })).toBe(
      'Upstream URL: not a URL (e.g. http://127.0.0.1:3000/mcp)',
    );
    expect(
      await bad('proxies.create', { mode: 'proxy-only', upstreamUrl: 'http://127.0.0.1:1/mcp', port: 70000 }),
    ).toBe('Port: a whole number from 0 to 65535 (empty or 0: any free port)');
    expect(
      await bad('proxies.create', { mode: 'proxy-only', upstreamUrl: 'http://127.0.0.1:1/mcp', colour: 'red' }),
    ).toContain('colour');
    expect(await bad('proxies.create', { mode: 'proxy-only' })).toBe(
      'Upstream URL: give the upstream server’s URL, or a stdio command, in proxy-only mode',
    );
    expect(await bad('proxies.create', { mode: 'record' })).toBe(
      'Upstream URL: give the upstream server’s URL, or a stdio command, in record mode',
    );
    for (const message of await Promise.all([
      bad('proxies.create', { mode: 'record', upstreamUrl: 'x' }),
      bad('proxies.create', { mode: 'replay', cacheDir: '' }),
    ])) {
      expect(message).not.toMatch(/upstreamUrl|cacheDir|upstreamCommand/);
    }
    expect(await bad('proxies.create', null)).toContain('proxies.create: invalid input');
    expect(await bad('proxies.stop', {})).toContain('id: ');
    expect(await bad('proxies.stop', { id: 'nope' })).toBe('id: no proxy "nope"');
    expect(await bad('traffic.snapshot', { limit: 0 })).toContain('limit: ');
    expect(
      await bad('rules.set', { id: 'p1', rules: { tools: [{ name: 'x', behavior: { type: 'explode' } }] } }),
    ).toContain('rules.tools.0.behavior.type');
    expect(await bad('cassettes.write', { dir: '/tmp', file: '1 a.json' })).toContain('text: ');
    expect(await call(api, 'proxies.list', {})).toEqual([]); // nothing half-made
  });

  it('never lets a throwing listener break the engine', async () => {
    const { api, logs } = await app();
    const server = await upstream();
    api.on('proxies', () => {
      throw new Error('listener bug');
    });
    const info = await call(api, 'proxies.create', { mode: 'proxy-only', upstreamUrl: server.url });
    expect(info.state).toBe('running');
    expect(logs.some((l) => l.includes('listener bug'))).toBe(true);
  });
});

describe('the traffic ring buffer', () => {
  it('keeps the newest events up to its capacity, oldest first', () => {
    const buffer = new TrafficBuffer(3);
    const event = (seq: number) => ({ seq }) as TrafficEvent;
    for (let i = 1; i <= 5; i++) buffer.push(event(i));
    expect(buffer.size).toBe(3);
    expect(buffer.snapshot().map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(buffer.snapshot(2).map((e) => e.seq)).toEqual([4, 5]);
    expect(buffer.snapshot(10).map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(buffer.clear()).toBe(3);
    buffer.push(event(6));
    expect(buffer.snapshot().map((e) => e.seq)).toEqual([6]);
  });

  it('is capped at 100,000 by default', () => {
    const buffer = new TrafficBuffer();
    for (let i = 0; i < 100_005; i++) buffer.push({ seq: i } as TrafficEvent);
    expect(buffer.size).toBe(100_000);
    expect(buffer.snapshot(1)[0].seq).toBe(100_004);
    expect(buffer.snapshot()[0].seq).toBe(5);
  });
});

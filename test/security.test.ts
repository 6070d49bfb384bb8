import { afterEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startProxy } from '../src/main/engine/proxy.js';
import { startServe } from '../src/main/engine/serve.js';
import { startUi } from '../src/main/cli/ui-command.js';
import { newSessionId } from '../src/main/engine/rest/session-id.js';
import { newAgentToken } from '../src/main/engine/rest/session-manager.js';
import { newToken } from '../src/main/cli/token-file.js';
import { connectClient } from './fixtures/client.js';
import { startSdkServer } from './fixtures/sdk-server.js';
import { removeTempDirs, tempDir } from './helpers/temp.js';

// DNS rebinding and cross-site requests, on every HTTP surface: the proxy's MCP endpoint (and legacy SSE), the
// serve REST API and its token-gated MCP endpoint, the UI page and its WebSocket bridge.
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close().catch(() => {});
  await removeTempDirs();
});

function request(url: string, method: string, headers: Record<string, string>, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function upgrade(url: string, headers: Record<string, string>, protocols: string[] = []): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, protocols, { headers });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(0));
  });
}

async function surfaces(): Promise<
  Array<{ name: string; url: string; method: string; body?: string; headers?: Record<string, string> }>
> {
  const upstream = await startSdkServer();
  open.push(upstream);
  const proxy = await startProxy({ mode: 'proxy-only', upstreamUrl: upstream.url });
  open.push(proxy);
  const serve = await startServe();
  open.push(serve);
  const rendererDir = await tempDir('rewind-renderer-');
  mkdirSync(join(rendererDir, 'assets'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>');
  const ui = await startUi({
    host: '127.0.0.1',
    port: 0,
    open: false,
    dataDir: await tempDir('rewind-data-'),
    version: 'test',
    rendererDir,
  });
  open.push(ui);
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  return [
    { name: 'proxy MCP', url: proxy.url, method: 'POST', body: init, headers: json },
    {
      name: 'proxy legacy SSE',
      url: proxy.url.replace('/mcp', '/sse'),
      method: 'GET',
      headers: { accept: 'text/event-stream' },
    },
    { name: 'serve REST', url: `${serve.url}/api/sessions`, method: 'GET' },
    { name: 'serve MCP', url: `${serve.url}/mcp`, method: 'POST', body: init, headers: json },
    { name: 'UI page', url: `${ui.shell.origin}/`, method: 'GET' },
  ];
}

describe('Host and Origin validation on every surface', () => {
  it('refuses a foreign Host (DNS rebinding) and any browser Origin not given leave, loopback ones included, with 403', async () => {
    for (const s of await surfaces()) {
      const port = new URL(s.url).port;
      expect(
        await request(s.url, s.method, { ...s.headers, host: `attacker.example:${port}` }, s.body),
        `${s.name}, Host`,
      ).toBe(403);
      expect(
        await request(s.url, s.method, { ...s.headers, origin: 'http://attacker.example' }, s.body),
        `${s.name}, Origin`,
      ).toBe(403);
      // a page on another loopback port is no more this server than a web site is (nor is a file:// page)
      for (const origin of [`http://localhost:${Number(port) + 1}`, 'http://127.0.0.1:4598', 'null'])
        expect(await request(s.url, s.method, { ...s.headers, origin }, s.body), `${s.name}, Origin ${origin}`).toBe(
          403,
        );
      // a no-cors request of another site's page carries no Origin, but says where it comes from
      expect(
        await request(s.url, s.method, { ...s.headers, 'sec-fetch-site': 'same-site' }, s.body),
        `${s.name}, Sec-Fetch-Site`,
      ).toBe(403);
      // no Origin at all: an agent, an SDK client, curl
      expect(await request(s.url, s.method, { ...s.headers }, s.body), `${s.name}, no Origin`).not.toBe(403);
      // parsed strictly: a loopback literal followed by anything but a port is not loopback
      for (const host of [
        '[::1]evil.example',
        `[::1]evil.example:${port}`,
        `127.0.0.1.evil.example:${port}`,
        `localhost@evil.example:${port}`,
        `[::1]:${port}x`,
        `127.0.0.1:${port}:1`,
      ]) {
        expect(await request(s.url, s.method, { ...s.headers, host }, s.body), `${s.name}, Host ${host}`).toBe(403);
      }
      expect(
        await request(s.url, s.method, { ...s.headers, host: `[::1]:${port}` }, s.body),
        `${s.name}, Host [::1]:port`,
      ).not.toBe(403);
    }
  });

  it("the proxy accepts a page of its own origin (as the conformance suite's DNS-rebinding check sends it), and no other", async () => {
    const upstream = await startSdkServer();
    open.push(upstream);
    for (const mode of ['proxy-only', 'record'] as const) {
      const proxy = await startProxy({ mode, upstreamUrl: upstream.url, cacheDir: await tempDir() });
      open.push(proxy);
      const port = proxy.port;
      const init = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const status = (host: string, origin: string) => request(proxy.url, 'POST', { ...headers, host, origin }, init);
      // its own origin: the loopback literal it listens on, or localhost when the request came by localhost too
      expect(await status(`127.0.0.1:${port}`, `http://127.0.0.1:${port}`), `${mode}, 127.0.0.1`).toBe(200);
      expect(await status(`localhost:${port}`, `http://localhost:${port}`), `${mode}, localhost`).toBe(200);
      expect(await status(`localhost:${port}`, `http://127.0.0.1:${port}`), `${mode}, literal via localhost`).toBe(200);
      for (const [host, origin] of [
        [`attacker.example:${port}`, `http://attacker.example:${port}`], // DNS rebinding: the page's own name
        [`127.0.0.1:${port}`, `http://attacker.example:${port}`],
        [`127.0.0.1:${port}`, `http://localhost:${port + 1}`], // another loopback port
        [`localhost:${port}`, `http://localhost:${port + 1}`],
        [`127.0.0.1:${port}`, `https://127.0.0.1:${port}`], // not what this server serves
        [`127.0.0.1:${port}`, `http://[::1]:${port}`], // another process may listen on [::1] with this port
        [`127.0.0.1:${port}`, `http://localhost:${port}`], // localhost may be [::1]: only by the same name
        [`127.0.0.1:${port}`, `http://127.0.0.1.attacker.example:${port}`],
      ])
        expect(await status(host, origin), `${mode}, Host ${host}, Origin ${origin}`).toBe(403);
    }
  });

  it('serve too accepts a page of its own origin on its MCP and REST paths, and no other', async () => {
    const serve = await startServe();
    open.push(serve);
    const port = Number(new URL(serve.url).port);
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const status = async (host: string, origin: string) => [
      await request(`${serve.url}/mcp`, 'POST', { ...json, host, origin }, ping),
      await request(`${serve.url}/api/sessions`, 'GET', { host, origin }),
    ];
    for (const [host, origin] of [
      [`127.0.0.1:${port}`, `http://127.0.0.1:${port}`],
      [`localhost:${port}`, `http://localhost:${port}`],
    ])
      for (const code of await status(host, origin)) expect(code, `Host ${host}, Origin ${origin}`).not.toBe(403);
    for (const [host, origin] of [
      [`attacker.example:${port}`, `http://attacker.example:${port}`],
      [`127.0.0.1:${port}`, `http://localhost:${port + 1}`],
      [`127.0.0.1:${port}`, `http://[::1]:${port}`],
    ])
      expect(await status(host, origin), `Host ${host}, Origin ${origin}`).toEqual([403, 403]);
  });

  it("the UI's WebSocket bridge refuses another origin even with the token", async () => {
    const rendererDir = await tempDir('rewind-renderer-');
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>');
    const ui = await startUi({
      host: '127.0.0.1',
      port: 0,
      open: false,
      dataDir: await tempDir('rewind-data-'),
      version: 'test',
      rendererDir,
    });
    open.push(ui);
    const ws = `ws://127.0.0.1:${ui.shell.port}/api`;
    const withToken = ['mcp-rewind.v1', `mcp-rewind.token.${ui.shell.token}`];
    expect(await upgrade(ws, { origin: 'http://attacker.example' }, withToken)).not.toBe(101);
    expect(await upgrade(ws, { origin: ui.shell.origin }, withToken)).toBe(101);
    expect(await upgrade(ws, { origin: ui.shell.origin })).not.toBe(101);
  });
});

describe('credentials', () => {
  // what must hold with overwhelming probability: 256-bit draws never repeat (a repeat in 10,000 draws has a
  // probability of about 2^-230); a bound on a 26-bit readable id would be flaky by the birthday bound
  it('agent and API tokens carry 256 random bits: 10,000 draws, all distinct, all 32 bytes', () => {
    for (const draw of [newAgentToken, newToken]) {
      const tokens = Array.from({ length: 10_000 }, draw);
      expect(new Set(tokens).size).toBe(tokens.length);
      for (const t of tokens.slice(0, 100)) expect(Buffer.from(t, 'base64url')).toHaveLength(32);
    }
  });

  it('readable session ids are names, made unique by the in-use check (never a credential)', () => {
    const inUse = new Set<string>();
    for (let i = 0; i < 2000; i++) inUse.add(newSessionId((id) => inUse.has(id)));
    expect(inUse.size).toBe(2000);
    for (const id of inUse) expect(id).toMatch(/^[a-z]+-[a-z]+-[0-9a-f]{4}$/);
  });
});

describe('serve: locked by default, bounded, backing off', () => {
  const json = { 'content-type': 'application/json' };
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(body) });

  it('without a token of its own it makes one: the REST API answers 401 without it, and never lists agent tokens', async () => {
    const serve = await startServe();
    open.push(serve);
    expect(serve.apiToken && Buffer.from(serve.apiToken, 'base64url')).toHaveLength(32);
    expect((await fetch(`${serve.url}/api/sessions`)).status).toBe(401);
    expect((await post(`${serve.url}/api/sessions`, { tools: [] })).status).toBe(401);
    const auth = { authorization: `Bearer ${serve.apiToken}` };
    const created = (await (
      await post(`${serve.url}/api/sessions`, { tools: [{ name: 't', input_schema: { type: 'object' } }] }, auth)
    ).json()) as {
      session_id: string;
      mcp: { token: string };
    };
    const listed = await (await fetch(`${serve.url}/api/sessions`, { headers: auth })).text();
    const detail = await (await fetch(`${serve.url}/api/sessions/${created.session_id}`, { headers: auth })).text();
    expect(listed).toContain(created.session_id);
    expect(listed + detail).not.toContain(created.mcp.token);
  });

  it('--no-auth-style opt-out is explicit: noAuth serves the API without a token', async () => {
    const serve = await startServe({ noAuth: true });
    open.push(serve);
    expect(serve.apiToken).toBeUndefined();
    expect((await fetch(`${serve.url}/api/sessions`)).status).toBe(200);
  });

  it('limits sessions (429), rule sets and bodies (413); an inject template past its bound answers a JSON-RPC error', async () => {
    const serve = await startServe({ maxSessions: 2 });
    open.push(serve);
    const auth = { authorization: `Bearer ${serve.apiToken}` };
    const tool = {
      name: 'echo',
      input_schema: { type: 'object' },
      behavior: { type: 'inject', template: '{args.x}'.repeat(30_000) },
    };
    const upstream = await startSdkServer();
    open.push(upstream);
    const created = await post(`${serve.url}/api/sessions`, { upstream: { url: upstream.url }, tools: [tool] }, auth);
    expect(created.status).toBe(201);
    const { mcp } = (await created.json()) as { mcp: { url: string; token: string } };
    expect((await post(`${serve.url}/api/sessions`, { tools: [] }, auth)).status).toBe(201);
    const third = await post(`${serve.url}/api/sessions`, { tools: [] }, auth);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBeTruthy();
    expect(((await third.json()) as { message: string }).message).toMatch(/at most 2/);

    const big = await startServe();
    open.push(big);
    const bigAuth = { authorization: `Bearer ${big.apiToken}` };
    const huge = await post(
      `${big.url}/api/sessions`,
      { tools: [{ ...tool, behavior: { type: 'inject', template: '{args.x}'.repeat(60_000) } }] },
      bigAuth,
    );
    expect(huge.status).toBe(413);
    expect(((await huge.json()) as { message: string }).message).toMatch(/rule set is \d+ bytes/);
    const body = await fetch(`${big.url}/api/sessions`, {
      method: 'POST',
      headers: { ...json, ...bigAuth },
      body: `{"tools":[],"name":"${'x'.repeat(2 * 1024 * 1024)}"}`,
    });
    expect(body.status).toBe(413);

    const c = await connectClient(mcp.url, { headers: { authorization: `Bearer ${mcp.token}` } });
    open.push(c);
    const answer = await c.client.callTool({ name: 'echo', arguments: { text: 'hi', x: 'y'.repeat(10_000) } }).then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    expect(answer).toMatch(/inject template renders to more than 16 MiB/);
  });

  it('backs off wrong tokens: beyond a few free ones, answers are held back and then refused (429)', async () => {
    const serve = await startServe();
    open.push(serve);
    const statuses = await Promise.all(
      Array.from({ length: 60 }, () =>
        fetch(`${serve.url}/api/sessions`, { headers: { authorization: 'Bearer wrong' } }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(10);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    // the MCP endpoint's session tokens too
    const mcp = await Promise.all(
      Array.from({ length: 60 }, () =>
        post(
          `${serve.url}/mcp`,
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { authorization: 'Bearer nope', accept: 'application/json, text/event-stream' },
        ).then((r) => r.status),
      ),
    );
    expect(mcp.filter((s) => s === 429).length).toBeGreaterThan(0);
  });
});

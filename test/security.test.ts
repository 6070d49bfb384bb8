import { afterEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startProxy } from '../src/main/engine/proxy.js';
import { startServe } from '../src/main/engine/serve.js';
import { startUi } from '../src/main/cli/ui-command.js';
import { newSessionId } from '../src/main/engine/rest/session-id.js';
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

function upgrade(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(0));
  });
}

async function surfaces(): Promise<Array<{ name: string; url: string; method: string; body?: string; headers?: Record<string, string> }>> {
  const upstream = await startSdkServer();
  open.push(upstream);
  const proxy = await startProxy({ mode: 'proxy-only', upstreamUrl: upstream.url });
  open.push(proxy);
  const serve = await startServe();
  open.push(serve);
  const rendererDir = await tempDir('rewind-renderer-');
  mkdirSync(join(rendererDir, 'assets'));
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>');
  const ui = await startUi({ host: '127.0.0.1', port: 0, open: false, dataDir: await tempDir('rewind-data-'), version: 'test', rendererDir });
  open.push(ui);
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  return [
    { name: 'proxy MCP', url: proxy.url, method: 'POST', body: init, headers: json },
    { name: 'proxy legacy SSE', url: proxy.url.replace('/mcp', '/sse'), method: 'GET', headers: { accept: 'text/event-stream' } },
    { name: 'serve REST', url: `${serve.url}/api/sessions`, method: 'GET' },
    { name: 'serve MCP', url: `${serve.url}/mcp`, method: 'POST', body: init, headers: json },
    { name: 'UI page', url: ui.shell.url, method: 'GET' },
  ];
}

describe('Host and Origin validation on every surface', () => {
  it('refuses a foreign Host (DNS rebinding) and a foreign Origin (a page on another site) with 403', async () => {
    for (const s of await surfaces()) {
      const port = new URL(s.url).port;
      expect(await request(s.url, s.method, { ...s.headers, host: `attacker.example:${port}` }, s.body), `${s.name}, Host`).toBe(403);
      expect(await request(s.url, s.method, { ...s.headers, origin: 'http://attacker.example' }, s.body), `${s.name}, Origin`).toBe(403);
      expect(await request(s.url, s.method, { ...s.headers, origin: `http://localhost:${port}` }, s.body), `${s.name}, loopback Origin`).not.toBe(403);
    }
  });

  it("the UI's WebSocket bridge refuses another origin even with the token", async () => {
    const rendererDir = await tempDir('rewind-renderer-');
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>ui</title>');
    const ui = await startUi({ host: '127.0.0.1', port: 0, open: false, dataDir: await tempDir('rewind-data-'), version: 'test', rendererDir });
    open.push(ui);
    const ws = `ws://127.0.0.1:${ui.shell.port}/api?token=${ui.shell.token}`;
    expect(await upgrade(ws, { origin: 'http://attacker.example' })).not.toBe(101);
    expect(await upgrade(ws, { origin: ui.shell.origin })).toBe(101);
    expect(await upgrade(`ws://127.0.0.1:${ui.shell.port}/api`, { origin: ui.shell.origin })).not.toBe(101);
  });
});

describe('session tokens', () => {
  it('are drawn at random: 2,000 draws, no repeats, every part varies', () => {
    const ids = Array.from({ length: 2000 }, () => newSessionId(() => false));
    expect(new Set(ids).size).toBe(ids.length);
    const parts = (i: number) => new Set(ids.map((id) => id.split('-')[i]));
    expect(parts(0).size).toBeGreaterThan(30);
    expect(parts(1).size).toBeGreaterThan(30);
    expect(parts(2).size).toBeGreaterThan(1500);
  });
});

/**
 * Proxy-only with nobody watching: no hook wants the body, so a POST goes to the upstream unparsed (pipeline/upstream/pipe.ts)
 * — what a bare HTTP proxy does. Real SDK peers over loopback; a raw node:http server where the bytes must be seen.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy } from '../../src/main/engine/proxy.js';
import { connectClient } from '../fixtures/client.js';
import { startSdkServer } from '../fixtures/sdk-server.js';
import { keeper } from '../helpers/keep.js';

const { keep, closeAll } = keeper();
afterEach(closeAll);

const ACCEPT = 'application/json, text/event-stream';

async function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body,
  });
  return { status: res.status, text: await res.text() };
}

describe('proxy-only with nobody watching pipes POSTs', () => {
  it('the upstream gets the client bytes as sent and judges them; the client gets the upstream answer', async () => {
    const seen: string[] = [];
    const raw = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push(Buffer.concat(chunks).toString('utf8'));
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"upstream says: parse error"}}');
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    keep({ close: () => new Promise<void>((resolve) => raw.close(() => resolve())) });
    const proxy = keep(
      await startProxy({
        mode: 'proxy-only',
        upstreamUrl: `http://127.0.0.1:${(raw.address() as AddressInfo).port}/mcp`,
      }),
    );
    const oddlySpaced = '{ "jsonrpc" : "2.0", "id": 7,   "method": "tools/list" , "x": [1,2,3 ';
    const answer = await post(proxy.url, oddlySpaced);
    expect(seen).toEqual([oddlySpaced]); // not parsed, not re-serialised, not refused by the proxy
    expect(answer).toEqual({
      status: 400,
      text: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"upstream says: parse error"}}',
    });
  });

  it('a real SDK client works through it, and an upstream that is gone answers -32005 with the request id', async () => {
    const server = await startSdkServer();
    const proxy = keep(await startProxy({ mode: 'proxy-only', upstreamUrl: server.url }));
    expect(proxy.endpoint.pipes).toBe(true);
    const c = keep(await connectClient(proxy.url));
    expect((await c.client.listTools()).tools.length).toBeGreaterThan(0);
    await server.close();
    const answer = await post(proxy.url, JSON.stringify({ jsonrpc: '2.0', id: 'x-1', method: 'tools/list' }));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ id: 'x-1', error: { code: -32005 } });
  });

  it('a body over 4 MiB gets 413 from the proxy and nothing reaches the upstream; the proxy serves on', async () => {
    let reached = 0;
    const raw = http.createServer((req, res) => {
      reached++;
      req.resume();
      req.on('end', () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}'),
      );
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    keep({ close: () => new Promise<void>((resolve) => raw.close(() => resolve())) });
    const proxy = keep(
      await startProxy({
        mode: 'proxy-only',
        upstreamUrl: `http://127.0.0.1:${(raw.address() as AddressInfo).port}/mcp`,
      }),
    );
    const answer = await post(proxy.url, ' '.repeat(4 * 1024 * 1024 + 10));
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toMatchObject({
      id: null,
      error: { message: expect.stringContaining('larger than') },
    });
    expect(reached).toBe(0);
    expect(await post(proxy.url, '{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({
      status: 200,
      text: '{"jsonrpc":"2.0","id":1,"result":{}}',
    });
    expect(reached).toBe(1);
  });

  it('as soon as someone watches, the same proxy parses again (the exchange reaches the listener)', async () => {
    const server = keep(await startSdkServer());
    const proxy = keep(await startProxy({ mode: 'proxy-only', upstreamUrl: server.url }));
    const methods: string[] = [];
    proxy.events.on('exchange', (event) => methods.push(event.method));
    expect(proxy.endpoint.pipes).toBe(false);
    const c = keep(await connectClient(proxy.url));
    await c.client.listTools();
    await expect.poll(() => methods).toContain('tools/list');
  });
});

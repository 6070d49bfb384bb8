/**
 * Robustness against hostile or broken input: malformed bodies, odd ids, batch abuse, Host/Origin/CORS.
 * Everything runs for real: SDK servers and clients over loopback HTTP, raw node:http where no client library
 * would send such input.
 */

import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../fixtures/sdk-server.js';
import {
  FOUR_MIB,
  answerOf,
  healthcheck,
  jsonHeaders,
  rawRequest,
  rawSession,
  tempDir,
  textOf,
  removeRobustTempDirs,
} from './robustness-helpers.js';

afterAll(removeRobustTempDirs);

// ---------------------------------------------------------------------------------------------------------------
// malformed bodies

interface BadInput {
  name: string;
  headers?: Record<string, string>;
  body: string | Buffer;
  chunked?: boolean;
  status: number;
  code?: number;
}

const BAD_INPUTS: BadInput[] = [
  { name: 'empty body', body: '', status: 400, code: -32700 },
  { name: 'JSON null', body: 'null', status: 400, code: -32600 },
  {
    name: 'batch with a non-message',
    body: '[{"jsonrpc":"2.0","method":"notifications/initialized"},42]',
    status: 400,
    code: -32600,
  },
  { name: 'request id null', body: '{"jsonrpc":"2.0","id":null,"method":"ping"}', status: 400, code: -32600 },
  { name: 'broken JSON', body: '{"jsonrpc":"2.0","id":1,"method":', status: 400, code: -32700 },
  {
    name: 'invalid UTF-8 bytes',
    body: Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"'),
      Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
      Buffer.from('"}}'),
    ]),
    status: 400,
    code: -32700,
  },
  {
    name: 'non-JSON content type',
    headers: { 'content-type': 'text/plain' },
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    status: 415,
  },
  { name: 'empty batch', body: '[]', status: 400, code: -32600 },
  { name: 'message without jsonrpc', body: '{"id":1,"method":"ping"}', status: 400, code: -32600 },
  { name: 'JSON nested 10,000 deep', body: '['.repeat(10_000) + ']'.repeat(10_000), status: 400 },
  {
    name: 'JSON nested 10,000 deep inside params',
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}}`,
    status: 400,
  },
  {
    name: 'body > 4 MiB (Content-Length)',
    body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(FOUR_MIB)}"}}`,
    status: 413,
  },
  {
    name: 'body > 4 MiB (chunked, no Content-Length)',
    body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(FOUR_MIB)}"}}`,
    chunked: true,
    status: 413,
  },
];

describe.each(['record', 'replay'] as const)('malformed and odd input (%s mode)', (mode) => {
  let upstream: SdkServerHandle;
  let proxy: RunningProxy;
  const clients: ConnectedClient[] = [];

  beforeAll(async () => {
    upstream = await startSdkServer();
    const dir = path.join(await tempDir(), 'cassette');
    if (mode === 'replay') {
      // record the handshake and one echo call, then replay with no upstream behind the proxy
      const recorder = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir: dir });
      try {
        const c = await connectClient(recorder.url);
        await c.client.callTool({ name: 'echo', arguments: { text: 'after' } });
        await c.close();
        await recorder.flush();
      } finally {
        await recorder.close();
      }
      await upstream.close();
      proxy = await startProxy({ mode: 'replay', cacheDir: dir });
    } else {
      proxy = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir: dir });
    }
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it.each(BAD_INPUTS)('$name → HTTP $status', async ({ headers, body, chunked, status, code }) => {
    const res = await rawRequest(proxy.url, { headers: { ...jsonHeaders(), ...headers }, body, chunked });
    if (mode === 'record' && status === 400) {
      // a live proxy passes what is not JSON-RPC to the server, which judges it: the answer is the server's own
      const direct = await rawRequest(upstream.url, { headers: { ...jsonHeaders(), ...headers }, body, chunked });
      expect(direct.status).toBe(400);
      expect(res.status).toBe(direct.status);
      expect(JSON.parse(res.text)).toEqual(JSON.parse(direct.text));
      expect((await healthcheck(proxy)).status).toBe(200);
      return;
    }
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toContain('application/json');
    const error = JSON.parse(res.text) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
    expect(error.jsonrpc).toBe('2.0');
    expect(error.id).toBeNull();
    expect(typeof error.error.message).toBe('string');
    if (code !== undefined) expect(error.error.code).toBe(code);
    expect((await healthcheck(proxy)).status).toBe(200);
  });

  it('bytes that are not HTTP at all get a 400 and the connection closed; the proxy serves on', async () => {
    const socket = connect(proxy.port, '127.0.0.1');
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    let answer = '';
    socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
    const closed = new Promise<void>((resolve, reject) => {
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    socket.write('\u0000\u0001NOT HTTP {"jsonrpc":"2.0"}\r\n\r\n');
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect((await healthcheck(proxy)).status).toBe(200);
  });

  it("an unknown method gets a JSON-RPC error with its id (upstream -32601 relayed in record, the server's -32601 in replay)", async () => {
    const session = await rawSession(proxy.url);
    const res = await rawRequest(proxy.url, {
      headers: jsonHeaders(session),
      body: JSON.stringify({ jsonrpc: '2.0', id: 42, method: 'no/such/method', params: {} }),
    });
    expect(res.status).toBe(200);
    const answer = answerOf(res) as { id: unknown; error?: { code: number } };
    expect(answer.id).toBe(42);
    expect(answer.error?.code).toBe(-32601);
    expect((await healthcheck(proxy)).status).toBe(200);
  });

  it.each([
    { name: '1e308', raw: '1e308', check: (id: unknown) => expect(id).toBe(1e308) },
    { name: '-0', raw: '-0', check: (id: unknown) => expect(id === 0).toBe(true) },
    { name: 'empty string', raw: '""', check: (id: unknown) => expect(id).toBe('') },
    {
      name: '10 kB string',
      raw: JSON.stringify('i'.repeat(10_240)),
      check: (id: unknown) => expect(id).toBe('i'.repeat(10_240)),
    },
  ])('request id $name is answered with the same id', async ({ raw, check }) => {
    const body = `{"jsonrpc":"2.0","id":${raw},"method":"ping"}`;
    const session = await rawSession(proxy.url);
    const res = await rawRequest(proxy.url, { headers: jsonHeaders(session), body });
    if (mode === 'record') {
      // A live proxy relays the upstream's verdict, whatever it is: compare with the upstream asked directly.
      // (The SDK refuses 1e308 itself: its RequestIdSchema is z.number().int(), and zod 4's int() means a safe integer.)
      const direct = await rawRequest(upstream.url, { headers: jsonHeaders(await rawSession(upstream.url)), body });
      expect(res.status).toBe(direct.status);
      if (direct.status !== 200) {
        expect(JSON.parse(res.text)).toEqual(JSON.parse(direct.text));
        return;
      }
    }
    expect(res.status).toBe(200);
    const answer = answerOf(res) as { id: unknown; result?: unknown };
    check(answer.id);
    expect(answer.result).toEqual({});
  });

  it('after all that (and the same garbage again, concurrently) a real SDK client still connects and calls a tool', async () => {
    const garbage = Promise.all(
      BAD_INPUTS.map((b) =>
        rawRequest(proxy.url, { headers: { ...jsonHeaders(), ...b.headers }, body: b.body, chunked: b.chunked }),
      ),
    );
    const c = await connectClient(proxy.url);
    clients.push(c);
    const result = await c.client.callTool({ name: 'echo', arguments: { text: 'after' } });
    expect(textOf(result)).toBe('echo: after');
    expect((await garbage).map((r) => r.status)).toEqual(BAD_INPUTS.map((b) => b.status));
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Host / Origin / CORS

describe('Host and Origin validation, CORS, healthcheck', () => {
  let upstream: SdkServerHandle;
  let proxy: RunningProxy;

  beforeAll(async () => {
    upstream = await startSdkServer();
    proxy = await startProxy({
      mode: 'record',
      upstreamUrl: upstream.url,
      cacheDir: path.join(await tempDir(), 'cassette'),
      allowedOrigins: ['http://localhost:1234'],
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  const initBody = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

  it('Host: evil.example → 403, and the upstream never sees the request', async () => {
    const before = upstream.messages.length;
    const res = await rawRequest(proxy.url, { headers: jsonHeaders({ host: 'evil.example' }), body: initBody });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(upstream.messages.length).toBe(before);
  });

  it('Host: evil.example:<port> on GET /healthcheck → 403 too (DNS rebinding)', async () => {
    const res = await rawRequest(`http://127.0.0.1:${proxy.port}/healthcheck`, {
      method: 'GET',
      headers: { host: `evil.example:${proxy.port}` },
    });
    expect(res.status).toBe(403);
  });

  it('Origin: http://evil.example → 403, and the upstream never sees the request', async () => {
    const before = upstream.messages.length;
    const res = await rawRequest(proxy.url, {
      headers: jsonHeaders({ origin: 'http://evil.example' }),
      body: initBody,
    });
    expect(res.status).toBe(403);
    expect(upstream.messages.length).toBe(before);
  });

  it('Origin of another loopback port, not given leave → 403 (and its preflight too), and the upstream never sees the request', async () => {
    const before = upstream.messages.length;
    const res = await rawRequest(proxy.url, {
      headers: jsonHeaders({ origin: 'http://localhost:4598' }),
      body: initBody,
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text).error.message).toMatch(/Origin "http:\/\/localhost:4598" is not allowed/);
    const preflight = await rawRequest(proxy.url, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:4598', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(upstream.messages.length).toBe(before);
  });

  it('Origin given leave (allowedOrigins: http://localhost:1234) is allowed, with CORS headers echoing it and exposing mcp-session-id', async () => {
    const res = await rawRequest(proxy.url, {
      headers: jsonHeaders({ origin: 'http://localhost:1234' }),
      body: initBody,
    });
    expect(res.status).toBe(200);
    expect(answerOf(res)).toMatchObject({ id: 1, result: { serverInfo: { name: 'fixture-server' } } });
    expect(res.headers['mcp-session-id']).toBeTruthy();
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:1234');
    const exposed = String(res.headers['access-control-expose-headers'])
      .toLowerCase()
      .split(/\s*,\s*/);
    expect(exposed).toContain('mcp-session-id');
  });

  it('OPTIONS preflight → 204 allowing the MCP headers', async () => {
    const res = await rawRequest(proxy.url, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:1234',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-session-id, mcp-protocol-version',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:1234');
    const allowed = String(res.headers['access-control-allow-headers'])
      .toLowerCase()
      .split(/\s*,\s*/);
    expect(allowed).toEqual(
      expect.arrayContaining([
        'mcp-session-id',
        'mcp-protocol-version',
        'content-type',
        'authorization',
        'last-event-id',
      ]),
    );
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
  });

  it('GET /healthcheck → 200', async () => {
    const res = await healthcheck(proxy);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ status: 'ok', mode: 'record' });
  });
});

/**
 * Robustness of the proxy engine (startProxy) against hostile or broken input, hostile peers and hard kills.
 * Everything runs for real: SDK servers and clients over loopback HTTP, raw node:http where no client library
 * would send such input, a child process for the kill -9 test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http, { type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { keyFor } from '../../src/main/engine/cassette/keys.js';
import { startProxy, type RunningProxy } from '../../src/main/engine/proxy.js';
import { connectClient, type ConnectedClient } from '../fixtures/client.js';
import { startSdkServer, type SdkServerHandle } from '../fixtures/sdk-server.js';
import { startCustomUpstream, type CustomUpstream } from '../helpers/custom-upstream.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FOUR_MIB = 4 * 1024 * 1024;
const ACCEPT = 'application/json, text/event-stream';

// ---------------------------------------------------------------------------------------------------------------
// raw HTTP helpers

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

interface RawOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** send the body with Transfer-Encoding: chunked (no Content-Length), in 64 kB pieces */
  chunked?: boolean;
}

/** One HTTP exchange on a fresh connection; the answer is read completely. Bounded by a 10 s timeout. */
function rawRequest(url: string, opts: RawOptions = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const body = opts.body === undefined ? undefined : Buffer.isBuffer(opts.body) ? opts.body : Buffer.from(opts.body);
    const headers: Record<string, string> = { ...opts.headers };
    if (body && !opts.chunked && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) headers['content-length'] = String(body.length);
    let answered = false;
    const req = http.request(url, { method: opts.method ?? 'POST', headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer from ${url} within 10 s`)));
    // The server may answer (413) and close before the whole body is sent: a write error after the answer is fine.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (body && opts.chunked) {
      for (let i = 0; i < body.length; i += 65536) req.write(body.subarray(i, i + 65536));
      req.end();
    } else {
      req.end(body);
    }
  });
}

/** The JSON-RPC messages of an answer, JSON or SSE. */
function messagesOf(res: RawResponse): Array<Record<string, unknown>> {
  if (String(res.headers['content-type']).includes('text/event-stream')) {
    const out: Array<Record<string, unknown>> = [];
    for (const event of res.text.split(/\n\n/)) {
      const data = event
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) out.push(JSON.parse(data) as Record<string, unknown>);
    }
    return out;
  }
  const parsed = JSON.parse(res.text) as unknown;
  return (Array.isArray(parsed) ? parsed : [parsed]) as Array<Record<string, unknown>>;
}

/** The single answer of a POST carrying one request. */
function answerOf(res: RawResponse): Record<string, unknown> {
  const answers = messagesOf(res).filter((m) => !('method' in m));
  expect(answers).toHaveLength(1);
  return answers[0];
}

const jsonHeaders = (extra: Record<string, string> = {}): Record<string, string> => ({ 'content-type': 'application/json', accept: ACCEPT, ...extra });

/** A raw MCP session (initialize + initialized) through the proxy; returns the headers later requests need. */
async function rawSession(url: string): Promise<Record<string, string>> {
  const init = await rawRequest(url, {
    headers: jsonHeaders(),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  expect(init.status).toBe(200);
  const answer = answerOf(init) as { result: { protocolVersion: string } };
  const headers: Record<string, string> = { 'mcp-protocol-version': answer.result.protocolVersion };
  const sid = init.headers['mcp-session-id'];
  if (typeof sid === 'string') headers['mcp-session-id'] = sid;
  const ack = await rawRequest(url, { headers: jsonHeaders(headers), body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  expect(ack.status).toBe(202);
  return headers;
}

async function healthcheck(proxy: RunningProxy): Promise<RawResponse> {
  return rawRequest(`http://127.0.0.1:${proxy.port}/healthcheck`, { method: 'GET' });
}

function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** Rejects after ms: a bounded wait for something that must happen. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
    }),
  ]);
}

async function until(condition: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every file below root, as absolute paths (directories are listed too, with a trailing separator). */
async function listTree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.map((e) => path.join(e.parentPath, e.name) + (e.isDirectory() ? path.sep : ''));
}

const DISTILLED = /^(\d+) (.+?)\.json$/;
const isDistilled = (name: string): boolean => DISTILLED.test(name) && !/\.(req|res|res-head)\.json$/.test(name);

// ---------------------------------------------------------------------------------------------------------------
// cleanup bookkeeping shared by all tests

const tempDirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rewind-robust-'));
  tempDirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(tempDirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

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
  { name: 'batch with a non-message', body: '[{"jsonrpc":"2.0","method":"notifications/initialized"},42]', status: 400, code: -32600 },
  { name: 'request id null', body: '{"jsonrpc":"2.0","id":null,"method":"ping"}', status: 400, code: -32600 },
  { name: 'broken JSON', body: '{"jsonrpc":"2.0","id":1,"method":', status: 400, code: -32700 },
  { name: 'invalid UTF-8 bytes', body: Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('"}}')]), status: 400, code: -32700 },
  { name: 'non-JSON content type', headers: { 'content-type': 'text/plain' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}', status: 415 },
  { name: 'empty batch', body: '[]', status: 400, code: -32600 },
  { name: 'message without jsonrpc', body: '{"id":1,"method":"ping"}', status: 400, code: -32600 },
  { name: 'JSON nested 10,000 deep', body: '['.repeat(10_000) + ']'.repeat(10_000), status: 400 },
  { name: 'JSON nested 10,000 deep inside params', body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}}`, status: 400 },
  { name: 'body > 4 MiB (Content-Length)', body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(FOUR_MIB)}"}}`, status: 413 },
  { name: 'body > 4 MiB (chunked, no Content-Length)', body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(FOUR_MIB)}"}}`, chunked: true, status: 413 },
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

  it('an unknown method gets a JSON-RPC error with its id (upstream -32601 relayed in record, a miss in replay)', async () => {
    const session = await rawSession(proxy.url);
    const res = await rawRequest(proxy.url, { headers: jsonHeaders(session), body: JSON.stringify({ jsonrpc: '2.0', id: 42, method: 'no/such/method', params: {} }) });
    expect(res.status).toBe(200);
    const answer = answerOf(res) as { id: unknown; error?: { code: number } };
    expect(answer.id).toBe(42);
    expect(answer.error?.code).toBe(mode === 'record' ? -32601 : -32004);
    expect((await healthcheck(proxy)).status).toBe(200);
  });

  it.each([
    { name: '1e308', raw: '1e308', check: (id: unknown) => expect(id).toBe(1e308) },
    { name: '-0', raw: '-0', check: (id: unknown) => expect(id === 0).toBe(true) },
    { name: 'empty string', raw: '""', check: (id: unknown) => expect(id).toBe('') },
    { name: '10 kB string', raw: JSON.stringify('i'.repeat(10_240)), check: (id: unknown) => expect(id).toBe('i'.repeat(10_240)) },
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
    const garbage = Promise.all(BAD_INPUTS.map((b) => rawRequest(proxy.url, { headers: { ...jsonHeaders(), ...b.headers }, body: b.body, chunked: b.chunked })));
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
    proxy = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir: path.join(await tempDir(), 'cassette') });
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
    const res = await rawRequest(`http://127.0.0.1:${proxy.port}/healthcheck`, { method: 'GET', headers: { host: `evil.example:${proxy.port}` } });
    expect(res.status).toBe(403);
  });

  it('Origin: http://evil.example → 403, and the upstream never sees the request', async () => {
    const before = upstream.messages.length;
    const res = await rawRequest(proxy.url, { headers: jsonHeaders({ origin: 'http://evil.example' }), body: initBody });
    expect(res.status).toBe(403);
    expect(upstream.messages.length).toBe(before);
  });

  it('Origin: http://localhost:1234 is allowed, with CORS headers echoing it and exposing mcp-session-id', async () => {
    const res = await rawRequest(proxy.url, { headers: jsonHeaders({ origin: 'http://localhost:1234' }), body: initBody });
    expect(res.status).toBe(200);
    expect(answerOf(res)).toMatchObject({ id: 1, result: { serverInfo: { name: 'fixture-server' } } });
    expect(res.headers['mcp-session-id']).toBeTruthy();
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:1234');
    const exposed = String(res.headers['access-control-expose-headers']).toLowerCase().split(/\s*,\s*/);
    expect(exposed).toContain('mcp-session-id');
  });

  it('OPTIONS preflight → 204 allowing the MCP headers', async () => {
    const res = await rawRequest(proxy.url, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:1234', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-session-id, mcp-protocol-version' },
    });
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:1234');
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(/\s*,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['mcp-session-id', 'mcp-protocol-version', 'content-type', 'authorization', 'last-event-id']));
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
  });

  it('GET /healthcheck → 200', async () => {
    const res = await healthcheck(proxy);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ status: 'ok', mode: 'record' });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// upstream failures

describe('upstream going away', () => {
  let proxy: RunningProxy | undefined;
  let sdk: SdkServerHandle | undefined;
  let custom: CustomUpstream | undefined;
  let client: ConnectedClient | undefined;
  const hung: Array<() => void> = [];

  afterEach(async () => {
    hung.splice(0).forEach((release) => release());
    await client?.close().catch(() => {});
    await proxy?.close();
    await sdk?.close();
    await custom?.close();
    client = undefined;
    proxy = undefined;
    sdk = undefined;
    custom = undefined;
  });

  it('upstream stopped mid-session: the next call fails with McpError -32005 naming the upstream; the proxy lives on', async () => {
    sdk = await startSdkServer();
    const dir = path.join(await tempDir(), 'cassette');
    proxy = await startProxy({ mode: 'record', upstreamUrl: sdk.url, cacheDir: dir });
    client = await connectClient(proxy.url);
    expect(textOf(await client.client.callTool({ name: 'echo', arguments: { text: 'one' } }))).toBe('echo: one');

    await sdk.close();
    // a bounded client timeout: a proxy that hangs would surface as -32001 (request timed out), not -32005
    const error = await client.client.callTool({ name: 'echo', arguments: { text: 'two' } }, undefined, { timeout: 15_000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32005);
    expect((error as McpError).message).toContain(sdk.url);

    expect((await healthcheck(proxy)).status).toBe(200);
    // a new client connecting now is refused the same way at initialize, promptly
    const refused = await connectClient(proxy.url).then(
      async (c) => {
        await c.close();
        return new Error('connected to a dead upstream');
      },
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).code).toBe(-32005);
    // the proxy's error answer is not an upstream answer: nothing of the failed call goes into the cassette
    await proxy.flush();
    const names = await readdir(dir);
    expect(names.some((n) => n.includes(keyFor({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'one' } } })))).toBe(true);
    expect(names.filter((n) => n.includes(keyFor({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'two' } } })))).toEqual([]);
  });

  // proxy-only with nobody watching takes the untapped byte relay; record parses the stream
  it.each(['record', 'proxy-only'] as const)('upstream killed while a tool call streams (%s): the call rejects (no hang) and the proxy lives on', async (mode) => {
    let progressSent!: () => void;
    const progressed = new Promise<void>((resolve) => (progressSent = resolve));
    custom = await startCustomUpstream(() => {
      const server = new Server({ name: 'hanging', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'hang', inputSchema: { type: 'object' } }] }));
      server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        const progressToken = request.params._meta?.progressToken;
        if (progressToken !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 1, total: 2 } });
        progressSent();
        await new Promise<void>((resolve) => hung.push(resolve)); // never answers on its own
        return { content: [{ type: 'text', text: 'too late' }] };
      });
      return server;
    });
    const dir = path.join(await tempDir(), 'cassette');
    proxy = await startProxy({ mode, upstreamUrl: custom.url, cacheDir: dir });
    client = await connectClient(proxy.url);

    const progress: number[] = [];
    const call = client.client
      .callTool({ name: 'hang', arguments: {} }, undefined, { timeout: 15_000, onprogress: (p) => progress.push(p.progress) })
      .then(
        () => new Error('the call resolved'),
        (e: unknown) => e,
      );
    await within(progressed, 10_000, 'the upstream tool starting');
    await until(() => progress.length > 0, 10_000, 'the progress notification reaching the client through the proxy');

    custom.kill();
    const error = await within(call, 20_000, 'callTool settling after the upstream died');
    expect(error).toBeInstanceOf(McpError);
    // -32005 is the proxy's "upstream unavailable"; a hanging proxy would give -32001 (client-side timeout)
    expect((error as McpError).code).toBe(-32005);
    expect(progress).toEqual([1]);

    expect((await healthcheck(proxy)).status).toBe(200);
    // the proxy still answers MCP: the same session now gets a JSON-RPC error, not a hang
    const again = await client.client.callTool({ name: 'hang', arguments: {} }, undefined, { timeout: 15_000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((again as McpError).code).toBe(-32005);
    await proxy.flush();
    if (mode === 'record') expect((await readdir(dir)).filter((n) => n.includes('tools_call_hang'))).toEqual([]);
  });

  it('a client that disconnects in the middle of a streamed answer does not hurt the proxy', async () => {
    let started = 0;
    custom = await startCustomUpstream(() => {
      const server = new Server({ name: 'hanging', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        if (request.params.name === 'quick') return { content: [{ type: 'text', text: 'quick' }] };
        started++;
        const progressToken = request.params._meta?.progressToken;
        if (progressToken !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 1 } });
        await new Promise<void>((resolve) => hung.push(resolve));
        return { content: [{ type: 'text', text: 'too late' }] };
      });
      return server;
    });
    proxy = await startProxy({ mode: 'record', upstreamUrl: custom.url, cacheDir: path.join(await tempDir(), 'cassette') });
    const session = await rawSession(proxy.url);

    for (let i = 0; i < 5; i++) {
      // read the stream up to the progress event, then drop the connection
      const firstEvent = await new Promise<string>((resolve, reject) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: { name: 'hang', arguments: {}, _meta: { progressToken: `t${i}` } } });
        const req = http.request(proxy!.url, { method: 'POST', headers: { ...jsonHeaders(session), 'content-length': String(Buffer.byteLength(body)) }, agent: false }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (d: string) => {
            text += d;
            if (text.includes('\n\n')) {
              req.destroy();
              resolve(text);
            }
          });
          res.on('error', () => {});
        });
        req.setTimeout(10_000, () => req.destroy(new Error('no event within 10 s')));
        req.on('error', (e) => {
          if (!e.message.includes('socket hang up') && e.message !== 'aborted') reject(e);
        });
        req.end(body);
      });
      expect(firstEvent).toContain('notifications/progress');
    }
    expect(started).toBe(5);

    expect((await healthcheck(proxy)).status).toBe(200);
    const quick = await rawRequest(proxy.url, { headers: jsonHeaders(session), body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'quick', arguments: {} } }) });
    expect(answerOf(quick)).toMatchObject({ id: 7, result: { content: [{ type: 'text', text: 'quick' }] } });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// hostile tool names

const HOSTILE_NAMES = ['../escape', 'a/b', 'nul\u0000byte', 'x'.repeat(600), 'CON', 'ünï/cødé', '..', 'back\\slash', '.', 'ctl\u0001\u001f\u007fchars', 'colon:star*?"<>|', '%2F..%2F'];

function hostileServer(): Server {
  const server = new Server({ name: 'hostile', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: HOSTILE_NAMES.map((name) => ({ name, inputSchema: { type: 'object' as const } })) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [{ type: 'text', text: `called ${JSON.stringify(request.params.name)} with ${JSON.stringify(request.params.arguments ?? {})}` }],
  }));
  return server;
}

describe('hostile tool names', () => {
  let upstream: CustomUpstream | undefined;
  let proxy: RunningProxy | undefined;
  let client: ConnectedClient | undefined;

  afterEach(async () => {
    await client?.close().catch(() => {});
    await proxy?.close();
    await upstream?.close();
    client = undefined;
    proxy = undefined;
    upstream = undefined;
  });

  it('are recorded into files directly inside the cassette folder with safe names, and replay', async () => {
    const root = await tempDir();
    const dir = path.join(root, 'cassette');
    upstream = await startCustomUpstream(hostileServer);
    proxy = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir: dir });
    client = await connectClient(proxy.url);
    const recorded = new Map<string, CallToolResult>();
    for (const name of HOSTILE_NAMES) {
      const result = (await client.client.callTool({ name, arguments: { n: name.length } })) as CallToolResult;
      expect(textOf(result)).toBe(`called ${JSON.stringify(name)} with {"n":${name.length}}`);
      recorded.set(name, result);
    }
    await proxy.flush();
    await client.close();
    client = undefined;
    await proxy.close();
    proxy = undefined;

    const tree = await listTree(root);
    // the cassette folder itself plus files; nothing else anywhere under the temp root
    expect(tree.filter((p) => p.endsWith(path.sep))).toEqual([dir + path.sep]);
    const files = tree.filter((p) => !p.endsWith(path.sep));
    expect(files.length).toBeGreaterThanOrEqual(HOSTILE_NAMES.length);
    for (const file of files) {
      expect(path.dirname(file)).toBe(dir);
      const name = path.basename(file);
      expect(Buffer.byteLength(name), name).toBeLessThanOrEqual(255);
      expect(name, JSON.stringify(name)).not.toMatch(/[/\\\u0000-\u001f\u007f]/);
      expect(name).not.toMatch(/^\.\.?$/);
      expect(name.startsWith('.rewind-tmp-'), name).toBe(false);
    }
    const distilled = files.map((f) => path.basename(f)).filter(isDistilled);
    expect(distilled.filter((n) => n.includes('tools_call_'))).toHaveLength(HOSTILE_NAMES.length);

    await upstream.close();
    upstream = undefined;
    proxy = await startProxy({ mode: 'replay', cacheDir: dir });
    client = await connectClient(proxy.url);
    const misses: string[] = [];
    proxy.events.on('exchange', (e) => {
      if (e.cassette === 'miss') misses.push(e.key);
    });
    for (const name of HOSTILE_NAMES) {
      const replayed = await client.client.callTool({ name, arguments: { n: name.length } });
      expect(replayed, JSON.stringify(name)).toEqual(recorded.get(name));
    }
    expect(misses).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// secrets

describe('secrets never reach the cassette', () => {
  let upstream: CustomUpstream | undefined;
  let proxy: RunningProxy | undefined;
  let client: ConnectedClient | undefined;

  afterEach(async () => {
    await client?.close().catch(() => {});
    await proxy?.close();
    await upstream?.close();
    client = undefined;
    proxy = undefined;
    upstream = undefined;
  });

  it('Authorization, Cookie and X-Api-Key are forwarded upstream but written as [REDACTED]', async () => {
    const dir = path.join(await tempDir(), 'cassette');
    upstream = await startCustomUpstream(() => {
      const server = new Server({ name: 'secrets', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' as const } }] }));
      server.setRequestHandler(CallToolRequestSchema, (request) => ({ content: [{ type: 'text', text: `echo ${JSON.stringify(request.params.arguments)}` }] }));
      return server;
    });
    proxy = await startProxy({ mode: 'record', upstreamUrl: upstream.url, cacheDir: dir });
    client = await connectClient(proxy.url, {
      headers: { Authorization: 'Bearer sk-secret-123', Cookie: 'sid=cookie-secret-456', 'X-Api-Key': 'key-secret-789' },
    });
    expect(textOf(await client.client.callTool({ name: 'echo', arguments: { a: 1 } }))).toBe('echo {"a":1}');
    expect(await client.client.listTools()).toMatchObject({ tools: [{ name: 'echo' }] });
    await proxy.flush();

    // the upstream received the credentials on every POST (the proxy forwards them)
    const posts = upstream.requests.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(3); // initialize, initialized, tools/call, tools/list
    for (const r of posts) {
      expect(r.headers.authorization).toBe('Bearer sk-secret-123');
      expect(r.headers.cookie).toBe('sid=cookie-secret-456');
      expect(r.headers['x-api-key']).toBe('key-secret-789');
    }

    const names = await readdir(dir);
    expect(names.filter(isDistilled).length).toBeGreaterThanOrEqual(3); // initialize, tools_call_echo_…, tools_list
    for (const name of names) {
      const content = await readFile(path.join(dir, name), 'utf8');
      for (const secret of ['sk-secret-123', 'cookie-secret-456', 'key-secret-789']) expect(content, `${name} contains ${secret}`).not.toContain(secret);
    }
    const reqFiles = names.filter((n) => n.endsWith('.req.json'));
    expect(reqFiles.length).toBeGreaterThanOrEqual(3);
    for (const name of reqFiles) {
      const debug = JSON.parse(await readFile(path.join(dir, name), 'utf8')) as { headers: Record<string, unknown> };
      expect(debug.headers.authorization, name).toBe('[REDACTED]');
      expect(debug.headers.cookie, name).toBe('[REDACTED]');
      expect(debug.headers['x-api-key'], name).toBe('[REDACTED]');
    }
  });

  it('credentials in the upstream URL (user:password@, ?api_key=) are not written to the cassette either', async () => {
    const dir = path.join(await tempDir(), 'cassette');
    upstream = await startCustomUpstream(() => {
      const server = new Server({ name: 'secrets', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: 'ok' }] }));
      return server;
    });
    const url = new URL(upstream.url);
    url.username = 'user';
    url.password = 'pass-secret-111';
    url.searchParams.set('api_key', 'query-secret-000');
    proxy = await startProxy({ mode: 'record', upstreamUrl: url.href, cacheDir: dir });
    client = await connectClient(proxy.url);
    expect(textOf(await client.client.callTool({ name: 'anything', arguments: {} }))).toBe('ok');
    await proxy.flush();

    // the URL is used as given: the upstream got the query and HTTP Basic credentials from it
    const post = upstream.requests.find((r) => r.method === 'POST');
    expect(post?.url).toBe('/mcp?api_key=query-secret-000');
    expect(post?.headers.authorization).toBe(`Basic ${Buffer.from('user:pass-secret-111').toString('base64')}`);

    const names = await readdir(dir);
    expect(names.filter((n) => n.endsWith('.req.json')).length).toBeGreaterThanOrEqual(2);
    for (const name of names) {
      const content = await readFile(path.join(dir, name), 'utf8');
      for (const secret of ['pass-secret-111', 'query-secret-000']) expect(content, `${name} contains ${secret}`).not.toContain(secret);
    }
  });

  it('the "upstream unavailable" error names the upstream without its credentials', async () => {
    upstream = await startCustomUpstream(() => new Server({ name: 'x', version: '1.0.0' }, { capabilities: { tools: {} } }));
    const url = new URL(upstream.url);
    url.username = 'user';
    url.password = 'pass-secret-111';
    url.searchParams.set('api_key', 'query-secret-000');
    proxy = await startProxy({ mode: 'record', upstreamUrl: url.href, cacheDir: path.join(await tempDir(), 'cassette') });
    client = await connectClient(proxy.url);
    await upstream.close();
    const error = (await client.client.ping({ timeout: 15_000 }).then(
      () => undefined,
      (e: unknown) => e,
    )) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32005);
    expect(error.message).toContain(`127.0.0.1:${upstream.port}`);
    expect(error.message).not.toContain('pass-secret-111');
    expect(error.message).not.toContain('query-secret-000');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// kill -9 safety of the store

describe('cassette store survives kill -9 of a recording process', () => {
  let child: ChildProcess | undefined;
  let proxy: RunningProxy | undefined;

  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child?.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    child = undefined;
    await proxy?.close();
    proxy = undefined;
  });

  it('a folder written by a SIGKILLed recorder loads in replay, leaves no temp files, and every distilled file parses', async () => {
    const dir = path.join(await tempDir(), 'cassette');
    child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO, 'test/helpers/record-loop.ts'), dir], {
      cwd: REPO,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const recordedKeys: string[] = [];
    let stderr = '';
    let buffer = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      buffer += d;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.startsWith('recorded ')) recordedKeys.push(line.slice('recorded '.length));
      }
    });
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child?.once('exit', (code, signal) => resolve(signal ?? code)));

    await until(() => recordedKeys.length >= 60 || child?.exitCode !== null, 25_000, `the child recording 60 exchanges (stderr: ${stderr})`).catch((e: Error) => {
      throw new Error(`${e.message}\nchild stderr:\n${stderr}`);
    });
    expect(child.exitCode, stderr).toBeNull();
    const confirmed = [...recordedKeys];
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    proxy = await startProxy({ mode: 'replay', cacheDir: dir });
    const names = await readdir(dir);
    expect(names.filter((n) => n.startsWith('.rewind-tmp-'))).toEqual([]);
    const distilled = names.filter(isDistilled);
    expect(distilled.length).toBeGreaterThanOrEqual(confirmed.length);
    for (const name of distilled) {
      const text = await readFile(path.join(dir, name), 'utf8');
      expect(() => JSON.parse(text), name).not.toThrow();
    }
    // every exchange the child saw written before the kill is in the replay index
    for (const key of confirmed) expect(proxy.store?.lookup(key)?.length ?? 0, key).toBeGreaterThan(0);
    expect(proxy.store?.size).toBe(distilled.length);
  });
});

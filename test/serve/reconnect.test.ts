import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server as HttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import type { ConnectedClient } from '../fixtures/client.js';
import { agent, cleanup, instance, keep, textOf, type Rest } from './harness.js';

// One supervised upstream connection per session: an upstream that restarts (same port, none of its old sessions)
// must not break the session's connected agent, and the session detail shows the connection state.
afterEach(cleanup);

const INJECT = [{ name: 'echo', behavior: { type: 'inject', template: '{original_text}!' } }];

const state = async (api: Rest, sid: string) => (await api.detail(sid)).upstream?.state;

/** A call's outcome that is not a hang: the text of a success, or 'error' (error result or JSON-RPC error). */
async function outcome(c: ConnectedClient, text: string): Promise<string> {
  try {
    const result = await c.client.callTool({ name: 'echo', arguments: { text } });
    return result.isError ? 'error' : textOf(result);
  } catch {
    return 'error';
  }
}

// An SDK upstream on a port of our choosing, so it can be stopped and started again on the same port.
interface PinnedUpstream {
  url: string;
  port: number;
  /** every tools/call that reached this server instance */
  calls: Array<{ tool: string; args: unknown }>;
  sessionIds(): string[];
  close(): Promise<void>;
}

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/**
 * A stateful SDK server (tool `echo` → `<prefix><text>`) on 127.0.0.1:<port> (0: any). A new instance on the same
 * port knows none of the previous instance's sessions: requests carrying an old Mcp-Session-Id get 404, as after a
 * real restart.
 */
async function startPinnedUpstream(opts: { port?: number; prefix?: string } = {}): Promise<PinnedUpstream> {
  const prefix = opts.prefix ?? 'echo: ';
  const calls: PinnedUpstream['calls'] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const servers = new Set<McpServer>();

  function build(): McpServer {
    const server = new McpServer({ name: 'pinned-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.registerTool(
      'echo',
      { description: 'Echo with a prefix', inputSchema: { text: z.string() } },
      async ({ text }) => {
        calls.push({ tool: 'echo', args: { text } });
        return { content: [{ type: 'text', text: `${prefix}${text}` }] };
      },
    );
    return server;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const header = req.headers['mcp-session-id'];
    const sid = Array.isArray(header) ? header[0] : header;
    if (sid) {
      const transport = sessions.get(sid);
      if (!transport) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
        return;
      }
      await transport.handleRequest(req, res);
      return;
    }
    if (req.method !== 'POST') {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Mcp-Session-Id required' } }));
      return;
    }
    const server = build();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    servers.add(server);
    await server.connect(transport);
    await transport.handleRequest(req, res);
    if (transport.sessionId === undefined) {
      servers.delete(server);
      await server.close().catch(() => {});
    }
  }

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
      else res.destroy();
    });
  });

  // the port may still be held for a moment by the previous instance's closing sockets: retry a few times
  for (let attempt = 0; ; attempt++) {
    try {
      await new Promise<void>((resolve, reject) => {
        http.once('error', reject);
        http.listen(opts.port ?? 0, '127.0.0.1', () => {
          http.off('error', reject);
          resolve();
        });
      });
      break;
    } catch (error) {
      if (attempt >= 50 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const port = (http.address() as AddressInfo).port;
  let closed = false;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    calls,
    sessionIds: () => [...sessions.keys()],
    async close() {
      if (closed) return;
      closed = true;
      sessions.clear();
      await Promise.all([...servers].map((s) => s.close().catch(() => {})));
      servers.clear();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}

describe('serve: upstream restarts', () => {
  it('keeps a connected agent working: the next relayed call reaches the new upstream, rules still applied', async () => {
    const a = await instance({ supervisorIntervalMs: 200 });
    const first = keep(await startPinnedUpstream({ prefix: 'first: ' }));
    const s = await a.api.create({ upstream: { url: first.url }, tools: INJECT });
    const c = await agent(s);
    await c.client.listTools();
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('first: a!');
    await expect.poll(() => state(a.api, s.session_id), { timeout: 5000 }).toBe('connected');

    await first.close();
    const second = keep(await startPinnedUpstream({ port: first.port, prefix: 'second: ' }));
    expect(second.port).toBe(first.port);

    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'b' } }))).toBe('second: b!');
    expect(second.calls).toEqual([{ tool: 'echo', args: { text: 'b' } }]);
    await expect.poll(() => state(a.api, s.session_id), { timeout: 10_000 }).toBe('connected');
    expect(second.sessionIds().length).toBeGreaterThan(0);

    // the agent kept its MCP session with A all along
    expect((await a.api.detail(s.session_id)).agents).toBe(1);
    expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    expect((await a.api.calls(s.session_id)).map((x) => [x.arguments, x.behavior, x.is_error])).toEqual([
      [{ text: 'a' }, 'inject', false],
      [{ text: 'b' }, 'inject', false],
    ]);
  });

  it('shows the upstream down while it is gone and connected again once it is back', async () => {
    const a = await instance({ supervisorIntervalMs: 200, connectTimeoutS: 2 });
    const first = keep(await startPinnedUpstream({ prefix: 'first: ' }));
    const s = await a.api.create({ upstream: { url: first.url } });
    const c = await agent(s);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('first: a');
    await expect.poll(() => state(a.api, s.session_id), { timeout: 5000 }).toBe('connected');
    const before = await a.api.detail(s.session_id);
    expect(before.upstream?.connected_at).toEqual(expect.any(String));

    await first.close();
    await expect.poll(() => state(a.api, s.session_id), { timeout: 5000 }).not.toBe('connected');
    const down = await a.api.detail(s.session_id);
    expect(['connecting', 'disconnected']).toContain(down.upstream?.state);
    await expect
      .poll(async () => (await a.api.detail(s.session_id)).upstream?.last_error, { timeout: 5000 })
      .toEqual(expect.any(String));
    expect(await outcome(c, 'while down')).toBe('error'); // answered, not hung

    const second = keep(await startPinnedUpstream({ port: first.port, prefix: 'second: ' }));
    await expect.poll(() => state(a.api, s.session_id), { timeout: 20_000 }).toBe('connected');
    const back = await a.api.detail(s.session_id);
    expect(back.upstream?.attempts).toBeGreaterThanOrEqual(1);
    expect(Date.parse(back.upstream?.connected_at ?? '')).toBeGreaterThan(
      Date.parse(before.upstream?.connected_at ?? ''),
    );
    expect(await outcome(c, 'c')).toBe('second: c');
    expect(second.calls.map((x) => x.args)).toEqual([{ text: 'c' }]);
  });

  it('keeps retrying an upstream that is not there yet at session creation', async () => {
    const a = await instance({ supervisorIntervalMs: 200, connectTimeoutS: 2 });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const s = await a.api.create({ upstream: { url } });
    expect(s.upstream).toMatchObject({ url });
    expect(s.upstream?.state).not.toBe('connected');
    await expect
      .poll(async () => (await a.api.detail(s.session_id)).upstream?.attempts ?? 0, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(2);
    const down = await a.api.detail(s.session_id);
    expect(down.upstream?.state).not.toBe('connected');
    expect(down.upstream?.last_error).toEqual(expect.any(String));
    expect(down.upstream?.connected_at ?? null).toBeNull();

    const up = keep(await startPinnedUpstream({ port, prefix: 'late: ' }));
    await expect.poll(() => state(a.api, s.session_id), { timeout: 20_000 }).toBe('connected');
    const c = await agent(s);
    expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    expect(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'x' } }))).toBe('late: x');
    expect(up.calls).toHaveLength(1);
  });
});

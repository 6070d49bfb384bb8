/**
 * A custom upstream MCP server for tests that need a tool surface the fixture server does not have (hostile tool
 * names, a tool that never answers) or need to see the HTTP headers the proxy forwards.
 *
 *   const up = await startCustomUpstream(() => buildMyLowLevelServer());
 *   up.url      // http://127.0.0.1:<port>/mcp (stateful Streamable HTTP, SSE answers)
 *   up.requests // method, path + query, headers of every HTTP request that reached the server, in arrival order
 *   up.kill()   // destroys every socket at once (what the peer sees when the process dies), stops listening
 *   await up.close()
 *
 * It is a plain node:http server that records the request head and delegates to the SDK's
 * StreamableHTTPServerTransport (one transport + one Server per session, as the SDK examples do).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport, type EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface SeenRequest {
  method: string;
  /** path and query */
  url: string;
  headers: IncomingHttpHeaders;
}

export interface CustomUpstream {
  url: string;
  port: number;
  requests: SeenRequest[];
  /** Abrupt death: every open connection is destroyed and the port stops listening. */
  kill(): void;
  close(): Promise<void>;
}

/**
 * `eventStore`: resumable streams (event ids; a client that drops a stream resumes it with Last-Event-ID).
 * `rewrite`: changes each message the server sends, on the wire (a server that breaks the protocol on purpose where
 * the SDK would not let its handlers: it validates some results before they leave).
 */
export async function startCustomUpstream(
  build: () => Server,
  options: { eventStore?: EventStore; rewrite?: (message: JSONRPCMessage) => JSONRPCMessage } = {},
): Promise<CustomUpstream> {
  const requests: SeenRequest[] = [];
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>();
  const live = new Set<{ transport: StreamableHTTPServerTransport; server: Server }>();

  const httpServer: HttpServer = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: { ...req.headers } });
    void (async () => {
      const header = req.headers['mcp-session-id'];
      const sid = Array.isArray(header) ? header[0] : header;
      if (sid) {
        const pair = sessions.get(sid);
        if (!pair) {
          res
            .writeHead(404, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
          return;
        }
        await pair.transport.handleRequest(req, res);
        return;
      }
      const server = build();
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: options.eventStore,
        onsessioninitialized: (id) => void sessions.set(id, pair),
        onsessionclosed: (id) => void sessions.delete(id),
      });
      const pair = { transport, server };
      const rewrite = options.rewrite;
      if (rewrite) {
        const send = transport.send.bind(transport);
        transport.send = (message, sendOptions) => send(rewrite(message), sendOptions);
      }
      live.add(pair);
      await server.connect(transport);
      await transport.handleRequest(req, res);
      if (transport.sessionId === undefined) {
        live.delete(pair);
        await server.close().catch(() => {});
      }
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(0, '127.0.0.1', () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const port = (httpServer.address() as AddressInfo).port;
  let closed = false;

  async function closeServers(): Promise<void> {
    const pairs = [...live];
    live.clear();
    sessions.clear();
    await Promise.all(pairs.map((p) => p.server.close().catch(() => {})));
  }

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    requests,
    kill() {
      if (closed) return;
      closed = true;
      httpServer.close();
      httpServer.closeAllConnections();
      void closeServers();
    },
    async close() {
      if (closed) return;
      closed = true;
      await closeServers();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}

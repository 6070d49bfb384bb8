import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, errorResponse } from '../../shared/jsonrpc.js';
import type { ExchangeEvent } from '../../shared/traffic.js';
import { listen } from './http/edge.js';
import { serveMcp } from './http/mcp-http.js';
import { sendJson } from './http/sse.js';
import { header, safeDecode } from './http/url.js';
import { handleRest } from './rest/router.js';
import { bearerToken, SessionManager } from './rest/session-manager.js';

export interface ServeOptions {
  host?: string;
  port?: number;
  /** guards /api/* (except /api/healthz) with `Authorization: Bearer <apiToken>` */
  apiToken?: string;
  upstreamTimeoutS?: number;
  connectTimeoutS?: number;
  maxRecordedCalls?: number;
  /** instructions for sessions that give none */
  instructions?: string;
  supervisorIntervalMs?: number;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  serverInfo?: { name: string; version: string };
  onLog?: (line: string, level: 'info' | 'warn') => void;
  /** every finished exchange of every session (verbose logging, timeline) */
  onExchange?: (sessionId: string, event: ExchangeEvent) => void;
}

export interface RunningServe {
  port: number;
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

/**
 * `mcp-rewind serve`: MiMCP-compatible sessions. REST under /api configures sessions before the agent connects;
 * the agent reaches its session's MCP endpoint at /mcp with its token (Authorization: Bearer, X-MiMCP-Session),
 * or at /s/<token>/mcp.
 */
export async function startServe(options: ServeOptions = {}): Promise<RunningServe> {
  const log = options.onLog ?? (() => {});
  let base = '';
  const manager = new SessionManager(
    {
      upstreamTimeoutMs: (options.upstreamTimeoutS ?? 60) * 1000,
      connectTimeoutMs: (options.connectTimeoutS ?? 15) * 1000,
      maxRecordedCalls: options.maxRecordedCalls ?? 1000,
      defaultInstructions: options.instructions,
      supervisorIntervalMs: options.supervisorIntervalMs ?? 10_000,
      serverInfo: options.serverInfo ?? { name: 'mcp-rewind', version: '0' },
      log,
      onExchange: options.onExchange,
    },
    options.apiToken,
    () => base,
  );

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/api' || path.startsWith('/api/')) return handleRest(manager, req, res, path);
    const inPath = /^\/s\/([^/]+)(?:\/|$)/.exec(path);
    const token = inPath ? safeDecode(inPath[1]) : (bearerToken(req) ?? header(req, 'x-mimcp-session'));
    const session = token ? manager.get(token) : undefined;
    if (!session) {
      res.setHeader('www-authenticate', 'Bearer realm="mcp-rewind"');
      return sendJson(res, 401, errorResponse(null, ErrorCode.InvalidRequest, token ? 'mcp-rewind: unknown session token' : 'mcp-rewind: missing session token (Authorization: Bearer <session_id>, X-MiMCP-Session, or /s/<session_id>/mcp)'));
    }
    // the session token is ours: it never reaches the upstream (its own credentials come from upstream.headers)
    if (!inPath && bearerToken(req) === token) delete req.headers.authorization;
    delete req.headers['x-mimcp-session'];
    return serveMcp(session.endpoint, req, res);
  }

  const http = await listen(
    { host: options.host ?? '127.0.0.1', port: options.port, allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins },
    handle,
    (line) => log(line, 'warn'),
  );
  base = http.url('');
  return {
    port: http.port,
    url: base,
    async close() {
      await manager.closeAll();
      await http.close();
    },
  };
}

/**
 * An upstream MCP server that does not speak Streamable HTTP — a stdio command, or a legacy HTTP+SSE (2024-11-05)
 * server — presented as a Streamable HTTP server, so the proxy pipeline relays to it unchanged.
 *
 *   pipeline ──in process──▶ bridge sessions (bridge/sessions.ts) ──▶ one connection per MCP session:
 *   probe, own clients ─HTTP─▶ (127.0.0.1, the same)                   ChildStdioTransport (a child process, spawned
 *                                                                       at initialize) or SSEClientTransport
 *
 * The pipeline reaches the bridge in process (`dispatch`, given to its HttpUpstream): no loopback socket, no HTTP
 * framing or parsing between them (issue 21 item 3b). The proxy's own clients (the probe, tool discovery) use the
 * same sessions through a loopback HTTP endpoint (`url`). Raw JSON-RPC messages are piped at the SDK `Transport`
 * level: ids, progress tokens and params are untouched (the high-level Client/Server classes would renumber ids and
 * answer initialize themselves); what the server sends goes back on the answer of the request it belongs to, or on
 * the session's GET stream, held until the client opens it (bridge/session.ts).
 *
 * A child that exits (or a legacy SSE stream that breaks) ends its session: requests still in flight get an error,
 * and later requests on it get 404 — the pipeline then opens a new session (own-session modes do so by themselves),
 * whose initialize spawns a new child.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode, errorResponse } from '../../../shared/jsonrpc.js';
import { HttpError } from '../errors.js';
import { readBody } from '../http/body.js';
import { createGuard, type GuardOptions } from '../http/guard.js';
import { sendJson } from '../http/sse.js';
import type { Log } from '../log.js';
import { DEFAULT_SESSION_IDLE_MS } from '../pipeline/core/session.js';
import type { BridgeAnswer } from './bridge/answer.js';
import type { BridgeSpec } from './bridge/connect.js';
import { BridgeSessions, type BridgeRequest } from './bridge/sessions.js';

export type { BridgeSpec } from './bridge/connect.js';
export type { BridgeRequest } from './bridge/sessions.js';

export interface UpstreamBridge {
  /** the bridge's loopback Streamable HTTP endpoint, http://127.0.0.1:<port>/mcp — for the proxy's own clients */
  readonly url: string;
  /** answers one request in process, as the endpoint at `url` would: what the pipeline's upstream sends through */
  dispatch(request: BridgeRequest): Promise<IncomingMessage>;
  /** process ids of the stdio children currently running (one per session) */
  pids(): number[];
  /** the last lines (up to 20) its stdio children wrote on stderr */
  printed(): readonly string[];
  /** ends every session (stdio: close stdin, SIGTERM after 2 s, SIGKILL after 2 s more) and stops listening */
  close(): Promise<void>;
}

/**
 * Starts the bridge. `log` gets the child's stderr line by line and the sessions' fate ('warn': worth showing
 * without --verbose; 'info': a child started).
 */
export async function startUpstreamBridge(
  spec: BridgeSpec,
  log: Log,
  options: { idleMs?: number; allowedOrigins?: GuardOptions['allowedOrigins'] } = {},
): Promise<UpstreamBridge> {
  const sessions = new BridgeSessions(spec, log);
  const httpServer = await listen(sessions, log, options.allowedOrigins);
  const port = (httpServer.address() as AddressInfo).port;
  // sessions nobody uses end (a stdio child each): the proxy ends its own idle sessions, this catches the rest
  const idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_MS;
  const reaper =
    idleMs > 0
      ? setInterval(() => sessions.endIdle(idleMs), Math.max(50, Math.min(idleMs / 4, 60_000))).unref()
      : undefined;
  let closed = false;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    dispatch: async (request) => (await sessions.request(request)).asIncoming,
    pids: () => sessions.pids(),
    printed: () => sessions.printed,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(reaper);
      await sessions.close();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}

/**
 * The loopback endpoint, like every endpoint of ours: a page in a browser must not reach it (DNS rebinding, other
 * local pages); a browser client the proxy in front admits is relayed with its Origin, so it is admitted here too.
 */
async function listen(
  sessions: BridgeSessions,
  log: Log,
  allowedOrigins: GuardOptions['allowedOrigins'],
): Promise<http.Server> {
  const guard = createGuard({ host: '127.0.0.1', allowedOrigins });
  const httpServer = http.createServer((req, res) => {
    const { refused } = guard(req);
    if (refused !== null) {
      req.resume();
      return sendJson(res, 403, errorResponse(null, ErrorCode.InvalidRequest, `Forbidden: ${refused}`));
    }
    serveHttp(sessions, req, res).catch((error: Error) => {
      log(`bridge: internal error on ${req.method}: ${error.stack ?? error.message}`, 'warn');
      if (!res.headersSent)
        sendJson(res, 500, errorResponse(null, ErrorCode.InternalError, 'mcp-rewind bridge: internal error'));
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
  return httpServer;
}

/** One HTTP request: its body read, answered by the sessions, the answer written back as it streams. */
async function serveHttp(sessions: BridgeSessions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body: Buffer | undefined;
  if (req.method === 'POST') {
    try {
      body = await readBody(req);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      return sendJson(res, error.status, error.toResponse(null));
    }
  } else req.resume();
  const answer: BridgeAnswer = await sessions.request({ method: req.method ?? 'GET', headers: req.headers, body });
  res.writeHead(answer.statusCode, answer.headers as http.OutgoingHttpHeaders);
  if (answer.headers['content-type'] === 'text/event-stream') res.flushHeaders();
  answer.pipe(res);
  res.once('close', () => answer.complete || answer.destroy());
}

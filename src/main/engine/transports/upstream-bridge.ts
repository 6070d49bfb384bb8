/**
 * An upstream MCP server that does not speak Streamable HTTP — a stdio command, or a legacy HTTP+SSE (2024-11-05)
 * server — presented as a Streamable HTTP server on 127.0.0.1, so the proxy pipeline relays to it unchanged.
 *
 *   pipeline ──HTTP──▶ bridge (StreamableHTTPServerTransport, one per MCP session)
 *                        └─▶ one client transport per session: ChildStdioTransport (a child process, spawned
 *                            at initialize) or SSEClientTransport (one legacy SSE connection)
 *
 * Raw JSON-RPC messages are piped at the SDK `Transport` level: ids, progress tokens and params are untouched
 * (the high-level Client/Server classes would renumber ids and answer initialize themselves).
 *
 * Routing back (PROTOCOL-NOTES "SDK traps"): StreamableHTTPServerTransport.send() routes a response by its id,
 * but a notification or a server→client request goes to the POST stream of `relatedRequestId` — without one, to
 * the GET stream, where it is silently dropped if the client holds none open. So every such message is tied to
 * a downstream request still in flight: the owner of its progress token, else the most recent in-flight request;
 * with none in flight it goes to the GET stream, which the bridge serves itself (bridge-stream.ts) so that nothing
 * is lost while the client has not opened it yet.
 *
 * A child that exits (or a legacy SSE stream that breaks) ends its session: requests still in flight get an error,
 * the session's transport is closed, and later requests on it get 404 — the pipeline then opens a new session
 * (own-session modes do so by themselves), whose initialize spawns a new child.
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  ErrorCode,
  errorResponse,
  isNotification,
  isRequest,
  isResponse,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcRequest,
} from '../../../shared/jsonrpc.js';
import { redactUrl } from '../redact.js';
import { HttpError, type NotStartedData } from '../errors.js';
import { parseJsonBody, readBody } from '../http/body.js';
import { createGuard, type GuardOptions } from '../http/guard.js';
import { sendJson } from '../http/sse.js';
import { header } from '../http/url.js';
import type { Log } from '../log.js';
import { DEFAULT_SESSION_IDLE_MS } from '../pipeline/session.js';
import { relatedRequest, type BridgeSession } from './bridge-routing.js';
import { ChildStdioTransport } from './stdio-child.js';
import { SessionStream } from './bridge-stream.js';

export type BridgeSpec =
  | { kind: 'stdio'; command: string; args: string[]; env?: Record<string, string>; cwd?: string }
  | { kind: 'sse'; url: string; headers?: Record<string, string> };

export interface UpstreamBridge {
  /** the bridge's Streamable HTTP endpoint, http://127.0.0.1:<port>/mcp — give it to the pipeline as the upstream */
  readonly url: string;
  /** process ids of the stdio children currently running (one per session) */
  pids(): number[];
  /** the last lines (up to 20) its stdio children wrote on stderr */
  printed(): readonly string[];
  /** ends every session (stdio: close stdin, SIGTERM after 2 s, SIGKILL after 2 s more) and stops listening */
  close(): Promise<void>;
}

/** How long starting a child or connecting to a legacy SSE server may take. */
const START_TIMEOUT_MS = 10_000;
/** How many of the children's last stderr lines `printed()` keeps. */
const PRINTED_LINES = 20;

const SESSION_NOT_FOUND = { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null };

/** The upstream in log lines and errors: the command's program, or the URL without credentials. */
function describe(spec: BridgeSpec): string {
  return spec.kind === 'stdio' ? `process "${spec.command}"` : redactUrl(spec.url);
}

/**
 * Credentials in a legacy SSE URL (user:password@) cannot go through fetch/EventSource: they become a Basic
 * Authorization header on every request instead.
 */
function sseTarget(spec: Extract<BridgeSpec, { kind: 'sse' }>): { url: URL; headers: Record<string, string> } {
  const url = new URL(spec.url);
  const headers: Record<string, string> = { ...spec.headers };
  if (url.username || url.password) {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'authorization'))
      headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return { url, headers };
}

function fullEnvironment(extra: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  return { ...env, ...extra };
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
  /** initialized sessions by their Mcp-Session-Id */
  const sessions = new Map<string, BridgeSession>();
  /** every session not yet closed, initialized or still starting */
  const live = new Set<BridgeSession>();
  let closed = false;
  const printed: string[] = [];

  /** One MCP session: a fresh server transport and its own connection to the real server. */
  async function openSession(
    req: IncomingMessage,
    res: ServerResponse,
    init: JsonRpcRequest,
    parsed: unknown,
  ): Promise<void> {
    let label = describe(spec); // stdio: names the pid once started
    let client: Transport;
    if (spec.kind === 'stdio') {
      const stdio = new ChildStdioTransport({
        command: spec.command,
        args: spec.args,
        env: fullEnvironment(spec.env),
        cwd: spec.cwd,
      });
      // the PassThrough exists before start(): nothing the child prints early is lost
      const lines = createInterface({ input: stdio.stderr });
      lines.on('line', (line) => {
        if (printed.push(line) > PRINTED_LINES) printed.shift();
        log(`upstream ${label}: ${line}`, 'warn');
      });
      client = stdio;
    } else {
      const { url, headers } = sseTarget(spec);
      client = new SSEClientTransport(url, { requestInit: { headers } });
    }

    const server = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        session.id = id;
        sessions.set(id, session);
      },
    });
    const session: BridgeSession = {
      server,
      client,
      stream: new SessionStream(() => label, log),
      inFlight: [],
      tokens: new Map(),
      closing: false,
      lastActive: Date.now(),
      open: 0,
      async close(reason) {
        if (session.closing) return;
        session.closing = true;
        live.delete(session);
        if (session.id) sessions.delete(session.id);
        if (reason) {
          // answer what is still waiting, so the pipeline's POST streams end instead of hanging
          for (const id of session.inFlight.splice(0)) {
            await server
              .send(
                errorResponse(
                  id,
                  ErrorCode.UpstreamUnavailable,
                  `mcp-rewind: upstream ${label} ${reason} before answering`,
                ) as JSONRPCMessage,
              )
              .catch(() => {});
          }
        }
        session.stream.close();
        await server.close().catch(() => {});
        await client.close().catch(() => {});
      },
    };
    live.add(session);
    let started = false;

    const forget = (id: JsonRpcId): void => {
      const at = session.inFlight.indexOf(id);
      if (at >= 0) session.inFlight.splice(at, 1);
      for (const [token, owner] of session.tokens) if (owner === id) session.tokens.delete(token);
    };

    // pipeline → server
    server.onmessage = (raw) => {
      const message = raw as unknown as JsonRpcMessage;
      if (isRequest(message)) {
        session.inFlight.push(message.id);
        const token = (message.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
        if (token !== undefined) session.tokens.set(token, message.id);
      } else if (isNotification(message) && message.method === 'notifications/cancelled') {
        // the server will not answer a cancelled request: end its POST stream ourselves
        const id = message.params?.requestId as JsonRpcId | undefined;
        if (id !== undefined && session.inFlight.includes(id)) {
          forget(id);
          server.closeSSEStream(id);
        }
      }
      client.send(raw).catch((error: Error) => {
        if (!isRequest(message) || !session.inFlight.includes(message.id))
          return log(
            `upstream ${label}: could not deliver ${'method' in message ? message.method : 'a reply'}: ${error.message}`,
            'warn',
          );
        forget(message.id);
        void server
          .send(
            errorResponse(
              message.id,
              ErrorCode.UpstreamUnavailable,
              `mcp-rewind: upstream ${label} unavailable: ${error.message}`,
            ) as JSONRPCMessage,
          )
          .catch(() => {});
      });
    };

    // server → pipeline
    client.onmessage = (raw) => {
      const message = raw as unknown as JsonRpcMessage;
      if (isResponse(message)) {
        if (message.id !== null) forget(message.id);
        server
          .send(raw)
          .catch((error: Error) =>
            log(`upstream ${label}: answer to request ${String(message.id)} not delivered: ${error.message}`, 'warn'),
          );
        return;
      }
      const related = relatedRequest(message, session);
      if (related === undefined) return session.stream.send(raw);
      server
        .send(raw, { relatedRequestId: related })
        .catch((error: Error) => log(`upstream ${label}: ${message.method} not delivered: ${error.message}`, 'warn'));
    };

    // before start() resolved, a failure is reported by its rejection
    client.onclose = () => {
      if (session.closing || closed || !started) return;
      const exit = client instanceof ChildStdioTransport ? client.exit : undefined;
      log(
        `upstream ${label} ${exit ?? 'closed the connection'}; its session ends (the next initialize ${spec.kind === 'stdio' ? 'starts it again' : 'reconnects'})`,
        'warn',
      );
      void session.close(exit ?? 'closed the connection');
    };
    client.onerror = (error) => {
      if (session.closing || closed || !started) return;
      // EventSource reconnects by itself — to a new legacy session the server never saw initialized: end ours
      if (spec.kind === 'sse' && error.message.startsWith('SSE error')) {
        log(`upstream ${label}: SSE stream broken (${error.message}); its session ends`, 'warn');
        void session.close('broke the SSE stream');
        return;
      }
      log(`upstream ${label}: transport error: ${error.message}`, 'warn');
    };
    server.onclose = () => {
      if (!session.closing) void session.close();
    };

    let timer: NodeJS.Timeout | undefined;
    try {
      // a legacy server that accepts the GET but never sends its endpoint event must not hold the initialize forever
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(`no ${spec.kind === 'sse' ? 'endpoint event' : 'process'} within ${START_TIMEOUT_MS / 1000} s`),
            ),
          START_TIMEOUT_MS,
        );
      });
      await Promise.race([client.start(), timeout]);
      started = true;
    } catch (error) {
      void session.close();
      const why = (error as Error).message;
      const reason =
        spec.kind === 'stdio'
          ? `could not start the upstream command "${spec.command}": ${why}`
          : `could not connect to upstream ${label}: ${why}`;
      log(reason, 'warn');
      const data: NotStartedData | undefined = spec.kind === 'stdio' ? { notStarted: why } : undefined;
      return sendJson(res, 200, errorResponse(init.id, ErrorCode.UpstreamUnavailable, `mcp-rewind: ${reason}`, data));
    } finally {
      clearTimeout(timer);
    }
    if (client instanceof ChildStdioTransport && spec.kind === 'stdio') {
      label = `process ${client.pid} ("${spec.command}")`;
      log(`upstream ${label} started`, 'info');
    }
    if (closed) {
      await session.close();
      return sendJson(res, 503, errorResponse(init.id, ErrorCode.UpstreamUnavailable, 'mcp-rewind: shutting down'));
    }
    // its idle time starts when initialize is answered, not when the child was spawned (a slow start is not idleness)
    session.open++;
    res.once('close', () => {
      session.open--;
      session.lastActive = Date.now();
    });
    await server.handleRequest(req, res, parsed);
  }

  // the bridge listens on loopback like every endpoint of ours: a page in a browser must not reach it (DNS rebinding,
  // other local pages); a browser client the proxy in front admits is relayed with its Origin, so it is admitted here too
  const guard = createGuard({ host: '127.0.0.1', allowedOrigins: options.allowedOrigins });
  const httpServer = http.createServer((req, res) => {
    const { refused } = guard(req);
    if (refused !== null) {
      req.resume();
      return sendJson(res, 403, errorResponse(null, ErrorCode.InvalidRequest, `Forbidden: ${refused}`));
    }
    handle(req, res).catch((error: Error) => {
      log(`bridge: internal error on ${req.method}: ${error.stack ?? error.message}`, 'warn');
      if (!res.headersSent)
        sendJson(res, 500, errorResponse(null, ErrorCode.InternalError, 'mcp-rewind bridge: internal error'));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = header(req, 'mcp-session-id');
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session) {
        req.resume();
        return sendJson(res, 404, SESSION_NOT_FOUND);
      }
      session.lastActive = Date.now();
      session.open++;
      res.once('close', () => {
        session.open--;
        session.lastActive = Date.now();
      });
      if (req.method === 'GET') return session.stream.open(req, res, sessionId);
      return session.server.handleRequest(req, res);
    }
    if (req.method !== 'POST') {
      req.resume();
      return sendJson(
        res,
        req.method === 'GET' || req.method === 'DELETE' ? 400 : 405,
        errorResponse(null, ErrorCode.InvalidRequest, 'Bad Request: Mcp-Session-Id header is required'),
      );
    }
    // everything the server transport would refuse is refused before a child is spawned for it
    if (!(req.headers['content-type'] ?? '').includes('application/json')) {
      req.resume();
      return sendJson(
        res,
        415,
        errorResponse(null, ErrorCode.InvalidRequest, 'Unsupported Media Type: Content-Type must be application/json'),
      );
    }
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      req.resume();
      return sendJson(
        res,
        406,
        errorResponse(
          null,
          ErrorCode.InvalidRequest,
          'Not Acceptable: Client must accept both application/json and text/event-stream',
        ),
      );
    }
    let parsed: unknown;
    try {
      parsed = parseJsonBody(await readBody(req));
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      return sendJson(res, error.status, error.toResponse(null));
    }
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    const init = messages.find(
      (m): m is JsonRpcRequest =>
        typeof m === 'object' && m !== null && (m as JsonRpcRequest).method === 'initialize' && 'id' in m,
    );
    if (!init || messages.length !== 1)
      return sendJson(
        res,
        400,
        errorResponse(null, ErrorCode.InvalidRequest, 'Bad Request: Mcp-Session-Id header is required'),
      );
    return openSession(req, res, init, parsed);
  }

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(0, '127.0.0.1', () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const port = (httpServer.address() as AddressInfo).port;

  // sessions nobody uses end (a stdio child each): the proxy ends its own idle sessions, this catches the rest
  const idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_MS;
  const reaper =
    idleMs > 0
      ? setInterval(
          () => {
            const now = Date.now();
            for (const session of live) {
              if (
                !session.id ||
                session.closing ||
                session.open > 0 ||
                session.inFlight.length > 0 ||
                now - session.lastActive < idleMs
              )
                continue;
              log(`upstream ${describe(spec)}: session idle for ${Math.round(idleMs / 1000)} s, ended`, 'info');
              void session.close();
            }
          },
          Math.max(50, Math.min(idleMs / 4, 60_000)),
        ).unref()
      : undefined;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    pids: () =>
      [...live]
        .map((s) => s.client)
        .filter((c): c is ChildStdioTransport => c instanceof ChildStdioTransport && c.running)
        .map((c) => c.pid as number),
    printed: () => printed,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(reaper);
      await Promise.all([...live].map((s) => s.close()));
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}

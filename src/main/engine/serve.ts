import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, errorResponse } from '../../shared/jsonrpc.js';
import type { ExchangeEvent } from '../../shared/traffic.js';
import { upstreamLimitsMs } from '../../shared/upstream-limits.js';
import { listen } from './http/edge.js';
import { serveMcp } from './pipeline/mcp-http.js';
import { sendJson } from './http/sse.js';
import { header, safeDecode } from './http/url.js';
import { handleRest } from './rest/router.js';
import { AuthThrottle, type ThrottleOptions } from './http/auth-throttle.js';
import { bearerToken, DEFAULT_LIMITS, SessionManager } from './rest/session-manager.js';
import type { Log } from './log.js';
import { CredentialStore } from './upstream/oauth/credentials.js';

export interface ServeOptions {
  host?: string;
  port?: number;
  /**
   * guards /api/* (except /api/healthz) with `Authorization: Bearer <apiToken>`; without one, a random token is
   * made (RunningServe.apiToken) unless `noAuth` is set
   */
  apiToken?: string;
  /** an explicit opt-out: the REST API answers anyone who can reach the port */
  noAuth?: boolean;
  /** sessions held at once (429 beyond) */
  maxSessions?: number;
  /** bytes of one session's rules, tools and instructions as JSON (413 beyond) */
  maxRuleSetBytes?: number;
  /** back-off for wrong API and session tokens */
  authThrottle?: ThrottleOptions;
  /** per call: seconds without an answer or a progress notification (each progress restarts it) */
  upstreamTimeoutS?: number;
  /** per call: seconds in all, progress or not */
  upstreamMaxTimeS?: number;
  connectTimeoutS?: number;
  maxRecordedCalls?: number;
  /** instructions for sessions that give none */
  instructions?: string;
  supervisorIntervalMs?: number;
  allowedHosts?: string[];
  /** browser origins given leave (guard.ts); a function is read per request */
  allowedOrigins?: readonly string[] | (() => readonly string[]);
  serverInfo?: { name: string; version: string };
  /** where sessions' sign-ins to OAuth-protected upstreams are kept (`<dataDir>/oauth`); none: sessions do not sign in */
  dataDir?: string;
  onLog?: Log;
  /** every finished exchange of every session (verbose logging, timeline) */
  onExchange?: (sessionId: string, event: ExchangeEvent) => void;
}

export interface RunningServe {
  /** the API token in force (undefined with noAuth) */
  apiToken?: string;
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
  const apiToken = options.noAuth ? undefined : options.apiToken || randomBytes(32).toString('base64url');
  const throttle = new AuthThrottle(options.authThrottle);
  let base = '';
  const manager = sessionManagerOf(options, apiToken, () => base, log);
  const handle = (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/api' || path.startsWith('/api/')) return handleRest(manager, req, res, path, throttle);
    return serveAgent(manager, throttle, req, res, path);
  };
  const http = await listen(
    {
      host: options.host ?? '127.0.0.1',
      port: options.port,
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins,
      ownLoopbackOrigin: true, // as the proxy: its own origin, as the conformance suite's DNS-rebinding check sends it
    },
    handle,
    log,
  );
  base = http.url('');
  return {
    apiToken,
    port: http.port,
    url: base,
    async close() {
      await manager.closeAll();
      await http.close();
    },
  };
}

function sessionManagerOf(
  options: ServeOptions,
  apiToken: string | undefined,
  base: () => string,
  log: Log,
): SessionManager {
  return new SessionManager(
    {
      ...upstreamLimitsMs(options.upstreamTimeoutS, options.upstreamMaxTimeS),
      connectTimeoutMs: (options.connectTimeoutS ?? 15) * 1000,
      maxRecordedCalls: options.maxRecordedCalls ?? 1000,
      defaultInstructions: options.instructions,
      supervisorIntervalMs: options.supervisorIntervalMs ?? 10_000,
      serverInfo: options.serverInfo ?? { name: 'mcp-rewind', version: '0' },
      signIns: options.dataDir ? new CredentialStore(options.dataDir) : undefined,
      log,
      onExchange: options.onExchange,
    },
    apiToken,
    base,
    {
      maxSessions: options.maxSessions ?? DEFAULT_LIMITS.maxSessions,
      maxRuleSetBytes: options.maxRuleSetBytes ?? DEFAULT_LIMITS.maxRuleSetBytes,
    },
  );
}

/** An agent's MCP request: to its session's endpoint, by the session token it carries (header or /s/<token>/mcp). */
async function serveAgent(
  manager: SessionManager,
  throttle: AuthThrottle,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const inPath = /^\/s\/([^/]+)(?:\/|$)/.exec(path);
  const token = inPath ? safeDecode(inPath[1]) : (bearerToken(req) ?? header(req, 'x-mimcp-session'));
  const session = token ? manager.byAgentToken(token) : undefined;
  if (!session) return refuseSessionToken(throttle, req, res, token);
  // the session token is ours: it never reaches the upstream (its own credentials come from upstream.headers)
  if (!inPath && bearerToken(req) === token) delete req.headers.authorization;
  delete req.headers['x-mimcp-session'];
  return serveMcp(session.endpoint, req, res);
}

/** No session for the token: 401, or 429 after too many wrong ones from this host. */
async function refuseSessionToken(
  throttle: AuthThrottle,
  req: IncomingMessage,
  res: ServerResponse,
  token: string | undefined,
): Promise<void> {
  // checked first: a right token is never held back by someone else's wrong ones (auth-throttle.ts)
  const wait = token ? await throttle.failed(req) : undefined;
  if (wait !== undefined) {
    res.setHeader('retry-after', String(wait));
    const message = `mcp-rewind: too many wrong session tokens from this host; retry in ${wait} s`;
    return sendJson(res, 429, errorResponse(null, ErrorCode.InvalidRequest, message));
  }
  res.setHeader('www-authenticate', 'Bearer realm="mcp-rewind"');
  const message = token
    ? 'mcp-rewind: unknown session token'
    : "mcp-rewind: missing session token (Authorization: Bearer <token>, X-MiMCP-Session, or /s/<token>/mcp; the token is in the mcp object of the session's creation answer)";
  return sendJson(res, 401, errorResponse(null, ErrorCode.InvalidRequest, message));
}

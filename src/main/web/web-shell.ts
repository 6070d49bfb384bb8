import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { join, resolve } from 'node:path';
import type { ApiHandlers } from '../api/handlers.js';
import { listen } from '../engine/http/edge.js';
import { createGuard, type GuardOptions } from '../engine/http/guard.js';
import { SignInCodes } from './sign-in.js';
import { answerSignIn, SIGN_IN_PATHS, type SignInContext } from './sign-in-routes.js';
import { SECURITY_HEADERS, serveStatic } from './static-files.js';
import { ApiBridge, refuseUpgrade, TOKEN_PROTOCOL_PREFIX } from './ws-bridge.js';

/**
 * The browser shell: serves the built renderer and bridges the UI↔engine contract (src/shared/api.ts) over one
 * WebSocket at /api (ws-bridge.ts). Plain Node (no electron). The twin of the Electron IPC adapter in src/main/app.
 *
 * Access: the page and its assets are public (they hold no secret). The session token never travels in a URL: a tab
 * gets it for a one-time code (sign-in.ts: the hand-off file `mcp-rewind ui` opens, or the link it prints), keeps it in
 * its sessionStorage (scoped to this origin, port included) and presents it explicitly on the WebSocket handshake, as
 * a subprotocol `mcp-rewind.token.<token>` (non-browser clients may send `Authorization: Bearer <token>` instead). No
 * cookie: cookies are scoped by host, not port, so any other server on 127.0.0.1 would receive one. A browser's
 * requests must carry this shell's own Origin (the hand-off file's POST: `null`); Host is checked against loopback by
 * the shared edge guard (DNS rebinding).
 */

/** The handler table as the transports see it: createApiHandlers (src/main/api/handlers.ts) or a stand-in. */
export type ApiHandlerTable = ApiHandlers;

export interface WebShellOptions {
  host?: string;
  port?: number;
  /** the built renderer (out/renderer) */
  rendererDir: string;
  handlers: ApiHandlerTable;
  /** default: 24 random bytes, base64url */
  token?: string;
  /** how long a one-time sign-in code works (default CODE_TTL_MS, 60 s), and the clock it is measured by */
  codeTtlMs?: number;
  now?: () => number;
  onLog?: (line: string) => void;
}

export interface WebShell {
  /** http://host:port, no trailing slash */
  origin: string;
  port: number;
  token: string;
  /** a new one-time sign-in code (sign-in.ts) */
  issueCode(): string;
  /** a new one-time link for a human to paste: `<origin>/?code=<code>` (never the token) */
  signInUrl(): string;
  /** connected, authenticated WebSocket clients */
  clients(): number;
  close(): Promise<void>;
}

export { API_PROTOCOL, MAX_FRAME_BYTES, TOKEN_PROTOCOL_PREFIX } from './ws-bridge.js';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
/** constant time whatever the lengths: both sides are hashed first */
const sameToken = (given: string | undefined, token: string): boolean =>
  given !== undefined && timingSafeEqual(digest(given), digest(token));

/** The credential a request presents explicitly: a `mcp-rewind.token.*` subprotocol, or `Authorization: Bearer`. */
function presentedToken(req: IncomingMessage): string | undefined {
  for (const protocol of String(req.headers['sec-websocket-protocol'] ?? '').split(',')) {
    const p = protocol.trim();
    if (p.startsWith(TOKEN_PROTOCOL_PREFIX)) return p.slice(TOKEN_PROTOCOL_PREFIX.length);
  }
  const m = /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? '').trim());
  return m?.[1];
}

/** A browser's Origin must be this shell itself (same Host, http); no Origin: not a browser. */
function foreignOrigin(req: IncomingMessage): string | undefined {
  const origin = req.headers.origin;
  return origin !== undefined && origin.toLowerCase() !== `http://${req.headers.host ?? ''}`.toLowerCase()
    ? origin
    : undefined;
}

/** the request target as a URL (path + query), or undefined when it cannot be one (e.g. "//") */
function parseUrl(target: string | undefined): URL | undefined {
  try {
    return new URL(`http://shell${target?.startsWith('/') ? target : '/'}`);
  } catch {
    return undefined;
  }
}

/** Browser requests come from this shell's own page, or (its POST only) from the hand-off file: a file:// page. */
function guardOptions(host: string): GuardOptions {
  return {
    host,
    ownOrigin: true,
    admits: (origin, req) =>
      origin === 'null' && req.method === 'POST' && parseUrl(req.url)?.pathname === '/api/handoff',
  };
}

/** The shell's HTTP side: /api/auth (is my token still good?), the sign-in routes, and the built renderer. */
async function serveHttp(site: SignInContext, root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = parseUrl(req.url);
  if (!url) return void res.writeHead(400).end();
  if (url.pathname === '/api/auth') {
    // lets a page tell "my token was refused" (the shell restarted with another one) from "the shell is down"
    if (foreignOrigin(req)) return void res.writeHead(403, SECURITY_HEADERS).end();
    return void res
      .writeHead(site.authorized(req) ? 204 : 401, { ...SECURITY_HEADERS, 'cache-control': 'no-store' })
      .end();
  }
  if (SIGN_IN_PATHS.has(url.pathname)) return answerSignIn(site, req, res, url.pathname);
  return serveStatic(root, req, res, url.pathname);
}

/** Why a WebSocket handshake is refused (status, reason), if it is: /api only, the edge guard, this page's Origin, the token. */
function handshakeRefusal(
  req: IncomingMessage,
  guard: ReturnType<typeof createGuard>,
  authorized: (req: IncomingMessage) => boolean,
): [number, string] | undefined {
  const url = parseUrl(req.url);
  if (!url) return [400, 'bad request target'];
  if (url.pathname !== '/api') return [404, 'the API is at /api'];
  const { refused } = guard(req);
  if (refused !== null) return [403, `forbidden: ${refused}`];
  // a browser always sends Origin on a WebSocket handshake: it must be this page's own origin (same Host, http)
  const foreign = foreignOrigin(req);
  if (foreign !== undefined) return [403, `forbidden: Origin "${foreign}" is not this shell`];
  if (!authorized(req))
    return [
      401,
      'access token required (subprotocol mcp-rewind.token.<token> or Authorization: Bearer): open the URL printed by mcp-rewind ui',
    ];
  return undefined;
}

export async function startWebShell(options: WebShellOptions): Promise<WebShell> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(24).toString('base64url');
  const log = options.onLog ?? (() => {});
  const authorized = (req: IncomingMessage): boolean => sameToken(presentedToken(req), token);
  const codes = new SignInCodes(options.codeTtlMs, options.now);
  const site: SignInContext = { codes, token, origin: '', authorized }; // its origin once the port is known
  const root = resolve(options.rendererDir);
  const edge = await listen(
    { ...guardOptions(host), port: options.port ?? 0 },
    (req, res) => serveHttp(site, root, req, res),
    log,
  );
  site.origin = edge.url('');

  const bridge = new ApiBridge(options.handlers, log);
  const guard = createGuard(guardOptions(host));
  edge.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const refused = handshakeRefusal(req, guard, authorized);
    if (refused) refuseUpgrade(socket, ...refused);
    else bridge.accept(req, socket, head);
  });

  let closing: Promise<void> | undefined;
  return {
    origin: site.origin,
    port: edge.port,
    token,
    issueCode: () => codes.issue(),
    signInUrl: () => `${site.origin}/?code=${codes.issue()}`,
    clients: () => bridge.size,
    close: () =>
      (closing ??= (async () => {
        await bridge.close();
        await edge.close();
      })()),
  };
}

/** Where a file of the built renderer lives; exported for the CLI's "is it built?" check. */
export const rendererIndex = (rendererDir: string): string => join(rendererDir, 'index.html');

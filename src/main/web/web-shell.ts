import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { join, resolve } from 'node:path';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { EVENT_NAMES, type EventName, type ServerFrame } from '../../shared/api.js';
import type { ApiHandlers } from '../api/handlers.js';
import { listen } from '../engine/http/edge.js';
import { createGuard, type GuardOptions } from '../engine/http/guard.js';
import { SignInCodes } from './sign-in.js';
import { answerSignIn, SIGN_IN_PATHS } from './sign-in-routes.js';
import { SECURITY_HEADERS, serveStatic } from './static-files.js';
import { MAX_FILE_JSON_DEPTH, tooDeep } from '../../shared/json-depth.js';

/**
 * The browser shell: serves the built renderer and bridges the UI↔engine contract (src/shared/api.ts) over one
 * WebSocket at /api. Plain Node (no electron). The twin of the Electron IPC adapter in src/main/app.
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

export const MAX_FRAME_BYTES = 1024 * 1024;
/** the subprotocol the page asks for (and gets); the token rides beside it as `mcp-rewind.token.<token>` */
export const API_PROTOCOL = 'mcp-rewind.v1';
export const TOKEN_PROTOCOL_PREFIX = 'mcp-rewind.token.';
/** a client that falls this far behind on events is dropped (it reconnects and takes a snapshot) */
const MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
const EVENTS: EventName[] = EVENT_NAMES;

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
/** constant time whatever the lengths: both sides are hashed first */
const sameToken = (given: string | undefined, token: string): boolean => given !== undefined && timingSafeEqual(digest(given), digest(token));

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
  return origin !== undefined && origin.toLowerCase() !== `http://${req.headers.host ?? ''}`.toLowerCase() ? origin : undefined;
}

/** the handler table rejects with ApiError objects `{ message }`; anything else thrown is reported by its message too */
function messageOf(error: unknown): string {
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string')
    return (error as { message: string }).message;
  return String(error);
}

/** the request target as a URL (path + query), or undefined when it cannot be one (e.g. "//") */
function parseUrl(target: string | undefined): URL | undefined {
  try {
    return new URL(`http://shell${target?.startsWith('/') ? target : '/'}`);
  } catch {
    return undefined;
  }
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' };

/** Answers a refused WebSocket handshake with a plain HTTP error (the reason goes in the body, never the status line). */
function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  if (socket.writable)
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nconnection: close\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(reason)}\r\n\r\n${reason}`,
    );
  socket.destroy();
}

export async function startWebShell(options: WebShellOptions): Promise<WebShell> {
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(24).toString('base64url');
  const root = resolve(options.rendererDir);
  const log = options.onLog ?? (() => {});
  const codes = new SignInCodes(options.codeTtlMs, options.now);
  // browser requests come from this shell's own page, or (its POST only) from the hand-off file: a file:// page
  const guardOptions: GuardOptions = {
    host,
    ownOrigin: true,
    admits: (origin, req) => origin === 'null' && req.method === 'POST' && parseUrl(req.url)?.pathname === '/api/handoff',
  };
  const guard = createGuard(guardOptions);

  const authorized = (req: IncomingMessage): boolean => sameToken(presentedToken(req), token);

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = parseUrl(req.url);
    if (!url) return void res.writeHead(400).end();
    if (url.pathname === '/api/auth') {
      // lets a page tell "my token was refused" (the shell restarted with another one) from "the shell is down"
      if (foreignOrigin(req)) return void res.writeHead(403, SECURITY_HEADERS).end();
      return void res.writeHead(authorized(req) ? 204 : 401, { ...SECURITY_HEADERS, 'cache-control': 'no-store' }).end();
    }
    if (SIGN_IN_PATHS.has(url.pathname)) return answerSignIn({ codes, token, origin, authorized }, req, res, url.pathname);
    return serveStatic(root, req, res, url.pathname);
  };

  let origin = '';
  const edge = await listen({ ...guardOptions, port: options.port ?? 0 }, handle, log);
  origin = edge.url('');

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME_BYTES,
    // the page asks for [API_PROTOCOL, token protocol]: answer with the first (never echo the token back)
    handleProtocols: (protocols) => (protocols.has(API_PROTOCOL) ? API_PROTOCOL : false),
  });
  const clients = new Set<WebSocket>();

  edge.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const url = parseUrl(req.url);
    if (!url) return refuseUpgrade(socket, 400, 'bad request target');
    if (url.pathname !== '/api') return refuseUpgrade(socket, 404, 'the API is at /api');
    const { refused } = guard(req);
    if (refused !== null) return refuseUpgrade(socket, 403, `forbidden: ${refused}`);
    // a browser always sends Origin on a WebSocket handshake: it must be this page's own origin (same Host, http)
    const foreign = foreignOrigin(req);
    if (foreign !== undefined) return refuseUpgrade(socket, 403, `forbidden: Origin "${foreign}" is not this shell`);
    if (!authorized(req))
      return refuseUpgrade(
        socket,
        401,
        'access token required (subprotocol mcp-rewind.token.<token> or Authorization: Bearer): open the URL printed by mcp-rewind ui',
      );
    wss.handleUpgrade(req, socket, head, (ws) => connected(ws));
  });

  const send = (ws: WebSocket, frame: ServerFrame): void => {
    if (ws.readyState !== ws.OPEN) return;
    let text: string;
    try {
      text = JSON.stringify(frame);
    } catch (error) {
      if (!('id' in frame)) return log(`web shell: cannot serialize a ${frame.event} event: ${(error as Error).message}`);
      text = JSON.stringify({ id: frame.id, ok: false, error: { message: `the answer could not be serialized: ${(error as Error).message}` } });
    }
    ws.send(text);
  };

  const answer = async (ws: WebSocket, data: RawData, isBinary: boolean): Promise<void> => {
    const fail = (id: number, message: string): void => send(ws, { id, ok: false, error: { message } });
    if (isBinary) return fail(-1, 'malformed frame: expected a text frame with JSON { id, command, input }');
    let frame: unknown;
    const text = data.toString();
    try {
      frame = JSON.parse(text); // any depth parses safely; what walks it afterwards recurses (checked below)
    } catch {
      return fail(-1, 'malformed frame: not JSON');
    }
    if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) return fail(-1, 'malformed frame: expected an object { id, command, input }');
    const { id, command, input } = frame as Record<string, unknown>;
    if (typeof id !== 'number' || !Number.isSafeInteger(id)) return fail(-1, 'malformed frame: "id" must be an integer');
    if (typeof command !== 'string' || command === '') return fail(id, 'malformed frame: "command" must be a command name');
    if (tooDeep(text, MAX_FILE_JSON_DEPTH)) return fail(id, `malformed frame: JSON nested deeper than ${MAX_FILE_JSON_DEPTH} levels`);
    try {
      send(ws, { id, ok: true, output: await options.handlers.call(command, input ?? {}) });
    } catch (error) {
      fail(id, messageOf(error));
    }
  };

  function connected(ws: WebSocket): void {
    clients.add(ws);
    ws.on('message', (data, isBinary) => void answer(ws, data, isBinary).catch((error: Error) => log(`web shell: ${error.stack ?? error.message}`)));
    ws.on('error', (error) => log(`web shell: WebSocket error: ${error.message}`)); // e.g. a frame over maxPayload (closed with 1009)
    ws.on('close', () => clients.delete(ws));
  }

  const unsubscribe = EVENTS.map((event) =>
    options.handlers.on(event, (payload) => {
      if (clients.size === 0) return;
      const text = JSON.stringify({ event, payload } satisfies ServerFrame);
      for (const ws of clients) {
        if (ws.readyState !== ws.OPEN) continue;
        if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
          log('web shell: a client fell too far behind on events; dropping it (it will reconnect)');
          ws.terminate();
          continue;
        }
        ws.send(text);
      }
    }),
  );

  let closing: Promise<void> | undefined;
  return {
    origin,
    port: edge.port,
    token,
    issueCode: () => codes.issue(),
    signInUrl: () => `${origin}/?code=${codes.issue()}`,
    clients: () => clients.size,
    close: () =>
      (closing ??= (async () => {
        for (const off of unsubscribe) off();
        for (const ws of clients) ws.terminate();
        await new Promise<void>((done) => wss.close(() => done()));
        await edge.close();
      })()),
  };
}

/** Where a file of the built renderer lives; exported for the CLI's "is it built?" check. */
export const rendererIndex = (rendererDir: string): string => join(rendererDir, 'index.html');

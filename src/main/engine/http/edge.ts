import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ErrorCode, errorResponse } from '../../../shared/jsonrpc.js';
import { createGuard, type GuardOptions } from './guard.js';
import { sendJson } from './sse.js';
import type { Log } from '../log.js';

const CORS_ALLOW_HEADERS =
  'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id, x-mimcp-session';
const CORS_EXPOSE_HEADERS = 'mcp-session-id, mcp-protocol-version, www-authenticate';

/**
 * How long a connection may take, so that none is held forever (each holds a file descriptor): an idle kept-alive
 * connection is closed after `keepAliveMs`; a request must have sent its headers within `headersMs` and all of its
 * body within `requestMs` (answers may take as long as they take: an SSE stream stays open); checked every `checkMs`.
 */
export interface EdgeLimits {
  keepAliveMs: number;
  headersMs: number;
  requestMs: number;
  checkMs: number;
}

export const EDGE_LIMITS: EdgeLimits = { keepAliveMs: 60_000, headersMs: 10_000, requestMs: 60_000, checkMs: 1_000 };

export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** A listening edge server: its port, a URL on it, and a close that ends every connection. */
export interface EdgeServer {
  server: Server;
  port: number;
  url: (path: string) => string;
  close(): Promise<void>;
}

/**
 * An HTTP server with the edge rules every mcp-rewind endpoint shares: Host/Origin validation (DNS rebinding, other
 * pages: guard.ts), CORS for the browser origins given leave, preflight answers, and no crash on a handler error or a
 * malformed request.
 */
export async function listen(
  options: GuardOptions & { port?: number; limits?: Partial<EdgeLimits> },
  handler: Handler,
  log: Log,
): Promise<EdgeServer> {
  const guard = createGuard(options);
  const limits = { ...EDGE_LIMITS, ...options.limits };
  // an agent calls tools seconds apart: its connection stays open between calls (Node's default drops it after 5 s)
  const server = http.createServer(
    {
      keepAliveTimeout: limits.keepAliveMs,
      headersTimeout: limits.headersMs,
      requestTimeout: limits.requestMs,
      connectionsCheckingInterval: limits.checkMs,
    },
    (req, res) => {
      const verdict = guard(req);
      if (verdict.refused !== null)
        return sendJson(res, 403, errorResponse(null, ErrorCode.InvalidRequest, `Forbidden: ${verdict.refused}`));
      if (answeredCors(req, res, verdict.cors)) return;
      handler(req, res).catch((error: unknown) => {
        log(`internal error on ${req.method} ${req.url}: ${(error as Error).stack ?? String(error)}`, 'warn');
        if (!res.headersSent)
          sendJson(res, 500, errorResponse(null, ErrorCode.InternalError, 'mcp-rewind: internal error'));
        else res.destroy();
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('clientError', refuseMalformed);
  const port = (server.address() as AddressInfo).port;
  const host = urlHost(options.host);
  return {
    server,
    port,
    url: (path) => `http://${host}:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Sets the CORS headers for an allowed browser origin; answers a preflight (true: nothing more to do). */
function answeredCors(req: IncomingMessage, res: ServerResponse, cors: boolean): boolean {
  const origin = req.headers.origin;
  if (origin && cors) {
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'Origin');
    res.setHeader('access-control-expose-headers', CORS_EXPOSE_HEADERS);
  }
  if (req.method !== 'OPTIONS') return false;
  res
    .writeHead(204, {
      'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS',
      'access-control-allow-headers': CORS_ALLOW_HEADERS,
      'access-control-max-age': '86400',
    })
    .end();
  return true;
}

/**
 * A malformed or too slow request: answered when nothing was sent on the connection yet, then the socket is
 * destroyed — ending it would leave it half open for as long as the client keeps its side (a descriptor each).
 */
function refuseMalformed(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (socket.writable && (socket as Socket).bytesWritten === 0 && error.code !== 'ECONNRESET') {
    const status =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? '408 Request Timeout'
        : error.code === 'HPE_HEADER_OVERFLOW'
          ? '431 Request Header Fields Too Large'
          : '400 Bad Request';
    socket.write(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  }
  socket.destroy();
}

/** The host to name in the server's URLs: loopback for a wildcard address, IPv6 in brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

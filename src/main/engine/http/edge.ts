import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode, errorResponse } from '../../../shared/jsonrpc.js';
import { createGuard, type GuardOptions } from './guard.js';
import { sendJson } from './sse.js';
import type { Log } from '../log.js';

const CORS_ALLOW_HEADERS = 'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id, x-mimcp-session';
const CORS_EXPOSE_HEADERS = 'mcp-session-id, mcp-protocol-version, www-authenticate';

/** how long an idle client connection is kept open */
const KEEP_ALIVE_MS = 60_000;

export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * An HTTP server with the edge rules every mcp-rewind endpoint shares: Host/Origin validation (DNS rebinding),
 * CORS for allowed browser origins, preflight answers, and no crash on a handler error or a malformed request.
 */
export async function listen(options: GuardOptions & { port?: number }, handler: Handler, log: Log): Promise<{ server: Server; port: number; url: (path: string) => string; close(): Promise<void> }> {
  const guard = createGuard(options);
  // an agent calls tools seconds apart: its connection stays open between calls (Node's default drops it after 5 s)
  const server = http.createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, (req, res) => {
    const refused = guard(req);
    if (refused) return sendJson(res, 403, errorResponse(null, ErrorCode.InvalidRequest, `Forbidden: ${refused}`));
    const origin = req.headers.origin;
    if (origin) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('vary', 'Origin');
      res.setHeader('access-control-expose-headers', CORS_EXPOSE_HEADERS);
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { 'access-control-allow-methods': 'GET, POST, PUT, DELETE, OPTIONS', 'access-control-allow-headers': CORS_ALLOW_HEADERS, 'access-control-max-age': '86400' }).end();
      return;
    }
    handler(req, res).catch((error: unknown) => {
      log(`internal error on ${req.method} ${req.url}: ${(error as Error).stack ?? String(error)}`, 'warn');
      if (!res.headersSent) sendJson(res, 500, errorResponse(null, ErrorCode.InternalError, 'mcp-rewind: internal error'));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host === '0.0.0.0' || options.host === '::' ? '127.0.0.1' : options.host.includes(':') ? `[${options.host}]` : options.host;
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

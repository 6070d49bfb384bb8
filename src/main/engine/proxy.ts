import { EventEmitter } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode, errorResponse, invalidMessageReason, type JsonRpcMessage } from '../../shared/jsonrpc.js';
import { isLive, readsCassette, writesCassette, type Mode } from '../../shared/modes.js';
import type { ExchangeEvent } from '../../shared/traffic.js';
import { CassetteStore } from './cassette/store.js';
import { buildResultHasher } from './cassette/hash.js';
import { HttpError, parseJsonBody, readBody } from './http/body.js';
import { createGuard } from './http/guard.js';
import { sendJson } from './http/sse.js';
import { McpEndpoint } from './pipeline/mcp-endpoint.js';
import { Recorder } from './pipeline/recorder.js';
import { Replayer } from './pipeline/replayer.js';
import { copyEndToEndHeaders, HttpUpstream } from './upstream/http-upstream.js';
import { RuleSet } from './rules/rule-set.js';
import type { Overlay } from '../../shared/rules/schema.js';

export interface ProxyOptions {
  mode: Mode;
  /** upstream MCP server (Streamable HTTP); required unless mode is replay */
  upstreamUrl?: string;
  /** cassette folder; unused in proxy-only */
  cacheDir?: string;
  host?: string;
  port?: number;
  /** record: delete the folder's cassette files first */
  clean?: boolean;
  resultHashPath?: string;
  resultHashIgnore?: string[];
  allowedHosts?: string[];
  allowedOrigins?: string[];
  /** overlay rules (relay / override / inject per tool) and instructions, applied on top of any source */
  rules?: { overlay: Overlay; instructions?: string };
  /** serverInfo when the proxy must answer initialize itself */
  serverInfo?: { name: string; version: string };
  /** operational messages; 'warn' ones deserve to be shown even when not verbose. Exchanges arrive as events. */
  onLog?: (line: string, level: 'info' | 'warn') => void;
}

export interface RunningProxy {
  readonly mode: Mode;
  readonly port: number;
  /** the local MCP endpoint, http://127.0.0.1:<port>/mcp */
  readonly url: string;
  readonly store?: CassetteStore;
  /** 'exchange' events (ExchangeEvent) for every finished exchange */
  readonly events: EventEmitter<{ exchange: [ExchangeEvent] }>;
  /** waits until every recording started so far is on disk */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const CORS_ALLOW_HEADERS = 'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id';
const CORS_EXPOSE_HEADERS = 'mcp-session-id, mcp-protocol-version, www-authenticate';

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const { mode } = options;
  if (isLive(mode) && !options.upstreamUrl) throw new Error(`${mode} mode needs an upstream URL`);
  const host = options.host ?? '127.0.0.1';
  const log = (line: string): void => options.onLog?.(line, 'info');
  const warn = (line: string): void => options.onLog?.(line, 'warn');
  const store = mode === 'proxy-only' ? undefined : await CassetteStore.open(options.cacheDir ?? './cache', { clean: options.clean && mode === 'record', log: warn });
  const upstream = options.upstreamUrl ? new HttpUpstream(options.upstreamUrl) : undefined;
  const recorder = store && writesCassette(mode) ? new Recorder(store, buildResultHasher({ path: options.resultHashPath, ignore: options.resultHashIgnore })) : undefined;
  const events = new EventEmitter<{ exchange: [ExchangeEvent] }>();
  const rules = options.rules ? new RuleSet(options.rules.overlay, options.rules.instructions) : undefined;
  const endpoint = new McpEndpoint({
    mode,
    upstream,
    rules,
    ownSessions: mode === 'replay' || mode === 'hybrid' || rules !== undefined,
    serverInfo: options.serverInfo ?? { name: 'mcp-rewind', version: '0' },
    recorder,
    replayer: store && readsCassette(mode) ? new Replayer(store) : undefined,
    emit: (exchange) => {
      if (events.listenerCount('exchange') > 0) events.emit('exchange', exchange.toEvent());
    },
    observed: () => events.listenerCount('exchange') > 0,
    log,
    warn,
  });
  const guard = createGuard({ host, allowedHosts: options.allowedHosts, allowedOrigins: options.allowedOrigins });

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      warn(`internal error on ${req.method} ${req.url}: ${(error as Error).stack ?? String(error)}`);
      if (!res.headersSent) sendJson(res, 500, errorResponse(null, ErrorCode.InternalError, 'mcp-rewind: internal error'));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = guard(req);
    if (refused) return sendJson(res, 403, errorResponse(null, ErrorCode.InvalidRequest, `Forbidden: ${refused}`));
    const origin = req.headers.origin;
    if (origin) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('vary', 'Origin');
      res.setHeader('access-control-expose-headers', CORS_EXPOSE_HEADERS);
    }
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthcheck' && req.method === 'GET') return sendJson(res, 200, { status: 'ok', mode });
    if (path.startsWith('/.well-known/') && upstream && req.method === 'GET') return relayWellKnown(req, res, upstream);
    switch (req.method) {
      case 'POST':
        return post(req, res);
      case 'GET':
        return endpoint.get(req, res);
      case 'DELETE':
        return endpoint.delete(req, res);
      case 'OPTIONS':
        res.writeHead(204, { 'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS', 'access-control-allow-headers': CORS_ALLOW_HEADERS, 'access-control-max-age': '86400' }).end();
        return;
      default:
        res.writeHead(405, { allow: 'GET, POST, DELETE, OPTIONS' }).end();
    }
  }

  async function post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: Buffer;
    let parsed: unknown;
    try {
      if (!(req.headers['content-type'] ?? '').includes('application/json')) {
        req.resume();
        throw new HttpError(415, 'Unsupported Media Type: Content-Type must be application/json', ErrorCode.InvalidRequest);
      }
      body = await readBody(req);
      parsed = parseJsonBody(body);
      const messages = Array.isArray(parsed) ? parsed : [parsed];
      if (messages.length === 0) throw new HttpError(400, 'Invalid Request: empty batch', ErrorCode.InvalidRequest);
      for (const m of messages) {
        const reason = invalidMessageReason(m);
        if (reason) throw new HttpError(400, `Invalid Request: ${reason}`, ErrorCode.InvalidRequest);
      }
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      if (error.status === 413) req.resume();
      return sendJson(res, error.status, errorResponse(null, error.rpcCode ?? ErrorCode.InvalidRequest, error.message), error.status === 413 ? { connection: 'close' } : {});
    }
    await endpoint.post(req, res, body, parsed as JsonRpcMessage | JsonRpcMessage[]);
  }

  /** OAuth discovery documents (protected-resource / authorization-server metadata) come from the upstream's origin. */
  async function relayWellKnown(req: IncomingMessage, res: ServerResponse, target: HttpUpstream): Promise<void> {
    let upRes: IncomingMessage;
    try {
      upRes = await target.request('GET', copyEndToEndHeaders(req.headers), undefined, undefined, new URL(req.url ?? '/', target.url));
    } catch (error) {
      return sendJson(res, 502, { error: `upstream unavailable: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` });
    }
    res.writeHead(upRes.statusCode ?? 502, copyEndToEndHeaders(upRes.headers));
    upRes.pipe(res);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

  return {
    mode,
    port,
    url: `http://${urlHost}:${port}/mcp`,
    store,
    events,
    flush: async () => {
      await recorder?.flush();
    },
    async close() {
      await recorder?.flush();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      upstream?.close();
      store?.close();
    },
  };
}

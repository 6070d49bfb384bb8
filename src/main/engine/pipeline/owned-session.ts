import type { IncomingMessage, ServerResponse } from 'node:http';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, errorResponse, type JsonRpcRequest } from '../../../shared/jsonrpc.js';
import { readsCassette, writesCassette } from '../../../shared/modes.js';
import { sendMessages } from '../http/sse.js';
import { LiveExchange } from './exchange.js';
import type { McpEndpoint } from './mcp-endpoint.js';
import type { Session } from './session.js';

/**
 * Opens (or reopens) the upstream session behind a client session the proxy owns, with the client's own
 * initialize params so the server sees the client's real capabilities. Concurrent callers share one handshake.
 */
export function openUpstreamSession(endpoint: McpEndpoint, session: Session, protocolVersion?: string, reopen = false): Promise<Record<string, unknown>> {
  const { ctx } = endpoint;
  if (reopen) session.upstreamId = undefined;
  if (session.connecting) return session.connecting;
  const connecting = (async () => {
    const upstream = ctx.upstream;
    if (!upstream) throw Object.assign(new Error('no upstream server'), { code: 'no upstream server' });
    const params = session.initParams ?? { protocolVersion: protocolVersion ?? '2025-03-26', capabilities: {}, clientInfo: { name: 'mcp-rewind', version: '0' } };
    const { sessionId, result, protocolVersion: negotiated } = await upstream.initialize(params);
    session.upstreamId = sessionId ?? null;
    session.protocolVersion ??= negotiated;
    ctx.log(`upstream session ${sessionId ?? '(stateless)'} ${reopen ? 're' : ''}opened for client session ${session.id ?? '(none)'}`);
    return result;
  })().finally(() => {
    session.connecting = undefined;
  });
  session.connecting = connecting;
  return connecting;
}

/** The initialize result the proxy gives when nothing else can: no upstream and nothing recorded. */
function synthesizedInitialize(endpoint: McpEndpoint, requested: unknown): Record<string, unknown> {
  const version = typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
  return { protocolVersion: version, capabilities: { tools: { listChanged: true } }, serverInfo: endpoint.ctx.serverInfo };
}

/**
 * initialize on an endpoint that owns its sessions: the answer comes from the cassette, from a fresh upstream
 * session, or from the proxy itself — then the rules rewrite it (instructions, listChanged) and the client gets a
 * session id of the proxy's.
 */
export async function initializeOwned(endpoint: McpEndpoint, req: IncomingMessage, res: ServerResponse, init: JsonRpcRequest): Promise<void> {
  const { ctx, sessions } = endpoint;
  const session = sessions.create(undefined);
  session.initParams = init.params;
  const exchange = new LiveExchange(init, session.id);
  let result: Record<string, unknown> | undefined;

  const entry = readsCassette(ctx.mode) ? ctx.replayer?.hit(init, exchange.key, session) : undefined;
  if (entry) {
    result = entry.result;
    exchange.source = 'cache';
    exchange.cassette = 'hit';
  } else if (ctx.upstream) {
    try {
      result = await openUpstreamSession(endpoint, session);
      exchange.upstreamResponse = { jsonrpc: '2.0', id: init.id, result };
      if (writesCassette(ctx.mode) && ctx.recorder) exchange.cassette = await ctx.recorder.save(exchange, undefined);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      exchange.response = errorResponse(init.id, ErrorCode.UpstreamUnavailable, `mcp-rewind: upstream ${ctx.upstream.displayUrl} unavailable: ${reason}`);
    }
  } else if (ctx.rules) {
    result = synthesizedInitialize(endpoint, init.params?.protocolVersion);
    exchange.source = 'proxy';
  } else {
    exchange.cassette = 'miss';
    exchange.response = ctx.replayer?.miss(init, exchange.key);
  }

  if (result) {
    exchange.response = { jsonrpc: '2.0', id: init.id, result: ctx.rules ? ctx.rules.rewriteInitialize(result) : result };
    session.protocolVersion = String(result.protocolVersion ?? '');
  } else {
    sessions.delete(session.id as string);
    if (exchange.source === 'upstream') exchange.source = 'proxy';
  }
  ctx.emit(exchange);
  sendMessages(res, req.headers.accept, exchange.response!, result ? { 'mcp-session-id': session.id as string } : {});
}

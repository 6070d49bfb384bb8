import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ErrorCode, errorResponse, isRequest, isResponse,
  type JsonRpcId, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse,
} from '../../../shared/jsonrpc.js';
import { writesCassette } from '../../../shared/modes.js';
import { redactHeaders } from '../cassette/redact.js';
import type { DebugFiles } from '../cassette/store.js';
import { sendJson, sseEvent } from '../http/sse.js';
import { copyEndToEndHeaders } from '../upstream/http-upstream.js';
import type { EndpointContext } from './mcp-endpoint.js';
import { type LiveExchange } from './exchange.js';
import { ResponseTap } from './response-tap.js';
import { RewritingDelivery } from './delivery.js';
import type { Session, SessionRegistry } from './session.js';

export type Rewrite = (result: Record<string, unknown>) => Record<string, unknown>;

export interface PostRelay {
  req: IncomingMessage;
  res: ServerResponse;
  /** what goes upstream: the client's body, or the part of it the proxy does not answer itself */
  body: Buffer;
  parsed: JsonRpcMessage | JsonRpcMessage[];
  /** the requests forwarded upstream */
  exchanges: LiveExchange[];
  /** undefined for an initialize: the session is born from the upstream's answer */
  session: Session | undefined;
  init: JsonRpcRequest | undefined;
  /** answers the proxy made itself for other requests of the same POST (rules, cassette hits) */
  local?: JsonRpcResponse[];
  /** per request id: a rule's rewrite of the upstream result before the client sees it */
  rewrites?: Map<JsonRpcId, Rewrite>;
  /** the session's upstream id went stale (upstream restarted): reconnect, so the request can be sent again */
  reconnect?: (session: Session) => Promise<void>;
}

/** Response headers relayed to the client: all end-to-end headers, the session id mapped to the client's. */
function downstreamHeaders(upRes: IncomingMessage, session: Session | undefined): Record<string, string | string[]> {
  const headers = copyEndToEndHeaders(upRes.headers);
  if (upRes.headers['content-length']) headers['content-length'] = upRes.headers['content-length'];
  if (session?.id && headers['mcp-session-id']) headers['mcp-session-id'] = session.id;
  return headers;
}

/**
 * Forwards one POST upstream and relays the answer — byte for byte (JSON or SSE) unless a rule rewrites it —
 * while reading the messages out of it: streamed notifications and server→client requests join their exchange,
 * the final answer completes it, and completed exchanges are recorded when the mode writes the cassette.
 */
export async function relayPost(ctx: EndpointContext, sessions: SessionRegistry, relay: PostRelay): Promise<void> {
  const { req, res, body, exchanges, init } = relay;
  const local = relay.local ?? [];
  const rewrites = relay.rewrites ?? new Map<JsonRpcId, Rewrite>();
  let session = relay.session;
  const requestHeaders = copyEndToEndHeaders(req.headers);
  const upstream = ctx.upstream;
  let upRes: IncomingMessage;
  try {
    if (!upstream) throw Object.assign(new Error('no upstream server'), { code: 'no upstream server' });
    upRes = await upstream.request('POST', requestHeaders, body, init ? undefined : session?.upstreamId);
    if (upRes.statusCode === 404 && session && relay.reconnect && session.upstreamId && session.upstreamId !== session.id) {
      upRes.resume(); // the upstream forgot our session (restarted): open a new one and send again, once
      await relay.reconnect(session);
      upRes = await upstream.request('POST', requestHeaders, body, session.upstreamId);
    }
  } catch (error) {
    if (exchanges.length === 0) return sendJson(res, 502, errorResponse(null, ErrorCode.UpstreamUnavailable, `mcp-rewind: upstream unavailable: ${(error as Error).message}`));
    return answerUpstreamDown(ctx, res, exchanges, error, local);
  }

  if (init) {
    const sid = upRes.headers['mcp-session-id'];
    session = typeof sid === 'string' ? sessions.adopt(sid, sid) : sessions.get(undefined, null);
    session.initParams = init.params;
  }
  const live = session as Session;
  const headers = downstreamHeaders(upRes, live);
  const record = writesCassette(ctx.mode);
  // breakpoints (response stage): a matching exchange's answer is held, so the relay goes message by message
  const breaking = ctx.breakpoints?.active ? new Set(exchanges.filter((e) => ctx.breakpoints!.matches(e.request, 'response')).map((e) => e.request.id)) : undefined;
  const held: Array<Promise<void>> = [];
  const rewriting = local.length > 0 || rewrites.size > 0 || (breaking !== undefined && breaking.size > 0);
  if (!rewriting && (exchanges.length === 0 || (!record && !ctx.observed()))) {
    res.writeHead(upRes.statusCode ?? 502, headers);
    upRes.pipe(res); // nobody needs the messages: the cheapest faithful relay
    const broken = (): void => brokenStream(ctx, res, upRes.headers['content-type'], new Map(exchanges.map((e) => [e.request.id, e])), true);
    upRes.on('error', broken);
    upRes.on('aborted', broken);
    res.on('close', () => {
      if (!upRes.complete) upRes.destroy();
    });
    return;
  }

  const delivery = rewriting ? new RewritingDelivery(res, upRes, headers, Array.isArray(relay.parsed), local) : undefined;
  if (!delivery) res.writeHead(upRes.statusCode ?? 502, headers);
  const pending = new Map(exchanges.map((e) => [e.request.id, e]));
  const contentType = upRes.headers['content-type'];
  const tap = new ResponseTap(contentType, (message) => {
    if (isResponse(message) && message.id !== null && pending.has(message.id)) {
      const exchange = pending.get(message.id) as LiveExchange;
      pending.delete(message.id);
      exchange.upstreamResponse = message;
      const rewrite = rewrites.get(message.id);
      exchange.response = rewrite && 'result' in message ? { ...message, result: rewrite(message.result) } : message;
      if (exchange.request.method === 'initialize' && 'result' in message) live.protocolVersion = String(message.result.protocolVersion ?? '');
      if (breaking?.has(message.id)) {
        held.push(ctx.breakpoints!.holdResponse(exchange, res).then(() => {
          delivery?.write(exchange.response as JsonRpcResponse);
          void finish(exchange);
        }));
        return;
      }
      delivery?.write(exchange.response);
      void finish(exchange);
      return;
    }
    delivery?.write(message);
    const target = exchangeFor(message, exchanges, pending);
    if (!target) return;
    target.stream.push(message);
    if (isRequest(message)) live.awaitingReplies.set(message.id, target);
  }, record || delivery !== undefined);

  const finish = async (exchange: LiveExchange): Promise<void> => {
    live.lastKey = exchange.key;
    if (record && ctx.recorder) {
      try {
        exchange.cassette = await ctx.recorder.save(exchange, debugFiles(ctx, req, requestHeaders, relay.parsed, upRes, tap));
      } catch (error) {
        ctx.warn(`cassette: could not record ${exchange.key}: ${(error as Error).message}`);
      }
    }
    ctx.emit(exchange);
  };

  upRes.on('data', (chunk: Buffer) => tap.push(chunk));
  if (!delivery) upRes.pipe(res, { end: false });
  upRes.on('end', () => {
    tap.end();
    const done = (): void => {
      // an SSE answer that ended without answering and without event ids cannot be resumed: say so, do not hang
      if (pending.size > 0 && !tap.sawEventId && contentType?.includes('text/event-stream')) return brokenStream(ctx, res, contentType, pending, !delivery);
      if (delivery) delivery.end(tap.rawBody, headers);
      else res.end();
      for (const exchange of pending.values()) void finish(exchange); // answered nothing: still on the timeline
    };
    if (held.length > 0) void Promise.all(held).then(done); // answers held at a breakpoint go out first
    else done();
  });
  // piped bytes (no delivery) may have stopped inside an event: brokenStream must close it before its own events
  upRes.on('error', () => brokenStream(ctx, res, contentType, pending, !delivery));
  upRes.on('aborted', () => brokenStream(ctx, res, contentType, pending, !delivery));
  res.on('close', () => {
    if (!upRes.complete) upRes.destroy(); // the client went away: so does the upstream stream
  });
}

/** Relays a GET (server-initiated SSE stream) or DELETE for a session whose upstream is live. */
export async function relayStream(ctx: EndpointContext, req: IncomingMessage, res: ServerResponse, method: 'GET' | 'DELETE', session: Session): Promise<void> {
  let upRes: IncomingMessage;
  try {
    upRes = await ctx.upstream!.request(method, copyEndToEndHeaders(req.headers), undefined, session.upstreamId);
  } catch (error) {
    sendJson(res, 502, errorResponse(null, ErrorCode.UpstreamUnavailable, `mcp-rewind: upstream unavailable: ${(error as Error).message}`));
    return;
  }
  res.writeHead(upRes.statusCode ?? 502, downstreamHeaders(upRes, session));
  res.flushHeaders();
  upRes.pipe(res);
  upRes.on('error', () => res.destroy());
  const recorder = ctx.recorder;
  if (method === 'GET' && recorder && writesCassette(ctx.mode) && upRes.statusCode === 200) {
    // server notifications outside any request (resources/updated after a subscribe…) replay after the same exchange
    const tap = new ResponseTap(upRes.headers['content-type'], (message) => {
      if (!('method' in message) || 'id' in message) return;
      void recorder.saveFollowUp(session.lastKey ?? 'initialize', message).catch((error: Error) => ctx.warn(`cassette: could not record ${message.method}: ${error.message}`));
    }, false);
    upRes.on('data', (chunk: Buffer) => tap.push(chunk));
  }
  res.on('close', () => {
    if (!upRes.complete) upRes.destroy();
  });
}

/** Every request of a POST the upstream could not take gets a JSON-RPC error; the proxy serves on. */
export function answerUpstreamDown(ctx: EndpointContext, res: ServerResponse, exchanges: LiveExchange[], error: unknown, local: JsonRpcResponse[] = []): void {
  const e = error as NodeJS.ErrnoException;
  const reason = e.name === 'TimeoutError' || e.name === 'AbortError' ? 'no answer within the upstream timeout' : (e.code ?? e.message);
  ctx.warn(`upstream ${ctx.upstream?.displayUrl} unavailable (${reason}): ${exchanges.length} request(s) answered with an error`);
  const answers = exchanges.map((exchange) => {
    exchange.source = 'proxy';
    exchange.response = errorResponse(exchange.request.id, ErrorCode.UpstreamUnavailable, `mcp-rewind: upstream ${ctx.upstream?.displayUrl} unavailable: ${reason}`);
    ctx.emit(exchange);
    return exchange.response;
  });
  const all = [...local, ...answers];
  sendJson(res, 200, all.length === 1 ? all[0] : all);
}

/** The upstream stream broke before answering: SSE clients get an error event per unanswered request. */
function brokenStream(ctx: EndpointContext, res: ServerResponse, contentType: string | undefined, pending: Map<unknown, LiveExchange>, midEvent = false): void {
  if (res.writableEnded) return;
  if (contentType?.includes('text/event-stream')) {
    // untapped relay: we may be inside an event; a blank line closes it (clients ignore answers to ids already done)
    if (midEvent) res.write('\n\n');
    for (const exchange of pending.values()) {
      exchange.response = errorResponse(exchange.request.id, ErrorCode.UpstreamUnavailable, 'mcp-rewind: upstream closed the stream before answering');
      res.write(sseEvent(exchange.response));
      ctx.emit(exchange);
    }
    pending.clear();
    res.end();
  } else {
    res.destroy();
  }
}

/** Which in-flight exchange a streamed message belongs to: its progress token's, else the oldest pending one. */
function exchangeFor(message: JsonRpcMessage, exchanges: LiveExchange[], pending: Map<unknown, LiveExchange>): LiveExchange | undefined {
  const token = 'method' in message ? (message.params as { progressToken?: unknown } | undefined)?.progressToken : undefined;
  if (token !== undefined) {
    const owner = exchanges.find((e) => e.progressToken === token);
    if (owner) return owner;
  }
  return pending.values().next().value ?? exchanges[exchanges.length - 1];
}

function debugFiles(ctx: EndpointContext, req: IncomingMessage, headers: Record<string, string | string[]>, body: unknown, upRes: IncomingMessage, tap: ResponseTap): DebugFiles {
  return {
    request: { method: req.method ?? 'POST', url: ctx.upstream!.displayUrl, headers: redactHeaders(headers), body },
    responseBody: tap.rawBody,
    responseHead: { status: upRes.statusCode ?? 0, headers: redactHeaders(upRes.headers) },
  };
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRequest, isResponse, type JsonRpcMessage, type JsonRpcResponse } from '../../../shared/jsonrpc.js';
import { redactHeaders } from '../redact.js';
import { reasonOf, timeoutOf, upstreamError, UpstreamUnavailableError } from '../errors.js';
import { sendJson, sseEvent } from '../http/sse.js';
import { header } from '../http/url.js';
import { copyEndToEndHeaders, downstreamHeaders } from '../upstream/headers.js';
import type { ExchangeDetail, Stage } from './contract.js';
import { RewritingDelivery } from './delivery.js';
import { waits } from './chain.js';
import { exchangeFor, type LiveExchange } from './exchange.js';
import { CommitGate } from './commit-gate.js';
import { watchProgress } from './progress-watch.js';
import { DEBUG_BODY_MAX_BYTES, ResponseTap } from '../http/response-tap.js';
import type { Session, SessionRegistry } from './session.js';
import { awaitResume } from './stream-relay.js';

export interface PostRelay {
  req: IncomingMessage;
  res: ServerResponse;
  /** what goes upstream: the client's body, or the part of it the proxy does not answer itself */
  body: Buffer;
  parsed: JsonRpcMessage | JsonRpcMessage[];
  /** the requests forwarded upstream */
  exchanges: LiveExchange[];
  /** the client's session; for an initialize: the proxy's new session (owned), or undefined (born from the answer) */
  session: Session | undefined;
  init: LiveExchange | undefined;
  /** answers the proxy made itself for other requests of the same POST (rules, cassette hits) */
  local?: JsonRpcResponse[];
  /** the session's upstream id went stale (upstream restarted): reconnect, so the request can be sent again */
  reconnect?: (session: Session) => Promise<void>;
}

/**
 * The upstream session a POST goes to: the session's; none for an initialize the proxy's own session makes; and for
 * an initialize of a mirrored session, the client's own `Mcp-Session-Id` if it sent one (a stale one is the server's
 * to refuse, as proxy-only and the server itself do: issue 21 item 3).
 */
function upstreamSessionOf(
  req: IncomingMessage,
  init: LiveExchange | undefined,
  owned: boolean,
  session: Session | undefined,
): string | null | undefined {
  if (!init) return session?.upstreamId;
  return owned ? undefined : header(req, 'mcp-session-id');
}

/**
 * Forwards one POST upstream and relays the answer — byte for byte (JSON or SSE) unless a hook holds an answer
 * (rules rewrite it, a breakpoint pauses it) or the proxy answered part of the POST itself — while reading the
 * messages out of it when a hook observes: streamed notifications and server→client requests join their exchange,
 * the final answer completes it and goes through the hooks (recorder, events).
 */
export async function relayPost(stage: Stage, sessions: SessionRegistry, relay: PostRelay): Promise<void> {
  const { req, res, body, exchanges, init } = relay;
  const local = relay.local ?? [];
  let session = relay.session;
  const owned = init !== undefined && session !== undefined;
  const requestHeaders = copyEndToEndHeaders(req.headers);
  const upstream = stage.upstream;
  let upRes: IncomingMessage;
  try {
    if (!upstream) throw new UpstreamUnavailableError('no upstream server');
    for (const e of exchanges) e.timeline.sentUpstreamMs = e.elapsed();
    upRes = await upstream.request({
      method: 'POST',
      headers: requestHeaders,
      body,
      sessionId: upstreamSessionOf(req, init, owned, session),
    });
    if (
      upRes.statusCode === 404 &&
      session &&
      relay.reconnect &&
      session.upstreamId &&
      session.upstreamId !== session.id
    ) {
      upRes.resume(); // the upstream forgot our session (restarted): open a new one and send again, once
      await relay.reconnect(session);
      upRes = await upstream.request({ method: 'POST', headers: requestHeaders, body, sessionId: session.upstreamId });
    }
  } catch (error) {
    if (owned) sessions.delete(session!.id as string);
    if (exchanges.length === 0)
      return sendJson(
        res,
        502,
        upstreamError(error, `mcp-rewind: upstream unavailable: ${(error as Error).message}`).toResponse(null),
      );
    return answerUpstreamDown(stage, res, exchanges, session, error, local);
  }
  if (res.destroyed && exchanges.length > 0) {
    // the client went away while the upstream had not begun to answer: so does the upstream request
    upRes.destroy();
    for (const exchange of exchanges) exchange.delivery.clientGone = true;
    return brokenStream(stage, res, undefined, new Map(exchanges.map((e) => [e.request.id, e])), session);
  }

  if (exchanges.length > 0) {
    const head = { status: upRes.statusCode ?? 0, headers: redactHeaders(upRes.headers) }; // for the timeline
    for (const e of exchanges) {
      e.timeline.firstByteMs = e.elapsed();
      e.timeline.http = head;
    }
  }
  if (init) {
    const sid = upRes.headers['mcp-session-id'];
    const upstreamId = typeof sid === 'string' ? sid : null;
    if (session)
      session.upstreamId = upstreamId; // the proxy's own session, now backed by the upstream's
    else session = upstreamId ? sessions.adopt(upstreamId, upstreamId) : sessions.get(undefined, null);
    session.initParams = init.request.params;
  }
  const live = session as Session;
  if (owned && (upRes.statusCode ?? 500) >= 300) sessions.delete(live.id as string); // refused: no session came of it
  const headers = downstreamHeaders(upRes, live.id, owned);
  // a hook holds an answer, or the proxy answered part of the POST: the relay goes message by message
  const rewriting = local.length > 0 || exchanges.some((e) => e.delivery.need === 'hold');
  const tapped = rewriting || init !== undefined || exchanges.some((e) => e.delivery.need !== 'none');
  if (!tapped || exchanges.length === 0) {
    res.writeHead(upRes.statusCode ?? 502, headers);
    upRes.pipe(res); // nobody needs the messages: the cheapest faithful relay
    watchProgress(upstream, upRes);
    const broken = (error?: Error): void =>
      brokenStream(
        stage,
        res,
        upRes.headers['content-type'],
        new Map(exchanges.map((e) => [e.request.id, e])),
        live,
        true,
        error ?? upstream.cutBy?.(upRes),
      );
    upRes.on('error', broken);
    upRes.on('aborted', () => broken());
    res.on('close', () => {
      if (upRes.complete) return;
      for (const exchange of exchanges) exchange.delivery.clientGone = true;
      upRes.destroy();
    });
    return;
  }

  const delivery = rewriting
    ? new RewritingDelivery(res, upRes, headers, Array.isArray(relay.parsed), local)
    : undefined;
  const contentType = upRes.headers['content-type'];
  const sse = contentType?.includes('text/event-stream') ?? false;
  // no rewrite, but an answer is committed before the client gets it: the bytes wait for it, unchanged
  const writeHead = (): void => void res.writeHead(upRes.statusCode ?? 502, headers);
  const gate =
    !delivery && exchanges.some((e) => e.delivery.need === 'commit')
      ? new CommitGate(res, upRes, !sse, writeHead)
      : undefined;
  if (!delivery && !gate) writeHead();
  const pending = new Map(exchanges.map((e) => [e.request.id, e]));
  for (const exchange of exchanges)
    exchange.whenCancelled(() => {
      // the client cancelled it: it ends now, cancelled (an answer the server still sends passes on, unread)
      if (pending.delete(exchange.request.id)) void finish(exchange);
    });
  const held: Array<Promise<void>> = [];
  const keepDetail = stage.hooks.wantsDetail();
  const tap = new ResponseTap(
    contentType,
    (message) => {
      if (isResponse(message) && message.id !== null && pending.has(message.id)) {
        const exchange = pending.get(message.id) as LiveExchange;
        pending.delete(message.id);
        exchange.upstreamAnswered(message);
        exchange.timeline.framing = tap.framing();
        if (exchange === init) {
          if ('result' in message) {
            exchange.negotiated(String(message.result.protocolVersion ?? ''));
            live.protocolVersion = exchange.protocolVersion;
          } else if (owned) sessions.delete(live.id as string); // no session came of it
        }
        if (waits(exchange.delivery.need)) {
          const responded = stage.hooks.respond(
            exchange,
            live,
            res,
            keepDetail ? detail(stage, req, requestHeaders, relay.parsed, upRes, tap) : undefined,
          );
          if (gate) {
            gate.hold(responded);
            void responded.then(() => finish(exchange));
          } else
            held.push(
              responded.then(() => {
                delivery?.write(exchange.response as JsonRpcResponse);
                void finish(exchange);
              }),
            );
          return;
        }
        delivery?.write(message);
        void finish(exchange);
        return;
      }
      delivery?.write(message);
      if (isResponse(message)) {
        // an error with id null: the server refused the POST itself (a bad session, a bad header): the recorder files it
        // (an error without an id, as server-everything answers, is one too)
        if ((message.id === null || message.id === undefined) && 'error' in message && exchanges.length === 1)
          exchanges[0].delivery.refusal = { status: upRes.statusCode ?? 0, error: message };
        return;
      }
      if (message.method === 'notifications/progress') upstream.progressed?.(upRes);
      const target = exchangeFor(message, exchanges, pending);
      if (!target) return;
      target.addStreamed(message);
      if (isRequest(message)) live.awaitingReplies.set(message.id, target);
    },
    // a rewriting delivery passes a body without JSON-RPC messages on as it came; the debug files get a bounded part
    delivery ? true : keepDetail ? DEBUG_BODY_MAX_BYTES : false,
  );

  const finish = (exchange: LiveExchange): Promise<void> =>
    stage.hooks.finish(
      exchange,
      live,
      keepDetail ? detail(stage, req, requestHeaders, relay.parsed, upRes, tap) : undefined,
    );

  upRes.on('data', (chunk: Buffer) => {
    tap.push(chunk); // first: a commit the chunk completes holds the chunk back
    gate?.write(chunk);
  });
  if (!delivery && !gate) upRes.pipe(res, { end: false });
  // a request the client cancelled ends unanswered when its stream does (the client never resumes it)
  const endCancelled = (): void => {
    if (!live.cancelled?.size) return;
    for (const exchange of [...pending.values()].filter((e) => live.cancelled?.has(e.request.id))) {
      pending.delete(exchange.request.id);
      exchange.timeline.framing ??= tap.framing();
      void finish(exchange);
    }
  };
  upRes.on('end', () => {
    tap.end();
    const done = (): void => {
      // an SSE answer that ended without answering and without event ids cannot be resumed: say so, do not hang
      if (pending.size > 0 && !tap.sawEventId && sse)
        return brokenStream(stage, res, contentType, pending, live, !delivery, upstream.cutBy?.(upRes));
      if (delivery) delivery.end(tap.rawBody, headers);
      else if (gate) gate.end();
      else res.end();
      endCancelled();
      // closed early with event ids (SSE polling): the client resumes with Last-Event-ID, the answers come there
      if (pending.size > 0 && sse && tap.lastEventId !== undefined)
        return awaitResumeOf(stage, live, tap, [...pending.values()], finish);
      for (const exchange of pending.values()) {
        exchange.timeline.framing ??= tap.framing();
        void finish(exchange); // answered nothing (or refused the POST): still on the timeline
      }
    };
    if (held.length > 0)
      void Promise.all(held).then(done); // answers held by a hook go out first
    else if (gate && pending.size > 0 && sse)
      void gate.settled().then(done); // committed answers before the error events
    else done();
  });
  // piped bytes (no delivery) may have stopped inside an event: brokenStream must close it before its own events
  // committed answers go out before the error events that follow them
  const broken = (cause: Error | undefined): void => {
    if (gate && sse)
      void gate.settled().then(() => brokenStream(stage, res, contentType, pending, live, !delivery, cause));
    else brokenStream(stage, res, contentType, pending, live, !delivery, cause);
  };
  upRes.on('error', (error) => broken(error));
  upRes.on('aborted', () => broken(upstream.cutBy?.(upRes)));
  res.on('close', () => {
    if (upRes.complete) return;
    endCancelled();
    if (pending.size > 0 && tap.lastEventId !== undefined && contentType?.includes('text/event-stream')) {
      // a resumable stream: the client may come back with Last-Event-ID (the server keeps the events for that)
      const waiting = [...pending.values()];
      pending.clear();
      awaitResumeOf(stage, live, tap, waiting, finish, 'client');
    }
    for (const exchange of pending.values()) {
      exchange.delivery.clientGone = true; // the client went away: so does the upstream stream
      exchange.timeline.framing ??= tap.framing();
    }
    upRes.destroy();
  });
}

/**
 * A POST stream that ended before its answers — the server closed it (SSE polling), or the client dropped it — waits
 * for the client to resume it (stream-relay.ts). Only the server's early close is part of the recording
 * (`resumedAfter`): replay closes where the server did, never where a client dropped.
 */
function awaitResumeOf(
  stage: Stage,
  session: Session,
  tap: ResponseTap,
  exchanges: LiveExchange[],
  finish: (exchange: LiveExchange) => Promise<void>,
  closedBy: 'server' | 'client' = 'server',
): void {
  for (const exchange of exchanges)
    exchange.timeline.framing =
      closedBy === 'server' ? { ...tap.framing(), resumedAfter: exchange.stream.length } : tap.framing();
  const gaveUp = (exchange: LiveExchange): void => {
    exchange.delivery.clientGone = true;
    exchange.timeline.flags.push('client disconnected before the answer');
  };
  awaitResume(
    stage,
    session,
    tap.lastEventId as string,
    { exchanges, finish },
    closedBy === 'client' ? gaveUp : undefined,
  );
}

/** Every request of a POST the upstream could not take gets a JSON-RPC error; the proxy serves on. */
export function answerUpstreamDown(
  stage: Stage,
  res: ServerResponse,
  exchanges: LiveExchange[],
  session: Session | undefined,
  error: unknown,
  local: JsonRpcResponse[] = [],
): void {
  const reason = reasonOf(error);
  const where = stage.upstream?.displayUrl;
  stage.log(`upstream ${where} unavailable (${reason}): ${exchanges.length} request(s) answered with an error`, 'warn');
  const cut = timeoutOf(error);
  const answers = exchanges.map((exchange) => {
    exchange.delivery.source = 'proxy';
    exchange.respond(
      upstreamError(error, `mcp-rewind: upstream ${where} unavailable: ${reason}`).toResponse(exchange.request.id),
    );
    if (cut) exchange.end('timeout', cut.message);
    void stage.hooks.finish(exchange, session);
    return exchange.response;
  });
  const all = [...local, ...answers];
  sendJson(res, 200, all.length === 1 ? all[0] : all);
}

/**
 * The stream ended before answering: the client went away (its exchanges end unanswered, logged as such), or the
 * upstream broke it — SSE clients then get an error event per unanswered request, saying why when the upstream
 * connector knows (a timeout).
 */
export function brokenStream(
  stage: Stage,
  res: ServerResponse,
  contentType: string | undefined,
  pending: Map<unknown, LiveExchange>,
  session: Session | undefined,
  midEvent = false,
  error?: Error,
): void {
  const gone = [...pending.values()].filter((e) => e.delivery.clientGone);
  if (gone.length > 0) {
    for (const exchange of gone) {
      pending.delete(exchange.request.id);
      const listen = exchange.request.method === 'subscriptions/listen';
      exchange.timeline.flags.push(
        listen ? 'the client closed the subscription stream' : 'client disconnected before the answer',
      );
      if (!listen)
        stage.log(
          `client disconnected before the answer to ${exchange.request.method} (id ${String(exchange.request.id)})`,
          'info',
        );
      void stage.hooks.finish(exchange, session);
    }
  }
  if (res.writableEnded || res.destroyed) return;
  if (contentType?.includes('text/event-stream')) {
    // untapped relay: we may be inside an event; a blank line closes it (clients ignore answers to ids already done)
    if (midEvent) res.write('\n\n');
    const cut = timeoutOf(error);
    const why = cut?.message ?? 'mcp-rewind: upstream closed the stream before answering';
    for (const exchange of pending.values()) {
      exchange.delivery.source = 'proxy'; // the proxy's words, not the server's answer: never recorded
      exchange.respond(new UpstreamUnavailableError(why).toResponse(exchange.request.id));
      if (cut) exchange.end('timeout', cut.message);
      res.write(sseEvent(exchange.response));
      void stage.hooks.finish(exchange, session);
    }
    pending.clear();
    res.end();
  } else if (!res.headersSent && pending.size > 0) {
    // a JSON answer held back whole (a commit, a rewrite) and cut before its end: nothing of it went out yet
    const cut = timeoutOf(error);
    const answers = [...pending.values()].map((exchange) => {
      exchange.delivery.source = 'proxy'; // never recorded
      exchange.respond(
        new UpstreamUnavailableError(
          cut?.message ?? 'mcp-rewind: upstream closed the answer before its end',
        ).toResponse(exchange.request.id),
      );
      if (cut) exchange.end('timeout', cut.message);
      void stage.hooks.finish(exchange, session);
      return exchange.response;
    });
    pending.clear();
    sendJson(res, 200, answers.length === 1 ? answers[0] : answers);
  } else {
    res.destroy(); // part of a JSON body went out already: the client sees it cut
  }
}

function detail(
  stage: Stage,
  req: IncomingMessage,
  headers: Record<string, string | string[]>,
  body: unknown,
  upRes: IncomingMessage,
  tap: ResponseTap,
): ExchangeDetail {
  return {
    request: { method: req.method ?? 'POST', url: stage.upstream!.displayUrl, headers, body },
    responseBody: tap.rawBody,
    responseHead: { status: upRes.statusCode ?? 0, headers: upRes.headers as Record<string, string | string[]> },
  };
}

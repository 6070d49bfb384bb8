import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRequest, isResponse, type JsonRpcMessage, type JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import { DEBUG_BODY_MAX_BYTES, ResponseTap } from '../../http/response-tap.js';
import type { Framing } from '../../../../shared/cassette/entry.js';
import type { ExchangeDetail, Stage } from '../core/contract.js';
import { RewritingDelivery } from './delivery.js';
import { waits } from '../core/chain.js';
import { exchangeFor, type LiveExchange } from '../core/exchange.js';
import { CommitGate } from './commit-gate.js';
import { brokenStream } from './relay-failures.js';
import type { Session, SessionRegistry } from '../core/session.js';
import { awaitResume } from './stream-relay.js';
import { initialized } from '../core/plan-exchange.js';

/** A POST the upstream began to answer, relayed message by message (relay.ts decided a hook needs its messages). */
export interface TappedPost {
  stage: Stage;
  sessions: SessionRegistry;
  req: IncomingMessage;
  res: ServerResponse;
  upRes: IncomingMessage;
  parsed: JsonRpcMessage | JsonRpcMessage[];
  /** the requests forwarded upstream, and the initialize among them */
  exchanges: LiveExchange[];
  init: LiveExchange | undefined;
  /** the session the answer belongs to, and whether the proxy made it for this initialize */
  live: Session;
  owned: boolean;
  /** the headers sent upstream (for the debug files) and the ones the client gets */
  requestHeaders: Record<string, string | string[]>;
  headers: Record<string, string | string[]>;
  /** answers the proxy made itself for other requests of the same POST; set: the answer is rewritten */
  local: JsonRpcResponse[];
  rewriting: boolean;
}

/**
 * The message-by-message relay of one POST's answer: streamed notifications and server→client requests join their
 * exchange, each final answer completes its exchange and goes through the hooks (held back while a hook that waits
 * on it runs). The bytes go on unchanged (piped, or held by a commit gate) unless the answer is rewritten.
 */
export class TappedRelay {
  private readonly pending: Map<unknown, LiveExchange>;
  /** answers a hook holds: they go out before the end of the body */
  private readonly held: Array<Promise<void>> = [];
  private readonly delivery?: RewritingDelivery;
  private readonly gate?: CommitGate;
  private readonly tap: ResponseTap;
  private readonly contentType: string | undefined;
  private readonly sse: boolean;
  private readonly keepDetail: boolean;

  constructor(private readonly p: TappedPost) {
    const { res, upRes, headers, exchanges } = p;
    this.contentType = upRes.headers['content-type'];
    this.sse = this.contentType?.includes('text/event-stream') ?? false;
    this.keepDetail = p.stage.hooks.wantsDetail();
    this.delivery = p.rewriting
      ? new RewritingDelivery(res, upRes, headers, Array.isArray(p.parsed), p.local)
      : undefined;
    // no rewrite, but an answer is committed before the client gets it: the bytes wait for it, unchanged
    const writeHead = (): void => void res.writeHead(upRes.statusCode ?? 502, headers);
    this.gate =
      !this.delivery && exchanges.some((e) => e.delivery.need === 'commit')
        ? new CommitGate(res, upRes, !this.sse, writeHead)
        : undefined;
    if (!this.delivery && !this.gate) writeHead();
    this.pending = new Map(exchanges.map((e) => [e.request.id, e]));
    // a rewriting delivery passes a body without JSON-RPC messages on as it came; the debug files get a bounded part
    const keepBody = this.delivery ? true : this.keepDetail ? DEBUG_BODY_MAX_BYTES : false;
    this.tap = new ResponseTap(this.contentType, (message, eventId) => this.onMessage(message, eventId), keepBody);
  }

  /** Listens to the upstream's answer and to the client, until both are done. */
  start(): void {
    const { upRes, res, exchanges } = this.p;
    for (const exchange of exchanges)
      exchange.whenCancelled(() => {
        // the client cancelled it: it ends now, cancelled (an answer the server still sends passes on, unread)
        if (this.pending.delete(exchange.request.id)) void this.finish(exchange);
      });
    upRes.on('data', (chunk: Buffer) => {
      this.tap.push(chunk); // first: a commit the chunk completes holds the chunk back
      if (this.tap.lines) {
        // JSON lines: they go as they come, not at the end of a body that lasts as long as a listen stream
        this.gate?.lines();
        this.delivery?.lines(this.p.headers);
      }
      this.gate?.write(chunk);
    });
    if (!this.delivery && !this.gate) upRes.pipe(res, { end: false });
    upRes.on('end', () => this.upstreamEnded());
    upRes.on('error', (error) => this.broken(error));
    upRes.on('aborted', () => this.broken(this.p.stage.upstream?.cutBy?.(upRes)));
    res.on('close', () => this.clientClosed());
  }

  private onMessage(message: JsonRpcMessage, eventId: string | undefined): void {
    if (isResponse(message) && message.id !== null && this.pending.has(message.id)) {
      const exchange = this.pending.get(message.id) as LiveExchange;
      this.pending.delete(message.id);
      exchange.timeline.answerEventId = eventId;
      return this.answered(exchange, message);
    }
    this.delivery?.write(message);
    const { exchanges, upRes, live } = this.p;
    if (isResponse(message)) {
      // an error with id null: the server refused the POST itself (a bad session, a bad header): the recorder files it
      // (an error without an id, as server-everything answers, is one too)
      // (a batch refused as a whole, as servers that take single messages only do: each of its exchanges carries it)
      const batch = Array.isArray(this.p.parsed);
      if ((message.id === null || message.id === undefined) && 'error' in message && (exchanges.length === 1 || batch))
        for (const exchange of exchanges)
          exchange.delivery.refusal = { status: upRes.statusCode ?? 0, error: message, batch };
      return;
    }
    if (message.method === 'notifications/progress') this.p.stage.upstream?.progressed?.(upRes);
    const target = exchangeFor(message, exchanges, this.pending);
    if (!target) return;
    target.addStreamed(message, eventId);
    if (isRequest(message)) live.awaitingReplies.set(message.id, target);
  }

  /** An exchange's answer: it goes out now, or once the hooks that wait on it are done. */
  private answered(exchange: LiveExchange, message: JsonRpcResponse): void {
    const { live, init, owned, sessions, res } = this.p;
    exchange.upstreamAnswered(message);
    exchange.timeline.framing = this.framing(exchange);
    if (exchange === init) {
      if ('result' in message) initialized(exchange, live, message);
      else if (owned) sessions.delete(live.id as string); // no session came of it
    }
    if (!waits(exchange.delivery.need)) {
      this.delivery?.write(message);
      void this.finish(exchange);
      return;
    }
    const responded = this.p.stage.hooks.respond(exchange, live, res, this.detail());
    if (this.gate) {
      this.gate.hold(responded);
      void responded.then(() => this.finish(exchange));
    } else
      this.held.push(
        responded.then(() => {
          this.delivery?.write(exchange.response as JsonRpcResponse);
          void this.finish(exchange);
        }),
      );
  }

  /**
   * How the exchange's answer travelled: JSON lines only when it came with more than its answer — messages before it,
   * or none (a listen stream the client closed) —: an answer alone on a line of its own replays as a JSON body.
   */
  private framing(exchange: LiveExchange): Framing {
    const framing = this.tap.framing();
    if (!framing.lines || exchange.stream.length > 0 || !exchange.upstreamResponse) return framing;
    return { type: 'json' };
  }

  private finish(exchange: LiveExchange): Promise<void> {
    return this.p.stage.hooks.finish(exchange, this.p.live, this.detail());
  }

  private detail(): ExchangeDetail | undefined {
    if (!this.keepDetail) return undefined;
    const { stage, req, requestHeaders, parsed, upRes } = this.p;
    return {
      request: { method: req.method ?? 'POST', url: stage.upstream!.displayUrl, headers: requestHeaders, body: parsed },
      responseBody: this.tap.rawBody,
      responseHead: { status: upRes.statusCode ?? 0, headers: upRes.headers as Record<string, string | string[]> },
    };
  }

  /** A request the client cancelled ends unanswered when its stream does (the client never resumes it). */
  private endCancelled(): void {
    const { cancelled } = this.p.live;
    if (!cancelled?.size) return;
    for (const exchange of [...this.pending.values()].filter((e) => cancelled.has(e.request.id))) {
      this.pending.delete(exchange.request.id);
      exchange.timeline.framing ??= this.framing(exchange);
      void this.finish(exchange);
    }
  }

  private upstreamEnded(): void {
    this.tap.end();
    if (this.held.length > 0)
      void Promise.all(this.held).then(() => this.bodyDone()); // answers held by a hook go out first
    else if (this.gate && this.pending.size > 0 && this.sse)
      void this.gate.settled().then(() => this.bodyDone()); // committed answers before the error events
    else this.bodyDone();
  }

  /** The upstream's body ended (and what a hook held went out): ends the client's, and the exchanges left. */
  private bodyDone(): void {
    const { stage, res, live, upRes, headers } = this.p;
    const { pending, tap, delivery, sse } = this;
    // an SSE answer that ended without answering and without event ids cannot be resumed: say so, do not hang
    if (pending.size > 0 && !tap.sawEventId && sse)
      return brokenStream(stage, res, this.contentType, pending, live, !delivery, stage.upstream?.cutBy?.(upRes));
    if (delivery) delivery.end(tap.rawBody, headers);
    else if (this.gate) this.gate.end();
    else res.end();
    this.endCancelled();
    // closed early with event ids (SSE polling): the client resumes with Last-Event-ID, the answers come there
    if (pending.size > 0 && sse && tap.lastEventId !== undefined) return this.awaitResume([...pending.values()]);
    for (const exchange of pending.values()) {
      exchange.timeline.framing ??= this.framing(exchange);
      void this.finish(exchange); // answered nothing (or refused the POST): still on the timeline
    }
  }

  /**
   * The upstream broke the stream. Piped bytes (no delivery) may have stopped inside an event: brokenStream closes it
   * before its own events; committed answers go out before the error events that follow them.
   */
  private broken(cause: Error | undefined): void {
    const { stage, res, live } = this.p;
    const report = (): void => brokenStream(stage, res, this.contentType, this.pending, live, !this.delivery, cause);
    if (this.gate && this.sse) void this.gate.settled().then(report);
    else report();
  }

  private clientClosed(): void {
    const { upRes } = this.p;
    if (upRes.complete) return;
    this.endCancelled();
    if (this.pending.size > 0 && this.tap.lastEventId !== undefined && this.sse) {
      // a resumable stream: the client may come back with Last-Event-ID (the server keeps the events for that)
      const waiting = [...this.pending.values()];
      this.pending.clear();
      this.awaitResume(waiting, 'client');
    }
    for (const exchange of this.pending.values()) {
      exchange.delivery.clientGone = true; // the client went away: so does the upstream stream
      exchange.timeline.framing ??= this.framing(exchange);
    }
    upRes.destroy();
  }

  /**
   * A POST stream that ended before its answers — the server closed it (SSE polling), or the client dropped it —
   * waits for the client to resume it (stream-relay.ts). Only the server's early close is part of the recording
   * (`resumedAfter`): replay closes where the server did, never where a client dropped.
   */
  private awaitResume(exchanges: LiveExchange[], closedBy: 'server' | 'client' = 'server'): void {
    const { tap } = this;
    for (const exchange of exchanges)
      exchange.timeline.framing =
        closedBy === 'server' ? { ...tap.framing(), resumedAfter: exchange.stream.length } : tap.framing();
    const gaveUp = (exchange: LiveExchange): void => {
      exchange.delivery.clientGone = true;
      exchange.timeline.flags.push('client disconnected before the answer');
    };
    const finish = (exchange: LiveExchange): Promise<void> => this.finish(exchange);
    awaitResume(
      this.p.stage,
      this.p.live,
      tap.lastEventId as string,
      { exchanges, finish },
      closedBy === 'client' ? gaveUp : undefined,
    );
  }
}

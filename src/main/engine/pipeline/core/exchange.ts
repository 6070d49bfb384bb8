import type { Framing } from '../../../../shared/cassette/entry.js';
import type { JsonRpcError, JsonRpcMessage, JsonRpcRequest, JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import type { CassetteOutcome, ExchangeEvent, ExchangeFinal, ExchangeSource } from '../../../../shared/traffic.js';
import { metaVersion } from '../../../../shared/mcp-protocol.js';
import { keyFor } from '../../cassette/keys.js';
import type { McpHead } from '../../http/url.js';

/** A rule's change to a result before the client sees it (inject, the merged tools/list, initialize). */
export type Rewrite = (result: Record<string, unknown>) => Record<string, unknown>;

/**
 * What a hook needs of an exchange, asked once the plan is made:
 * - 'none': nothing (a hook that wants nothing costs nothing: the relay pipes bytes unparsed);
 * - 'observe': its messages, after the client got the answer (onResponse runs after release);
 * - 'commit': the answer may not reach the client before this hook's onResponse resolved, and the hook does not
 *   change it (the recorder, writing the entry durably): its bytes still travel unchanged, held back, then released;
 * - 'hold': the answer may not reach the client before this hook's onResponse resolved (it may change it).
 */
export type Need = 'none' | 'observe' | 'commit' | 'hold';

let nextSeq = 1;

/**
 * Takes `count` exchange numbers for exchanges that come from elsewhere (the app's timeline opening a HAR file or a
 * cassette), so that they never share a number with a live exchange; answers the first (`count` 0: the next free).
 */
export function reserveSeqs(count: number): number {
  const first = nextSeq;
  nextSeq += count;
  return first;
}

/** The standard MCP request headers, for the protocol checks of replay and the recorder's refusal filing. */
export type RequestHeaders = McpHead;
const NO_HEADERS: RequestHeaders = {};

/**
 * How an exchange's answer travels, decided and tracked by the pipeline (the timeline never reads it), each field
 * written by the one stage named beside it.
 */
export class Delivery {
  /** who answers: the plan's choice (sources.ts), the proxy where the upstream turned out down (relay-failures.ts) */
  source: ExchangeSource = 'upstream';
  /** per installed hook, what it needs of this exchange, and the strongest need (chain.ts, once the plan is made) */
  needs: readonly Need[] = [];
  need: Need = 'none';
  /** the hooks that commit its answer ran before it went out (chain.ts respond); else they run when it finishes */
  committed = false;
  /** a hook changed the request (breakpoints.ts: edited arguments or params): what goes upstream is re-serialised */
  edited = false;
  /** the rules' change to the answer (sources.ts, from the plan), applied by the rule hook whichever source answers */
  rewrite?: Rewrite;
  /** the upstream refused the POST at the HTTP level (relay-tapped.ts: an error with `id: null`), no answer */
  refusal?: { status: number; error: JsonRpcError; batch?: boolean };
  /**
   * the client went away before the answer, not the upstream's doing (relay.ts, relay-tapped.ts; endpoint.ts when its
   * session ends)
   */
  clientGone = false;
  /** its Mcp-Session-Id names no session the proxy knows live: never issued through it, or ended (endpoint.ts) */
  staleSession = false;
  /** replay: the cursor the entry offered for it moves once the plan takes it (replayer.ts) */
  cursor?: string;
}

/**
 * What the timeline (and the cassette's timing and framing) shows beside the messages: set where each is known, the
 * pipeline never decides on them.
 */
export class TimelineNotes {
  /** the rule behavior applied to a tools/call (sources.ts, from the plan) */
  behavior?: 'relay' | 'override' | 'inject';
  /** what the cassette did with it (sources.ts on a hit or a miss, the recorder when it files it) */
  cassette: CassetteOutcome = 'none';
  /** things worth a look (a replayed exchange whose client reply differed from the recording, …) */
  readonly flags: string[] = [];
  /** the client's request before a breakpoint edited its arguments or params */
  originalRequest?: JsonRpcRequest;
  /** the source's answer before a breakpoint edit or a rule changed it (forwarded exchanges: upstreamResponse) */
  originalResponse?: JsonRpcResponse;
  /** ms from the start: request sent upstream, upstream's answer began, the answer arrived (relay.ts) */
  sentUpstreamMs?: number;
  firstByteMs?: number;
  answeredMs?: number;
  /** ms from the start at which each message of `stream` arrived */
  readonly streamMs: number[] = [];
  /** the id of the SSE event that carried each message of `stream` (undefined: none, or the client's reply) */
  readonly streamEventIds: Array<string | undefined> = [];
  /** the id of the SSE event that carried the answer */
  answerEventId?: string;
  /** the upstream's HTTP status and headers (relay.ts) */
  http?: ExchangeEvent['http'];
  /** the scheme of the client's own Authorization (relay.ts), never its credentials */
  authorization?: string;
  /** how the upstream's answer travelled (JSON, or SSE with ids, retry, priming, an early close) — the cassette keeps it */
  framing?: Framing;

  /** when the request went upstream and the messages came back, for the timeline (undefined: none of it happened) */
  timing(): ExchangeEvent['timing'] {
    if (this.sentUpstreamMs === undefined && this.streamMs.length === 0) return undefined;
    return {
      sentUpstream: this.sentUpstreamMs,
      firstByte: this.firstByteMs,
      stream: this.streamMs.length ? this.streamMs : undefined,
    };
  }
}

/**
 * An exchange in flight: the request, then what streams back, then the answer (the flow); how the answer travels
 * (`delivery`) and what the timeline shows of it (`timeline`) beside.
 */
export class LiveExchange {
  readonly seq = nextSeq++;
  private cachedKey?: string;
  readonly startedAt = Date.now();
  private readonly t0 = performance.now();
  readonly stream: JsonRpcMessage[] = [];
  readonly delivery = new Delivery();
  readonly timeline = new TimelineNotes();
  /** what the client gets (`respond`) */
  private answer?: JsonRpcResponse;
  /** what the upstream answered (`upstreamAnswered`): the cassette stores this one when a rule changed the answer */
  private upstreamAnswer?: JsonRpcResponse;
  /** the revision the exchange is made in: its `_meta`'s (2026-07-28), else its session's, else its header's */
  private version?: string;

  /** how it ended (set once: `end`), and why, in words, when it ended without an answer */
  private ended?: { final: ExchangeFinal; reason?: string };
  private onCancel?: Array<() => void>;

  constructor(
    readonly request: JsonRpcRequest,
    readonly sessionId: string | undefined,
    /** the request's standard MCP headers, for the protocol checks of replay and the recorder's refusal filing */
    readonly headers: RequestHeaders = NO_HEADERS,
    sessionVersion?: string,
  ) {
    this.version = metaVersion(request.params) ?? sessionVersion ?? headers.protocolVersion;
  }

  /** what the client gets: a source's answer, or a rule's or a breakpoint's change of it */
  get response(): JsonRpcResponse | undefined {
    return this.answer;
  }

  /** what the upstream answered, when it did */
  get upstreamResponse(): JsonRpcResponse | undefined {
    return this.upstreamAnswer;
  }

  /** Sets the answer the client gets (a source's, or a change of it by a rule or at a breakpoint). */
  respond(response: JsonRpcResponse): void {
    this.answer = response;
  }

  /** The upstream answered: the client gets that answer (unless a hook changes it), and when it came is noted. */
  upstreamAnswered(response: JsonRpcResponse): void {
    this.upstreamAnswer = response;
    this.answer = response;
    this.timeline.answeredMs = this.elapsed();
  }

  get protocolVersion(): string | undefined {
    return this.version;
  }

  /** initialize's answer negotiated the revision the exchange (and its session) is made in */
  negotiated(version: string): void {
    this.version = version;
  }

  /** the cache key — computed on first use: proxy-only never needs it */
  get key(): string {
    return (this.cachedKey ??= keyFor(this.request));
  }

  /** ms since the exchange began */
  elapsed(): number {
    return Math.round((performance.now() - this.t0) * 1000) / 1000;
  }

  /** a message streamed before the answer (a notification, a server→client request or the client's reply) */
  addStreamed(message: JsonRpcMessage, eventId?: string): void {
    this.stream.push(message);
    this.timeline.streamMs.push(this.elapsed());
    this.timeline.streamEventIds.push(eventId);
  }

  /** Ends the exchange in this state, once: a later end (an answer after a cancel, a cut after a timeout) changes nothing. */
  end(final: ExchangeFinal, reason?: string): void {
    this.ended ??= { final, ...(reason ? { reason } : {}) };
  }

  /** how it ended, once it did */
  get final(): ExchangeFinal | undefined {
    return this.ended?.final;
  }

  /**
   * Ends it the way its state says, unless a stage ended it already (hooks.finish: every exchange passes here when it
   * finishes): an answer (result or error), else the client gone, else the upstream's HTTP refusal.
   */
  settle(): void {
    if (this.ended) return;
    const { refusal, clientGone } = this.delivery;
    if (this.answer) return this.end('error' in this.answer ? 'error' : 'answered');
    if (clientGone) return this.end('client-gone', 'the client went away before the answer');
    const status = refusal?.status ?? this.timeline.http?.status ?? 0;
    const why = refusal ? `: ${refusal.error.error.message}` : '';
    if (status >= 400) return this.end('http-error', `the upstream answered HTTP ${status}${why}`);
    this.end('error', 'the stream ended without an answer');
  }

  /** The client cancelled the request (notifications/cancelled): it ends so, unless it ended already; whoever waits on it lets go. */
  cancel(reason?: string): void {
    if (this.ended) return;
    this.end('cancelled', reason ? `cancelled by the client: ${reason}` : 'cancelled by the client');
    for (const listener of this.onCancel?.splice(0) ?? []) listener();
  }

  /** Runs `listener` if the client cancels the request (a stage that waits for it lets go); answers the way to stop listening. */
  whenCancelled(listener: () => void): () => void {
    (this.onCancel ??= []).push(listener);
    return () => {
      const at = this.onCancel?.indexOf(listener) ?? -1;
      if (at >= 0) this.onCancel!.splice(at, 1);
    };
  }

  get progressToken(): unknown {
    const meta = this.request.params?._meta as Record<string, unknown> | undefined;
    return meta?.progressToken;
  }

  toEvent(): ExchangeEvent {
    const tool = this.request.method === 'tools/call' ? String(this.request.params?.name ?? '') : undefined;
    const { timeline } = this;
    return {
      seq: this.seq,
      sessionId: this.sessionId,
      method: this.request.method,
      tool,
      key: this.key,
      source: this.delivery.source,
      cassette: timeline.cassette,
      request: this.request,
      stream: this.stream,
      response: this.answer,
      behavior: timeline.behavior,
      flags: timeline.flags.length ? timeline.flags : undefined,
      startedAt: this.startedAt,
      durationMs: this.elapsed(),
      final: this.ended?.final,
      finalReason: this.ended?.reason,
      original: this.original(),
      timing: timeline.timing(),
      http: timeline.http,
      protocolVersion: this.version,
      authorization: timeline.authorization,
    };
  }

  /** the original request / answer, where a breakpoint or a rule changed what the client got (compared as JSON) */
  private original(): ExchangeEvent['original'] {
    const { originalRequest } = this.timeline;
    const response = this.timeline.originalResponse ?? this.upstreamAnswer;
    const changedResponse =
      response !== undefined && response !== this.answer && JSON.stringify(response) !== JSON.stringify(this.answer);
    if (!originalRequest && !changedResponse) return undefined;
    return {
      ...(originalRequest ? { request: originalRequest } : {}),
      ...(changedResponse ? { response } : {}),
    };
  }
}

/** Which in-flight exchange a streamed message belongs to: its progress token's, else the oldest pending one. */
export function exchangeFor(
  message: JsonRpcMessage,
  exchanges: LiveExchange[],
  pending: Map<unknown, LiveExchange>,
): LiveExchange | undefined {
  const token =
    'method' in message ? (message.params as { progressToken?: unknown } | undefined)?.progressToken : undefined;
  if (token !== undefined) {
    const owner = exchanges.find((e) => e.progressToken === token);
    if (owner) return owner;
  }
  return pending.values().next().value ?? exchanges[exchanges.length - 1];
}

import type { Framing } from '../../../shared/cassette/entry.js';
import type { JsonRpcError, JsonRpcMessage, JsonRpcRequest, JsonRpcResponse } from '../../../shared/jsonrpc.js';
import type { CassetteOutcome, ExchangeEvent, ExchangeFinal, ExchangeSource } from '../../../shared/traffic.js';
import { metaVersion } from '../../../shared/mcp-protocol.js';
import { keyFor } from '../cassette/keys.js';
import type { McpHead } from '../http/url.js';

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

/** An exchange in flight: the request, then what streams back, then the answer. */
export class LiveExchange {
  readonly seq = nextSeq++;
  private cachedKey?: string;
  readonly startedAt = Date.now();
  private readonly t0 = performance.now();
  readonly stream: JsonRpcMessage[] = [];
  /** what the client got */
  response?: JsonRpcResponse;
  /** what the upstream answered, when a rule changed it (the cassette stores this one) */
  upstreamResponse?: JsonRpcResponse;
  /** the rule behavior applied to a tools/call */
  behavior?: 'relay' | 'override' | 'inject';
  source: ExchangeSource = 'upstream';
  /** things worth a look (a replayed exchange whose client reply differed from the recording, …) */
  readonly flags: string[] = [];
  /** the client cancelled the request (notifications/cancelled) */
  cancelled = false;
  cassette: CassetteOutcome = 'none';
  // what the timeline shows beside the messages (set where they are known; the pipeline never reads them)
  /** the client's request before a breakpoint edited its arguments */
  originalRequest?: JsonRpcRequest;
  /** the source's answer before a breakpoint edit or a rule changed it (forwarded exchanges: upstreamResponse) */
  originalResponse?: JsonRpcResponse;
  /** ms from the start: request sent upstream, upstream's answer began */
  sentUpstreamMs?: number;
  firstByteMs?: number;
  /** ms from the start at which each message of `stream` arrived */
  readonly streamMs: number[] = [];
  http?: ExchangeEvent['http'];
  /** a hook changed the request (edited arguments at a breakpoint): what goes upstream is re-serialised */
  edited = false;
  /** how the upstream's answer travelled (JSON, or SSE with ids, retry, priming, an early close) — the cassette keeps it */
  framing?: Framing;
  /** ms from the start at which the answer arrived */
  answeredMs?: number;
  /** the upstream refused the POST at the HTTP level (an error with `id: null`) instead of answering the request */
  refusal?: { status: number; error: JsonRpcError };
  /** the client went away before the answer (not the upstream's doing) */
  clientGone = false;
  /** its Mcp-Session-Id names no session the proxy knows live: never issued through it, or ended (a server refuses it as unknown) */
  staleSession = false;
  /** the hooks that commit its answer ran before it went out (chain.ts respond); else they run when it finishes */
  committed = false;
  /** the rules' change to the answer, applied by the rule hook whichever source answers */
  rewrite?: Rewrite;
  /** per installed hook, what it needs of this exchange (set once the plan is made) */
  needs: readonly Need[] = [];
  /** the strongest need of any hook */
  need: Need = 'none';

  /** how it ended (set once: `end`), and why, in words, when it ended without an answer */
  private ended?: { final: ExchangeFinal; reason?: string };
  private onCancel?: Array<() => void>;

  /** the revision the exchange is made in: its `_meta`'s (2026-07-28), else its session's, else its header's */
  protocolVersion?: string;

  constructor(
    readonly request: JsonRpcRequest,
    readonly sessionId: string | undefined,
    /** the request's standard MCP headers, for the protocol checks of replay and the recorder's refusal filing */
    readonly headers: RequestHeaders = NO_HEADERS,
    sessionVersion?: string,
  ) {
    this.protocolVersion = metaVersion(request.params) ?? sessionVersion ?? headers.protocolVersion;
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
  addStreamed(message: JsonRpcMessage): void {
    this.stream.push(message);
    this.streamMs.push(this.elapsed());
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
    if (this.response) return this.end('error' in this.response ? 'error' : 'answered');
    if (this.clientGone) return this.end('client-gone', 'the client went away before the answer');
    const status = this.refusal?.status ?? this.http?.status ?? 0;
    const why = this.refusal ? `: ${this.refusal.error.error.message}` : '';
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
    return {
      seq: this.seq,
      sessionId: this.sessionId,
      method: this.request.method,
      tool,
      key: this.key,
      source: this.source,
      cassette: this.cassette,
      request: this.request,
      stream: this.stream,
      response: this.response,
      behavior: this.behavior,
      flags: this.flags.length ? this.flags : undefined,
      startedAt: this.startedAt,
      durationMs: this.elapsed(),
      final: this.ended?.final,
      finalReason: this.ended?.reason,
      original: this.original(),
      timing:
        this.sentUpstreamMs === undefined && this.streamMs.length === 0
          ? undefined
          : {
              sentUpstream: this.sentUpstreamMs,
              firstByte: this.firstByteMs,
              stream: this.streamMs.length ? this.streamMs : undefined,
            },
      http: this.http,
      protocolVersion: this.protocolVersion,
    };
  }

  /** the original request / answer, where a breakpoint or a rule changed what the client got (compared as JSON) */
  private original(): ExchangeEvent['original'] {
    const response = this.originalResponse ?? this.upstreamResponse;
    const changedResponse =
      response !== undefined &&
      response !== this.response &&
      JSON.stringify(response) !== JSON.stringify(this.response);
    if (!this.originalRequest && !changedResponse) return undefined;
    return {
      ...(this.originalRequest ? { request: this.originalRequest } : {}),
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

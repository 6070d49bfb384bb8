import type { JsonRpcMessage, JsonRpcRequest, JsonRpcResponse } from './jsonrpc.js';

/** Who answered an exchange. */
export type ExchangeSource = 'upstream' | 'cache' | 'proxy';

/** What happened to an exchange in the cassette. */
export type CassetteOutcome = 'recorded' | 'skipped' | 'hit' | 'miss' | 'none';

/**
 * How an exchange ended — set once, by the engine, where it ends: the client got a result (`answered`, a tool's own
 * error result included) or a JSON-RPC error (`error`); the upstream refused the HTTP request itself (`http-error`: a
 * 4xx/5xx with no answer to the request, e.g. a session the restarted server does not know); the client went away
 * before the answer (`client-gone`), cancelled the request (`cancelled`: notifications/cancelled), or the proxy's
 * upstream limit cut it (`timeout`). An exchange on the timeline always has one.
 */
export const EXCHANGE_FINALS = ['answered', 'error', 'http-error', 'client-gone', 'cancelled', 'timeout'] as const;
export type ExchangeFinal = (typeof EXCHANGE_FINALS)[number];

/** One client request and everything that belongs to it — the unit the timeline shows and the cassette stores. */
export interface ExchangeEvent {
  seq: number;
  sessionId?: string;
  method: string;
  /** tool name for tools/call */
  tool?: string;
  key: string;
  source: ExchangeSource;
  cassette: CassetteOutcome;
  request: JsonRpcRequest;
  /** messages the server streamed before its answer, and the client's replies to its requests */
  stream: JsonRpcMessage[];
  response?: JsonRpcResponse;
  /** tools/call under rules: relay, override or inject */
  behavior?: 'relay' | 'override' | 'inject';
  /** things worth a look, e.g. a replayed exchange whose client reply differed from the recording */
  flags?: string[];
  startedAt: number;
  durationMs: number;
  /** how it ended (absent only on exchanges from before this field: read them with `finalOf`) */
  final?: ExchangeFinal;
  /** why it ended without an answer, in words: the upstream's refusal, the limit that cut it, the cancel's reason */
  finalReason?: string;
  /**
   * What the client sent, or what the source (upstream or cassette) answered, before a breakpoint edit or a rule
   * (inject, the merged tools/list…) changed it; present only when something was changed.
   */
  original?: { request?: JsonRpcRequest; response?: JsonRpcResponse };
  /** when things happened, in ms from `startedAt` (absent where they did not happen: no upstream, no stream) */
  timing?: ExchangeTiming;
  /** the upstream's HTTP answer (status, headers with secrets redacted), for exchanges that went upstream */
  http?: { status: number; headers: Record<string, string | string[]> };
  /** MCP protocol version of the session (its MCP-Protocol-Version header, or what initialize agreed) */
  protocolVersion?: string;
  /** the client's request carried its own Authorization header: its scheme (`Bearer`), never the credentials */
  authorization?: string;
}

export interface ExchangeTiming {
  /** the request went upstream */
  sentUpstream?: number;
  /** the upstream's answer began (status and headers) */
  firstByte?: number;
  /** per message of `stream`, in order: when it arrived */
  stream?: number[];
}

/** How an exchange ended: its `final`, else (an exchange from an older file) what its answer says. */
export function finalOf(e: Pick<ExchangeEvent, 'final' | 'response' | 'http'>): ExchangeFinal | undefined {
  if (e.final) return e.final;
  if (e.response) return 'error' in e.response ? 'error' : 'answered';
  return e.http && e.http.status >= 400 ? 'http-error' : undefined;
}

/** The words of a final state without an answer, for a status column: "HTTP 404", "cancelled", "client gone", "timed out". */
export function finalLabel(e: Pick<ExchangeEvent, 'final' | 'response' | 'http'>): string | undefined {
  const final = finalOf(e);
  if (final === 'http-error') return `HTTP ${e.http?.status ?? 'error'}`;
  if (final === 'cancelled') return 'cancelled';
  if (final === 'client-gone') return 'client gone';
  if (final === 'timeout') return 'timed out';
  return undefined;
}

import type { JsonRpcMessage, JsonRpcRequest, JsonRpcResponse } from './jsonrpc.js';

/** Who answered an exchange. */
export type ExchangeSource = 'upstream' | 'cache' | 'proxy';

/** What happened to an exchange in the cassette. */
export type CassetteOutcome = 'recorded' | 'skipped' | 'hit' | 'miss' | 'none';

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
}

export interface ExchangeTiming {
  /** the request went upstream */
  sentUpstream?: number;
  /** the upstream's answer began (status and headers) */
  firstByte?: number;
  /** per message of `stream`, in order: when it arrived */
  stream?: number[];
}

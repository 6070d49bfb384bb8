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
}

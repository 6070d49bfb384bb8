import type { Framing, Timing } from '../../../../shared/cassette/entry.js';
import type { JsonRpcError, JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import { roundOf } from '../../cassette/keys.js';
import type { NewEntry } from '../../cassette/store.js';
import type { LiveExchange } from '../core/exchange.js';

// What a finished live exchange files in the cassette: its answer and the entry built from it (the recorder decides
// whether and where it is filed).

/** What a finished exchange answered, as the cassette files it; undefined: nothing to file. */
export interface Answer {
  result: Record<string, unknown>;
  error?: JsonRpcError['error'];
  unanswered: boolean;
  /** the answer as the upstream wrote it (its members' order goes to the framing) */
  response?: JsonRpcResponse;
}

export function answerOf(exchange: LiveExchange, cancelled: boolean): Answer | undefined {
  const { request } = exchange;
  const response = exchange.upstreamResponse ?? exchange.response;
  // a subscriptions/listen stream ends when the client closes it: its notifications are the answer
  // a call the client cancelled, never answered: replay leaves it unanswered too (the client's abort ends it)
  const unanswered =
    !response && ((request.method === 'subscriptions/listen' && exchange.stream.length > 0) || cancelled);
  if (!response && !unanswered) return undefined;
  if (request.params?.task !== undefined || (response && 'result' in response && 'task' in response.result))
    return undefined; // a CreateTaskResult is not the answer
  return {
    result: response && 'result' in response ? response.result : {},
    error: response && 'error' in response ? response.error : undefined,
    unanswered,
    response,
  };
}

/** The cassette entry of a live exchange (before redaction). */
export function entryOf(exchange: LiveExchange, answer: Answer, resultHash: string | undefined): NewEntry {
  const { request } = exchange;
  const { http, framing } = exchange.timeline;
  const isToolCall = request.method === 'tools/call';
  return {
    result: answer.result,
    ...(answer.error ? { error: answer.error } : {}),
    ...(answer.unanswered ? { unanswered: true } : {}),
    resultHash,
    name: isToolCall ? String(request.params?.name ?? '') : undefined,
    arguments: isToolCall ? (request.params?.arguments ?? {}) : undefined,
    ...(isToolCall ? roundOf(request.params) : {}),
    method: request.method,
    params: isToolCall ? undefined : stripMeta(request.params),
    protocolVersion: exchange.protocolVersion,
    status: http && http.status !== 200 ? http.status : undefined,
    framing: withEventIds(withEnvelope(framing, answer.response), exchange.timeline),
    timing: timingOf(exchange),
    stateless:
      request.method === 'initialize' && http !== undefined && http.headers['mcp-session-id'] === undefined
        ? true
        : undefined,
    recordedAt: new Date(exchange.startedAt).toISOString(),
    stream: exchange.stream.length ? exchange.stream.map((m) => m as unknown as Record<string, unknown>) : undefined,
  };
}

/** When the answer and each streamed message arrived (ms from the request), for --replay-timing. */
function timingOf(exchange: LiveExchange): Timing | undefined {
  const { answeredMs, streamMs } = exchange.timeline;
  if (answeredMs === undefined && streamMs.length === 0) return undefined;
  const timing: Timing = {};
  if (answeredMs !== undefined) timing.answerMs = Math.round(answeredMs);
  if (streamMs.length) timing.streamMs = streamMs.map((ms) => Math.round(ms));
  return timing;
}

/** params without _meta (progress tokens and trace ids are per-call noise) */
function stripMeta(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!params) return undefined;
  const { _meta, ...rest } = params;
  return rest;
}

/** The framing, with the SSE event ids the server sent (each streamed message's and the answer's), when it sent any. */
function withEventIds(framing: Framing | undefined, notes: LiveExchange['timeline']): Framing | undefined {
  if (framing?.type !== 'sse' || !framing.eventIds) return framing;
  const stream = notes.streamEventIds.some((id) => id !== undefined)
    ? notes.streamEventIds.map((id) => id ?? null)
    : undefined;
  const ids = {
    ...framing.ids,
    ...(stream ? { stream } : {}),
    ...(notes.answerEventId ? { answer: notes.answerEventId } : {}),
  };
  return Object.keys(ids).length ? { ...framing, ids } : framing;
}

/** The framing, with the order of the answer's members when the server did not write `jsonrpc, id, result|error`. */
function withEnvelope(framing: Framing | undefined, response: object | undefined): Framing | undefined {
  if (!framing || !response) return framing;
  const order = Object.keys(response);
  if (order[0] === 'jsonrpc' && order[1] === 'id' && order.length === 3) return framing;
  return { ...framing, envelope: order };
}

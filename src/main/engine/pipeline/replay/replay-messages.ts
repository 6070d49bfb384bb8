import type { CassetteEntry } from '../../../../shared/cassette/entry.js';
import {
  errorResponse,
  isRequest,
  isResponse,
  type JsonRpcMessage,
  type JsonRpcResponse,
} from '../../../../shared/jsonrpc.js';
import type { LiveExchange } from '../core/exchange.js';
import { REPLY_TIMEOUT_MS, waitForReply, type ReplaySession } from './replay-session.js';

/** Where a replayed exchange goes: the client's onmessage, in order. */
export type Deliver = (message: JsonRpcMessage) => void;

/** The recorded answer of an entry, to the live request's id. */
export function answerOf(exchange: LiveExchange, entry: CassetteEntry): JsonRpcResponse {
  const { error } = entry;
  return error
    ? errorResponse(exchange.request.id, error.code, error.message, error.data)
    : { jsonrpc: '2.0', id: exchange.request.id, result: entry.result };
}

/** A recorded notification as this client gets it: its progress token is the live request's (none asked: skipped). */
function live(message: JsonRpcMessage, liveToken: unknown): JsonRpcMessage | undefined {
  const params = (message as { params?: Record<string, unknown> }).params;
  if (!params || !('progressToken' in params)) return message;
  if (liveToken === undefined) return undefined;
  return { ...message, params: { ...params, progressToken: liveToken } } as JsonRpcMessage;
}

/**
 * Plays a recorded exchange back to an in-process client (the library's wrapTransport), at the message level: the streamed notifications (progress
 * tokens rewritten to the live request's), the server→client requests (sent with ids of this session; the client's
 * reply is awaited, at most REPLY_TIMEOUT_MS), then the answer, then what the server sent after it on its GET stream
 * (`followUps`: notifications, and requests asked of the client with ids of this session, their replies taken).
 */
export async function playEntry(
  exchange: LiveExchange,
  entry: CassetteEntry,
  state: ReplaySession,
  deliver: Deliver,
  /** the messages recorded after the exchange, made when the answer is out */
  followUps: () => readonly JsonRpcMessage[],
): Promise<void> {
  const token = exchange.progressToken;
  for (const message of (entry.stream ?? []) as unknown as JsonRpcMessage[]) {
    if (isResponse(message)) continue; // a recorded client reply: the live client gives its own
    if (!isRequest(message)) {
      const out = live(message, token);
      if (out) {
        exchange.addStreamed(out);
        deliver(out);
      }
      continue;
    }
    const outgoing = { ...message, id: `rewind-${state.nextRequestId++}` };
    exchange.addStreamed(outgoing);
    const reply = waitForReply(state, outgoing.id);
    deliver(outgoing);
    const got = await reply;
    if (got) exchange.addStreamed(got);
    else exchange.timeline.flags.push(`no reply to ${message.method} within ${REPLY_TIMEOUT_MS / 1000} s`);
  }
  const answer = answerOf(exchange, entry);
  exchange.respond(answer);
  deliver(answer);
  // as on a server stream, what followed the answer comes in a later turn: the client has taken the answer by then
  await new Promise((resolve) => setImmediate(resolve));
  for (const message of followUps()) deliver(message);
}

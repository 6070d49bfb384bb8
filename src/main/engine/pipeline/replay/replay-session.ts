import type { ServerResponse } from 'node:http';
import type { ReplayedEventIds } from './replay-event-ids.js';
import { isResponse, type JsonRpcId, type JsonRpcMessage, type JsonRpcResponse } from '../../../../shared/jsonrpc.js';

/** How long a replayed server→client request waits for the client's reply before the exchange goes on. */
export const REPLY_TIMEOUT_MS = 60_000;

/** How many replayed streams a session keeps for resumption. */
export const REPLAYED_STREAMS_KEPT = 32;

/** What the replay keeps of one client session (the replayer's own, as mitmproxy addons keep theirs). */
export interface ReplaySession {
  /** how many times each cursor key was served, so repeated calls walk the recorded sequence */
  readonly served: Map<string, number>;
  /** server→client requests the replay asked, awaiting the client's reply */
  readonly replies: Map<JsonRpcId, (reply: JsonRpcResponse) => void>;
  /** the id of the next server→client request it asks */
  nextRequestId: number;
  /** recorded notifications waiting for a server stream (GET) to be opened */
  readonly queued: JsonRpcMessage[];
  /** the SSE streams replayed lately, by stream id, so a client that dropped one can resume it (Last-Event-ID) */
  readonly played: Map<string, ReplayedStream>;
  /** the SSE event ids it gave (recorded ones or its own), to the stream and message each carried */
  readonly eventIds: ReplayedEventIds;
}

/** A replayed SSE stream, kept for a while: a client that dropped it gets what followed an event id again. */
export interface ReplayedStream {
  /** sends what followed recorded message `after` (-1: the priming event) */
  resume(after: number, res: ServerResponse): void;
  /** no longer kept: its event ids name nothing */
  forget(): void;
}

export const newReplaySession = (): ReplaySession => ({
  served: new Map(),
  replies: new Map(),
  nextRequestId: 0,
  queued: [],
  played: new Map(),
  eventIds: new Map(),
});

/** The client's reply to the replayed request `id`, or undefined once REPLY_TIMEOUT_MS went by. */
export function waitForReply(state: ReplaySession, id: string): Promise<JsonRpcResponse | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      state.replies.delete(id);
      resolve(undefined);
    }, REPLY_TIMEOUT_MS);
    timer.unref();
    state.replies.set(id, (reply) => {
      clearTimeout(timer);
      resolve(reply);
    });
  });
}

/** Replies to server→client requests the replay asked: handed to the waiting playback, never forwarded. */
export function takeReplies(state: ReplaySession, messages: JsonRpcMessage[]): number {
  let taken = 0;
  for (const m of messages) {
    if (!isResponse(m) || m.id === null) continue;
    const resolve = state.replies.get(m.id);
    if (!resolve) continue;
    state.replies.delete(m.id);
    resolve(m);
    taken++;
  }
  return taken;
}

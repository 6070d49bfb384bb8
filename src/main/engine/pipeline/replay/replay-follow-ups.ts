import type { ServerResponse } from 'node:http';
import type { CassetteEntry } from '../../../../shared/cassette/entry.js';
import type { JsonRpcMessage } from '../../../../shared/jsonrpc.js';
import type { CassetteStore } from '../../cassette/store.js';
import { followUpKey } from '../../cassette/keys.js';
import { sseEvent } from '../../http/sse.js';
import { waitForReply, type ReplaySession } from './replay-session.js';
import { pushToStreams } from '../upstream/server-stream.js';
import type { Session } from '../core/session.js';

/**
 * The follow-ups due after the `answer`-th answer of `key` in a session: what followed that answer when recorded.
 * Follow-ups are what the server sent on its GET stream after an exchange (`after_<key>` entries): notifications,
 * and requests to the client (roots/list after connect), which keep their recorded request in `stream`.
 */
export function followUpsDue(store: CassetteStore, key: string, answer: number): readonly CassetteEntry[] {
  return (store.lookup(followUpKey(key)) ?? []).filter((e) => (e.afterCall ?? 1) === answer);
}

/** A follow-up entry as the message the server sent (a request's id is given when it is sent: see asked()). */
export function followUpMessage(e: CassetteEntry): JsonRpcMessage {
  const asked = e.stream?.[0];
  const base = { jsonrpc: '2.0' as const, method: e.method ?? '', params: e.params };
  return asked && 'id' in asked ? { ...base, id: asked.id as string | number } : base;
}

/** A recorded request to the client, asked again with an id of this session; its reply is taken, never forwarded. */
export function asked(state: ReplaySession, message: JsonRpcMessage): JsonRpcMessage {
  if (!('id' in message) || !('method' in message)) return message;
  const id = `rewind-${state.nextRequestId++}`;
  void waitForReply(state, id);
  return { ...message, id };
}

/** Pushes the follow-ups of an exchange on the client's server streams, or queues them until one opens. */
export function pushFollowUps(session: Session, state: ReplaySession, entries: readonly CassetteEntry[]): void {
  setImmediate(() => {
    for (const entry of entries) {
      const message = followUpMessage(entry);
      if (session.streams.size === 0) state.queued.push(message);
      else pushToStreams(session, asked(state, message));
    }
  });
}

/** A server stream opened: what was replayed while none was open goes out on it, in order. */
export function flushQueued(state: ReplaySession | undefined, res: ServerResponse): void {
  if (state) for (const message of state.queued.splice(0)) res.write(sseEvent(asked(state, message)));
}

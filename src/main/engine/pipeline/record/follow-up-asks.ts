import { isResponse, type JsonRpcId, type JsonRpcMessage, type JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import type { Session } from '../core/session.js';

/** How long a server→client request on the GET stream waits for the client's reply before it is filed without one. */
export const ASK_REPLY_WAIT_MS = 60_000;
/** Requests a session may have waiting at once (a client that never answers does not grow the map). */
const MAX_WAITING = 64;

type File = (reply?: JsonRpcResponse) => void;

/**
 * The recorder's server→client requests met on a GET stream (server-everything's roots/list after connect), each held
 * until the client's reply comes so that it is filed with it: `verify` answers the live server's same request with
 * that reply, as the recorded client did. One that gets none (the client went, the wait ran out, the recording ends)
 * is filed alone, as before.
 */
export class AskedOnStream {
  private readonly waiting = new Map<Session, Map<JsonRpcId, { file: File; timer: NodeJS.Timeout }>>();

  ask(session: Session, id: JsonRpcId, file: File): void {
    let asked = this.waiting.get(session);
    if (!asked) this.waiting.set(session, (asked = new Map()));
    if (asked.size >= MAX_WAITING) this.settle(session, asked.keys().next().value as JsonRpcId);
    const timer = setTimeout(() => this.settle(session, id), ASK_REPLY_WAIT_MS);
    timer.unref();
    asked.set(id, { file, timer });
  }

  /** The client's messages of a POST: its replies to requests held here file them. */
  replied(session: Session, messages: readonly JsonRpcMessage[]): void {
    if (!this.waiting.has(session)) return;
    for (const m of messages) if (isResponse(m) && m.id !== null) this.settle(session, m.id, m);
  }

  /** Files every request still waiting, without a reply (the recording ends). */
  fileAll(): void {
    for (const [session, asked] of this.waiting) for (const id of [...asked.keys()]) this.settle(session, id);
  }

  private settle(session: Session, id: JsonRpcId, reply?: JsonRpcResponse): void {
    const asked = this.waiting.get(session);
    const held = asked?.get(id);
    if (!asked || !held) return;
    clearTimeout(held.timer);
    asked.delete(id);
    if (asked.size === 0) this.waiting.delete(session);
    held.file(reply);
  }
}

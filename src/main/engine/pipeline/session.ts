import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { isResponse, type JsonRpcId, type JsonRpcMessage, type JsonRpcResponse } from '../../../shared/jsonrpc.js';
import type { LiveExchange } from './exchange.js';

/** A downstream client session and the upstream session that serves it. */
export interface Session {
  /** the Mcp-Session-Id the client uses; undefined for clients of a stateless server */
  readonly id: string | undefined;
  /** upstream Mcp-Session-Id: undefined = no upstream session yet, null = the upstream is stateless */
  upstreamId: string | null | undefined;
  initParams?: Record<string, unknown>;
  protocolVersion?: string;
  /** the upstream handshake in progress (its initialize result) */
  connecting?: Promise<Record<string, unknown>>;
  /** replay: how many times each key was served, so repeated calls walk the recorded sequence */
  readonly replayCursor: Map<string, number>;
  /** server→client requests seen on a live stream, awaiting the client's reply */
  readonly awaitingReplies: Map<JsonRpcId, LiveExchange>;
  /** server streams (GET) the proxy holds open for this client, to push notifications */
  readonly streams: Set<ServerResponse>;
  /** replayed server→client requests awaiting the client's reply (stream-replay.ts) */
  readonly pendingReplies: Map<JsonRpcId, (reply: JsonRpcResponse) => void>;
  /** ids of server→client requests the proxy sends itself */
  nextServerRequestId: number;
  /** the key of the exchange this session finished last: server notifications that follow are filed after it */
  lastKey?: string;
  /** replay: server notifications waiting for a server stream (GET) to be opened */
  readonly pendingPush: JsonRpcMessage[];
  /**
   * POST streams the server closed early (SSE polling, 2025-11-25), by the id of their last event: the client resumes
   * with GET + Last-Event-ID and the rest of the exchange (more notifications, the answer) arrives there.
   */
  readonly resumable: Map<string, Resumable>;
  /** replay: the SSE streams replayed lately, by stream id, so a client that dropped one can resume it (Last-Event-ID) */
  readonly replayed: Map<string, ReplayedStream>;
}

/** A replayed SSE stream, kept for a while: a client that dropped it gets what followed an event id again. */
export interface ReplayedStream {
  resume(afterEvent: number, res: ServerResponse): void;
}

/** How many replayed streams a session keeps for resumption. */
export const REPLAYED_STREAMS_KEPT = 32;

/** How long a POST stream the server closed early waits for its client to resume it before its exchanges end unanswered. */
export const RESUME_WAIT_MS = 5 * 60_000;

/** A stream closed before its answer, waiting for the client to resume it. */
export interface Resumable {
  /** the exchanges answered on the resumed stream */
  exchanges: LiveExchange[];
  /** hands a finished exchange to the hooks (with the HTTP detail of the stream it began on) */
  finish: (exchange: LiveExchange) => Promise<void>;
  /** replay: plays the rest of the recorded stream on the resumed one */
  replay?: (res: ServerResponse) => Promise<void>;
  /** gives up waiting (the exchanges finish unanswered) */
  timer: NodeJS.Timeout;
}

/** Clients that vanish without DELETE (or send random ids) must not grow memory without bound. */
export const MAX_SESSIONS = 10_000;

export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  private readonly stateless: Session = newSession(undefined, null);
  /** ids the client ended (DELETE): a server answers them 404 from then on */
  private readonly ended = new Set<string>();

  /** The session of an id, if the registry holds it (no session is made up). */
  find(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** Was this id ended by its client (DELETE)? */
  wasEnded(id: string): boolean {
    return this.ended.has(id);
  }

  /** The session for a request's Mcp-Session-Id; an id we have not seen (e.g. after a proxy restart) gets one. */
  get(id: string | undefined, upstreamIdIfNew: string | null | undefined): Session {
    if (id === undefined) return this.stateless;
    let session = this.sessions.get(id);
    if (!session) {
      session = newSession(id, upstreamIdIfNew);
      this.add(session);
    }
    return session;
  }

  /** A new session with an id of the proxy's own (replay and hybrid answer initialize themselves). */
  create(upstreamId: string | null | undefined): Session {
    const session = newSession(randomUUID(), upstreamId);
    this.add(session);
    return session;
  }

  /** Registers a session whose id came from the upstream (live initialize): the client sees the upstream's id. */
  adopt(id: string, upstreamId: string | null): Session {
    const session = newSession(id, upstreamId);
    this.add(session);
    return session;
  }

  /** Inserts a session, dropping the oldest one beyond MAX_SESSIONS (Map keeps insertion order). */
  private add(session: Session): void {
    this.sessions.set(session.id as string, session);
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
  }

  /** every session, the shared stateless one included */
  *all(): IterableIterator<Session> {
    yield this.stateless;
    yield* this.sessions.values();
  }

  delete(id: string): void {
    this.sessions.delete(id);
  }

  /** The client ended the session (DELETE): it is dropped, and its id remembered as ended. */
  end(id: string): void {
    const session = this.sessions.get(id);
    if (session) for (const r of session.resumable.values()) clearTimeout(r.timer);
    this.sessions.delete(id);
    this.ended.add(id);
    if (this.ended.size > MAX_SESSIONS) this.ended.delete(this.ended.values().next().value as string);
  }

  get size(): number {
    return this.sessions.size;
  }
}

function newSession(id: string | undefined, upstreamId: string | null | undefined): Session {
  return { id, upstreamId, replayCursor: new Map(), awaitingReplies: new Map(), streams: new Set(), pendingReplies: new Map(), nextServerRequestId: 0, pendingPush: [], resumable: new Map(), replayed: new Map() };
}

/** Replies to server→client requests the proxy replayed itself: handed to the waiting replay, never forwarded. */
export function takeReplayReplies(session: Session, messages: JsonRpcMessage[]): number {
  if (session.pendingReplies.size === 0) return 0;
  let taken = 0;
  for (const m of messages) {
    if (!isResponse(m) || m.id === null) continue;
    const resolve = session.pendingReplies.get(m.id);
    if (!resolve) continue;
    session.pendingReplies.delete(m.id);
    resolve(m);
    taken++;
  }
  return taken;
}

/** Client replies to server→client requests become part of the exchange that caused them. */
export function noteReplies(session: Session, messages: JsonRpcMessage[]): void {
  if (session.awaitingReplies.size === 0) return;
  for (const m of messages) {
    if (!isResponse(m) || m.id === null) continue;
    const exchange = session.awaitingReplies.get(m.id);
    if (!exchange) continue;
    exchange.addStreamed(m);
    session.awaitingReplies.delete(m.id);
  }
}

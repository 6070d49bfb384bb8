import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isNotification, isResponse, type JsonRpcId, type JsonRpcMessage } from '../../../../shared/jsonrpc.js';
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
  /** server→client requests seen on a live stream, awaiting the client's reply */
  readonly awaitingReplies: Map<JsonRpcId, LiveExchange>;
  /** the client's requests in flight, by id, while their POST is open: a notifications/cancelled names one */
  readonly inFlight: Map<JsonRpcId, LiveExchange>;
  /** server streams (GET) the proxy holds open for this client, to push notifications */
  readonly streams: Set<ServerResponse>;
  /** when the client last sent anything on this session (ms since the epoch) */
  lastActive: number;
  /** requests and server streams of this session still open: a busy session is never idle */
  busy: number;
  /**
   * POST streams closed before their answer (SSE polling, 2025-11-25; a replayed stream closed where the recorded
   * server closed it), by the id of their last event: the client resumes with GET + Last-Event-ID and the rest of the
   * exchange (more notifications, the answer) arrives there. Whoever closed the stream says how it resumes.
   */
  readonly resumable: Map<string, Resumable>;
  /** ids of requests the client cancelled (notifications/cancelled) that have not finished yet */
  cancelled?: Set<JsonRpcId>;
}

/** How long a POST stream closed before its answer waits for its client to resume it before its exchanges end unanswered. */
export const RESUME_WAIT_MS = 5 * 60_000;

/** A stream closed before its answer, waiting for the client to resume it. */
export interface Resumable {
  /** can it be resumed now (a live stream needs its upstream) */
  ready(): boolean;
  /** the client's GET with Last-Event-ID: the rest of the stream goes there */
  resume(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** gives up waiting (the exchanges finish unanswered) */
  timer: NodeJS.Timeout;
}

/** Clients that vanish without DELETE (or send random ids) must not grow memory without bound. */
export const MAX_SESSIONS = 10_000;
/** how long a client session may stay silent before the proxy ends it (and its upstream session, its stdio child) */
export const DEFAULT_SESSION_IDLE_MS = 10 * 60_000;
/** a session used within this long is not moved to the back of the eviction order again (hot sessions cost nothing) */
const TOUCH_MS = 1000;

/**
 * The client sessions of an endpoint, in least-recently-used order. Bounded: beyond MAX_SESSIONS the least recently
 * used one is ended, and `reapIdle` ends those idle longer than a period — `onEnd` ends what a session holds (its
 * upstream session, hence a stdio child; its server streams).
 */
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

  constructor(
    private readonly onEnd: (session: Session, why: 'idle' | 'evicted') => void = () => {},
    private readonly max = MAX_SESSIONS,
  ) {}

  /** The session for a request's Mcp-Session-Id; an id we have not seen (e.g. after a proxy restart) gets one. */
  get(id: string | undefined, upstreamIdIfNew: string | null | undefined): Session {
    if (id === undefined) return this.stateless;
    let session = this.sessions.get(id);
    if (!session) {
      session = newSession(id, upstreamIdIfNew);
      this.add(session);
    } else this.touch(session);
    return session;
  }

  /** The session is in use now: it moves to the back of the eviction order. */
  private touch(session: Session): void {
    const now = Date.now();
    if (now - session.lastActive < TOUCH_MS) return;
    session.lastActive = now;
    this.sessions.delete(session.id as string);
    this.sessions.set(session.id as string, session);
  }

  /**
   * The session a request comes in on (`get`), held open until `res` closes; the client replies among `messages`
   * join the exchanges whose server→client requests they answer.
   */
  enter(
    id: string | undefined,
    upstreamIdIfNew: string | null | undefined,
    res: { once(event: 'close', listener: () => void): unknown },
    messages?: JsonRpcMessage[],
  ): Session {
    const session = this.get(id, upstreamIdIfNew);
    this.hold(session, res);
    if (messages && session.awaitingReplies.size > 0) noteReplies(session, messages);
    if (messages) noteCancelled(session, messages);
    return session;
  }

  /** Counts a request or stream of the session as open until `res` closes (a busy session is never reaped). */
  hold(session: Session, res: { once(event: 'close', listener: () => void): unknown }): void {
    if (session.id === undefined) return;
    session.busy++;
    res.once('close', () => {
      session.busy--;
      session.lastActive = Date.now();
    });
  }

  /** Ends the sessions nobody used for `idleMs` and that have nothing open; answers how many. */
  reapIdle(idleMs: number, now = Date.now()): number {
    let reaped = 0;
    for (const session of [...this.sessions.values()]) {
      if (now - session.lastActive < idleMs || session.busy > 0 || session.streams.size > 0) continue;
      this.end(session.id as string);
      this.onEnd(session, 'idle');
      reaped++;
    }
    return reaped;
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

  /** Inserts a session, ending the least recently used one beyond the cap (the Map's first). */
  private add(session: Session): void {
    this.sessions.set(session.id as string, session);
    if (this.sessions.size <= this.max) return;
    const oldest = this.sessions.values().next().value as Session;
    this.end(oldest.id as string);
    this.onEnd(oldest, 'evicted');
  }

  /** every session, the shared stateless one included */
  *all(): IterableIterator<Session> {
    yield this.stateless;
    yield* this.sessions.values();
  }

  delete(id: string): void {
    this.sessions.delete(id);
  }

  /** The client ended the session (DELETE), or the proxy did (idle, evicted): it is dropped, and its id remembered as ended (404 from then on, as a server answers a session it ended). */
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

  /**
   * An initialize answered here (the cassette, the rules, the proxy itself): its session takes the negotiated
   * revision, and its id goes to the client (the headers answered) — unless no session came of it (an error, or a
   * recorded server without sessions).
   */
  initializedHere(exchange: LiveExchange, session: Session | undefined, stateless: boolean): Record<string, string> {
    const result = exchange.response && 'result' in exchange.response ? exchange.response.result : undefined;
    if (!session?.id) return {};
    if (!result || stateless) {
      this.delete(session.id); // no session came of it
      return {};
    }
    session.protocolVersion = String(result.protocolVersion ?? '');
    exchange.negotiated(session.protocolVersion);
    return { 'mcp-session-id': session.id };
  }
}

function newSession(id: string | undefined, upstreamId: string | null | undefined): Session {
  return {
    id,
    upstreamId,
    awaitingReplies: new Map(),
    inFlight: new Map(),
    streams: new Set(),
    resumable: new Map(),
    lastActive: Date.now(),
    busy: 0,
  };
}

/** Requests kept as cancelled at most, per session (a client that cancels what already finished never grows it further). */
const CANCELLED_KEPT = 256;

/** The client cancelled requests of its own: noted, so the exchange that ends unanswered is known as cancelled. */
function noteCancelled(session: Session, messages: JsonRpcMessage[]): void {
  for (const m of messages) {
    if (!('method' in m) || m.method !== 'notifications/cancelled' || 'id' in m) continue;
    const id = (m.params as { requestId?: unknown } | undefined)?.requestId;
    if (typeof id !== 'string' && typeof id !== 'number') continue;
    session.cancelled ??= new Set();
    if (session.cancelled.size >= CANCELLED_KEPT)
      session.cancelled.delete(session.cancelled.values().next().value as JsonRpcId);
    session.cancelled.add(id);
  }
}

/** Did the client cancel this request (forgotten once asked: the exchange has finished)? */
export function wasCancelled(session: Session | undefined, id: JsonRpcId): boolean {
  return session?.cancelled?.delete(id) === true;
}

/** Client replies to server→client requests become part of the exchange that caused them. */
function noteReplies(session: Session, messages: JsonRpcMessage[]): void {
  for (const m of messages) {
    if (!isResponse(m) || m.id === null) continue;
    const exchange = session.awaitingReplies.get(m.id);
    if (!exchange) continue;
    exchange.addStreamed(m);
    session.awaitingReplies.delete(m.id);
  }
}

/** Notes a session's requests in flight until their POST closes (stateless clients share no ids: not theirs). */
export function trackInFlight(
  session: Session | undefined,
  exchanges: LiveExchange[],
  res: { once(event: 'close', listener: () => void): unknown },
): void {
  if (session?.id === undefined || exchanges.length === 0) return;
  for (const exchange of exchanges) session.inFlight.set(exchange.request.id, exchange);
  res.once('close', () => {
    for (const exchange of exchanges)
      if (session.inFlight.get(exchange.request.id) === exchange) session.inFlight.delete(exchange.request.id);
  });
}

/** The client's notifications/cancelled among `messages` end the exchanges they name, cancelled (they go upstream as well). */
export function noteCancels(session: Session, messages: JsonRpcMessage[]): void {
  if (session.inFlight.size === 0) return;
  for (const m of messages) {
    if (!isNotification(m) || m.method !== 'notifications/cancelled') continue;
    const params = m.params as { requestId?: JsonRpcId; reason?: unknown } | undefined;
    const exchange = params?.requestId === undefined ? undefined : session.inFlight.get(params.requestId);
    exchange?.cancel(typeof params?.reason === 'string' ? params.reason : undefined);
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RefusalKind } from '../../../shared/cassette/entry.js';
import { ErrorCode, type JsonRpcMessage, type JsonRpcRequest } from '../../../shared/jsonrpc.js';
import type { HttpError } from '../errors.js';
import { readJsonRpc } from '../http/body.js';
import { metaVersion } from '../../../shared/mcp-protocol.js';
import { sendJson } from '../http/sse.js';
import { mcpHead, type McpHead } from '../http/url.js';
import type { Log } from '../log.js';
import type { HookChain } from './core/chain.js';
import type { CassetteSource, Planned, Post, RuleSource, Stage, Upstream } from './core/contract.js';
import { LiveExchange } from './core/exchange.js';
import { planStream } from './core/plan.js';
import { relayStream, resumableFor } from './upstream/stream-relay.js';
import { openOwnedStream, pushToStreams } from './upstream/server-stream.js';
import { noteCancels, SessionRegistry, trackInFlight, type Session } from './core/session.js';
import { refuseStaleInit, refuseWhole, staleSession, type GateFacts } from './gate.js';
import { Sources } from './sources.js';

export interface McpEndpointOptions {
  /** the upstream server; undefined in replay and for a session without one (may change: setUpstream) */
  upstream?: Upstream;
  /** the hooks of the mode, in order (endpoint-factory.ts) */
  hooks: HookChain;
  /** the rules, when the proxy has some: they answer or rewrite */
  rules?: RuleSource;
  /** the cassette, when the mode replays from one */
  cassette?: CassetteSource;
  /**
   * true: the proxy issues the client's Mcp-Session-Id and maps it onto upstream sessions (cassette-answered
   * initialize, sessions that survive upstream restarts). false: the upstream's id is handed through.
   */
  ownSessions: boolean;
  /** serverInfo of the initialize the proxy answers itself */
  serverInfo: { name: string; version: string };
  /** client sessions idle this long (nothing sent, nothing open) are ended, upstream too; 0 or undefined: never */
  sessionIdleMs?: number;
  /** client sessions held at once (default MAX_SESSIONS); beyond, the least recently used one is ended */
  maxSessions?: number;
  log: Log;
}

/**
 * The MCP endpoint (Streamable HTTP) in front of the upstream and/or the cassette, for one proxy or session: it finds
 * a POST's session, asks the answer sources who answers each request (sources.ts, plan.ts) and hands the POST to the
 * source that delivers it, with the mode's hooks called along the way (chain.ts). It knows no mode and no source.
 */
export class McpEndpoint implements Stage {
  readonly sessions: SessionRegistry;
  readonly hooks: HookChain;
  readonly log: Log;
  /** the upstream server, if any (it may change: setUpstream) */
  upstream?: Upstream;
  private readonly sources: Sources;
  private readonly reaper?: NodeJS.Timeout;

  constructor(private readonly options: McpEndpointOptions) {
    this.hooks = options.hooks;
    this.log = options.log;
    this.upstream = options.upstream;
    this.sessions = new SessionRegistry((session, why) => this.endSession(session, why), options.maxSessions);
    this.sources = new Sources(this, this.sessions, options.ownSessions, options);
    const idle = options.sessionIdleMs;
    if (idle)
      this.reaper = setInterval(() => this.sessions.reapIdle(idle), Math.max(50, Math.min(idle / 4, 60_000))).unref();
  }

  /**
   * A session ended by the proxy (idle, or evicted at the cap): its server streams end and its upstream session is
   * closed (DELETE), which ends a stdio upstream's child. A client that comes back gets 404 and initializes again.
   */
  private endSession(session: Session, why: 'idle' | 'evicted'): void {
    for (const stream of session.streams) stream.end();
    const upstreamId = session.upstreamId;
    this.log(
      `session ${session.id} ${why === 'idle' ? 'idle' : 'evicted (too many sessions)'}: ended${upstreamId ? ', upstream session closed' : ''}`,
      'info',
    );
    if (upstreamId) void this.upstream?.endSession(upstreamId, session.protocolVersion);
  }

  get ownSessions(): boolean {
    return this.options.ownSessions;
  }

  /** Switches (or detaches) the upstream: every session reconnects lazily to the new one. */
  setUpstream(upstream: Upstream | undefined): void {
    this.upstream?.close();
    this.upstream = upstream;
    for (const session of this.sessions.all()) session.upstreamId = undefined;
  }

  /** Sends a notification to every client holding a server stream (GET) — e.g. tools/list_changed. */
  notifyAll(method: string, params?: Record<string, unknown>): number {
    let reached = 0;
    for (const session of this.sessions.all())
      reached += pushToStreams(session, { jsonrpc: '2.0', method, ...(params ? { params } : {}) });
    return reached;
  }

  /** No hook wants anything and the upstream's sessions are handed through: a POST can be piped unread. */
  get pipes(): boolean {
    return this.upstream !== undefined && !this.options.ownSessions && !this.hooks.active();
  }

  /**
   * A POST that is not valid JSON-RPC (`kind`; `message` is the proxy's own words for it): with a live upstream it is
   * passed on unparsed and the server judges it (its refusal is filed by the recorder); with none, replay refuses it
   * the way the recorded server did.
   */
  private async invalid(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    kind: RefusalKind,
    message: string,
  ): Promise<void> {
    const indexing = this.sources.prepare();
    if (indexing) await indexing;
    const id = mcpHead(req).sessionId;
    const upstreamId =
      id === undefined ? undefined : this.options.ownSessions ? this.sessions.find(id)?.upstreamId : id;
    return this.sources.invalid(req, res, body, kind, message, upstreamId);
  }

  /** A POST: piped unread when no hook wants it; else read as JSON-RPC, planned and handed to the source that delivers it. */
  async post(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.pipes) return this.sources.pipe(req, res);
    const read = await readJsonRpc(req);
    if ('error' in read) return this.unread(req, res, read);
    const indexing = this.sources.prepare(); // the cassette is still being indexed: what it holds decides from here on
    if (indexing) await indexing;
    const { body, parsed, messages, requests } = read;
    const head = mcpHead(req);
    const initRequest = requests.find((r) => r.method === 'initialize');
    const stale = staleSession(head, this.sessions); // before the session is entered: a mirrored id it did not know is made
    if (initRequest) {
      const refused = refuseStaleInit(head, this.gateFacts());
      if (refused) return sendJson(res, refused.status, refused.response);
    }
    const session = initRequest
      ? this.initSession(initRequest)
      : this.postSession(head, res, messages, requests, Array.isArray(parsed));
    if (session === ANSWERED) return;
    if (session) noteCancels(session, messages);
    // the client's replies to the server's requests: a breakpoint may hold, edit or fail them before they go upstream
    const repliesEdited =
      session !== undefined && requests.length < messages.length && this.hooks.readsReplies()
        ? await this.hooks.replies(messages, session, res)
        : false;
    const made = this.exchangesOf(head, res, requests, session);
    const exchanges = made instanceof Promise ? await made : made;
    if (stale) for (const exchange of exchanges) exchange.delivery.staleSession = true;
    const planSession = session ?? this.sessions.get(undefined, null);
    const single = exchanges.length === 1 && !Array.isArray(parsed);
    const planned: Planned[] = [];
    for (const exchange of exchanges) {
      const plan = this.sources.plan(exchange, planSession, single);
      this.hooks.needs(exchange);
      planned.push({ exchange, plan });
    }
    const init = initRequest ? exchanges.find((e) => e.request === initRequest) : undefined;
    const post: Post = {
      stage: this,
      sessions: this.sessions,
      req,
      res,
      head,
      body,
      parsed,
      messages,
      session,
      planSession,
      init,
      planned,
      repliesEdited,
    };
    return this.sources.deliver(post);
  }

  /** An initialize: an owned session is the proxy's from the start; a mirrored one is born from the upstream's answer. */
  private initSession(init: JsonRpcRequest): Session | undefined {
    if (!this.options.ownSessions) return undefined;
    const session = this.sessions.create(undefined);
    session.initParams = init.params;
    return session;
  }

  /**
   * The session of a POST that is not an initialize — or ANSWERED: refused as a whole (an ended or unknown session,
   * a protocol version the recorded server refused), or nothing but replies a source asked for (202).
   */
  private postSession(
    head: McpHead,
    res: ServerResponse,
    messages: JsonRpcMessage[],
    requests: JsonRpcRequest[],
    batch: boolean,
  ): Session | typeof ANSWERED {
    // a 2026-07-28 request carries its revision in _meta and has no session (an Mcp-Session-Id is ignored)
    const modern = requests.length > 0 && requests.every((r) => metaVersion(r.params) !== undefined);
    const refused = refuseWhole(head, modern, this.gateFacts(), 'POST', batch);
    if (refused) {
      sendJson(res, refused.status, refused.response);
      return ANSWERED;
    }
    const session = modern
      ? this.sessions.enter(undefined, null, res, messages)
      : this.enterSession(head, res, messages);
    const replies = this.sources.takeReplies(session, messages);
    if (replies === 0 || replies < messages.length) return session;
    res.writeHead(202).end();
    return ANSWERED;
  }

  /**
   * The exchanges of a POST's requests, once the sources can offer for them; a breakpoint may pause or edit each
   * (then, or while the cassette is indexed, a promise of them).
   */
  private exchangesOf(
    head: McpHead,
    res: ServerResponse,
    requests: JsonRpcRequest[],
    session: Session | undefined,
  ): LiveExchange[] | Promise<LiveExchange[]> {
    const exchanges = requests.map((r) => new LiveExchange(r, session?.id, head, session?.protocolVersion));
    trackInFlight(session, exchanges, res);
    const preparing = this.sources.prepare(exchanges); // the cassette's loose keys are still being indexed
    // hooks before the plan (a breakpoint pauses, edits or fails a call): every request of the POST at once
    const intercept = (): LiveExchange[] | Promise<LiveExchange[]> =>
      this.hooks.intercepts()
        ? Promise.all(exchanges.map((e) => this.hooks.request(e, session, res))).then(() => exchanges)
        : exchanges;
    return preparing ? preparing.then(intercept) : intercept();
  }

  /** A POST that is not JSON-RPC: a 400 goes to `invalid`; other refusals (415, 413) are answered here. */
  private unread(req: IncomingMessage, res: ServerResponse, read: { body?: Buffer; error: HttpError }): Promise<void> {
    const { body, error } = read;
    // not JSON-RPC: the server behind judges it (live), or replay refuses it the way the recorded server did
    if (body !== undefined && error.status === 400)
      return this.invalid(
        req,
        res,
        body,
        error.code === ErrorCode.ParseError ? 'parse-error' : 'invalid-message',
        error.message,
      );
    sendJson(res, error.status, error.toResponse(null), error.status === 413 ? { connection: 'close' } : {});
    return Promise.resolve();
  }

  async get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const indexing = this.sources.prepare(); // the cassette is still being indexed
    if (indexing) await indexing;
    const head = mcpHead(req);
    const refused = refuseWhole(head, false, this.gateFacts(), 'GET');
    if (refused) return sendJson(res, refused.status, refused.response);
    const session = this.enterSession(head, res);
    const { lastEventId } = head;
    if (lastEventId !== undefined) {
      // a POST stream closed before its answer, resumed: the rest of it comes here (relayed, or replayed)
      const resuming = session.resumable.size > 0 ? resumableFor(session, lastEventId, true) : undefined;
      if (resuming?.ready()) return resumableFor(session, lastEventId)!.resume(req, res);
      // a stream the client dropped: what followed its last event comes again
      if (this.sources.redeliver(session, lastEventId, res)) return;
    }
    const plan = planStream({
      upstreamSession: this.upstream !== undefined && session.upstreamId !== undefined,
      upstreamLater: this.upstream !== undefined && this.options.ownSessions && session.upstreamId === undefined,
      pushes: this.sources.pushes(),
      observed: this.hooks.observesStreams(),
    });
    if (plan.kind === 'own')
      return openOwnedStream(this, req, res, session, plan.upstream, (stream) =>
        this.sources.streamOpened(session, stream),
      );
    if (plan.kind === 'relay') return relayStream(this, req, res, 'GET', session, plan.tap);
    res.writeHead(405, { allow: 'POST, DELETE' }).end();
  }

  async delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const indexing = this.sources.prepare();
    if (indexing) await indexing;
    const head = mcpHead(req);
    const refused = refuseWhole(head, false, this.gateFacts(), 'DELETE');
    if (refused) return sendJson(res, refused.status, refused.response);
    const id = head.sessionId;
    const session = this.sessions.get(id, this.mirroredId(id));
    if (id) this.sessions.end(id);
    for (const exchange of session.inFlight.values()) exchange.delivery.clientGone = true; // its client ended the session under it
    for (const stream of session.streams) stream.end();
    if (this.options.ownSessions || !this.upstream) {
      if (session.upstreamId) void this.upstream?.endSession(session.upstreamId, session.protocolVersion);
      res.writeHead(200).end();
      return;
    }
    await relayStream(this, req, res, 'DELETE', session);
  }

  private gateFacts(): GateFacts {
    return {
      sessions: this.sessions,
      sources: this.sources,
      ownSessions: this.options.ownSessions,
      upstream: this.upstream !== undefined,
    };
  }

  /** The session of a request's Mcp-Session-Id (one the proxy never saw is made: it came after a restart), held open until `res` closes. */
  private enterSession(head: McpHead, res: ServerResponse, messages?: JsonRpcMessage[]): Session {
    return this.sessions.enter(head.sessionId, this.mirroredId(head.sessionId), res, messages);
  }

  /** The upstream session of a client session new to the registry: the client's own id when the upstream's are handed through. */
  private mirroredId(id: string | undefined): string | null | undefined {
    return this.options.ownSessions ? undefined : (id ?? null);
  }

  /** Upstream sessions the proxy opened itself end with it (mirrored ones belong to their clients). */
  async close(): Promise<void> {
    clearInterval(this.reaper);
    const ending: Array<Promise<void>> = [];
    for (const session of this.sessions.all()) {
      for (const stream of session.streams) stream.end();
      if (this.options.ownSessions && session.upstreamId)
        ending.push(this.upstream?.endSession(session.upstreamId, session.protocolVersion) ?? Promise.resolve());
    }
    await Promise.all(ending);
    this.upstream?.close();
  }
}

/** A POST answered before its requests are planned (refused as a whole, or replies only). */
const ANSWERED = Symbol('answered');

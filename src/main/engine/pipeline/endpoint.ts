import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RefusalKind } from '../../../shared/cassette/entry.js';
import { errorResponse, isRequest, isResponse, type JsonRpcMessage, type JsonRpcResponse } from '../../../shared/jsonrpc.js';
import { metaVersion } from '../../../shared/mcp-protocol.js';
import { sendJson, sendMessages } from '../http/sse.js';
import { header } from '../http/url.js';
import type { Log } from '../log.js';
import type { HookChain } from './chain.js';
import type { Plan, RuleOffer, Stage, Upstream } from './contract.js';
import { LiveExchange, waits } from './exchange.js';
import { localAnswer, planRequest, planStream } from './plan.js';
import { passRaw, pipePost } from './pipe.js';
import { answerUpstreamDown, relayPost } from './relay.js';
import { relayStream, resumableFor } from './stream-relay.js';
import { openOwnedStream, pushToStreams } from './server-stream.js';
import { noteReplies, SessionRegistry, takeReplayReplies, type Session } from './session.js';
import { refuseStaleInit, refuseWhole, replayedInit, requestHeaders, staleSession, type GateFacts } from './gate.js';
import { parseReplayEventId, replayAnswer, type ReplaySpeed } from './replay-delivery.js';
import { openUpstreamSession } from './upstream-session.js';

export interface EndpointOptions {
  /** the upstream server; undefined in replay and for a session without one (may change: setUpstream) */
  upstream?: Upstream;
  /** the hooks of the mode, in order (endpoint-factory.ts) */
  hooks: HookChain;
  /**
   * true: the proxy issues the client's Mcp-Session-Id and maps it onto upstream sessions (cassette-answered
   * initialize, sessions that survive upstream restarts). false: the upstream's id is handed through.
   */
  ownSessions: boolean;
  /** rules are installed: with no other source the proxy answers initialize, ping and tools/list itself */
  synthesize: boolean;
  /** serverInfo of the initialize the proxy answers itself */
  serverInfo: { name: string; version: string };
  /** --replay-timing: recorded answers wait out the recorded delays ÷ this speed (undefined: at once) */
  replaySpeed?: ReplaySpeed;
  /** client sessions idle this long (nothing sent, nothing open) are ended, upstream too; 0 or undefined: never */
  sessionIdleMs?: number;
  /** client sessions held at once (default MAX_SESSIONS); beyond, the least recently used one is ended */
  maxSessions?: number;
  log: Log;
}

interface LocalAnswer {
  exchange: LiveExchange;
  delayMs: number;
  /** the HTTP status of a protocol-level answer (a refusal), when not 200 */
  status?: number;
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The MCP endpoint (Streamable HTTP) in front of the upstream and/or the cassette, for one proxy or session: it asks
 * the plan who answers each request (plan.ts), then does it — answers here, relays upstream (relay.ts), replays a
 * recorded stream (stream-replay.ts) — with the mode's hooks called along the way (chain.ts).
 */
export class McpEndpoint implements Stage {
  readonly sessions: SessionRegistry;
  readonly hooks: HookChain;
  readonly log: Log;
  private currentUpstream?: Upstream;
  private readonly reaper?: NodeJS.Timeout;

  constructor(private readonly options: EndpointOptions) {
    this.hooks = options.hooks;
    this.log = options.log;
    this.currentUpstream = options.upstream;
    this.sessions = new SessionRegistry((session, why) => this.endSession(session, why), options.maxSessions);
    const idle = options.sessionIdleMs;
    if (idle) this.reaper = setInterval(() => this.sessions.reapIdle(idle), Math.max(50, Math.min(idle / 4, 60_000))).unref();
  }

  /**
   * A session ended by the proxy (idle, or evicted at the cap): its server streams end and its upstream session is
   * closed (DELETE), which ends a stdio upstream's child. A client that comes back gets 404 and initializes again.
   */
  private endSession(session: Session, why: 'idle' | 'evicted'): void {
    for (const stream of session.streams) stream.end();
    const upstreamId = session.upstreamId;
    this.log(`session ${session.id} ${why === 'idle' ? 'idle' : 'evicted (too many sessions)'}: ended${upstreamId ? ', upstream session closed' : ''}`, 'info');
    if (upstreamId) void this.currentUpstream?.endSession(upstreamId, session.protocolVersion);
  }

  get upstream(): Upstream | undefined {
    return this.currentUpstream;
  }

  get ownSessions(): boolean {
    return this.options.ownSessions;
  }

  /** Switches (or detaches) the upstream: every session reconnects lazily to the new one. */
  setUpstream(upstream: Upstream | undefined): void {
    this.currentUpstream?.close();
    this.currentUpstream = upstream;
    for (const session of this.sessions.all()) session.upstreamId = undefined;
  }

  /** Sends a notification to every client holding a server stream (GET) — e.g. tools/list_changed. */
  notifyAll(method: string, params?: Record<string, unknown>): number {
    let reached = 0;
    for (const session of this.sessions.all()) reached += pushToStreams(session, { jsonrpc: '2.0', method, ...(params ? { params } : {}) });
    return reached;
  }

  /** No hook wants anything and the upstream's sessions are handed through: a POST can be piped unread. */
  get pipes(): boolean {
    return this.currentUpstream !== undefined && !this.options.ownSessions && !this.hooks.active();
  }

  pipe(req: IncomingMessage, res: ServerResponse): Promise<void> {
    return pipePost(this, req, res);
  }

  /**
   * A POST that is not valid JSON-RPC (`kind`; `message` is the proxy's own words for it): with a live upstream it is
   * passed on unparsed and the server judges it (its refusal is filed by the recorder); with none, replay refuses it
   * the way the recorded server did.
   */
  async invalid(req: IncomingMessage, res: ServerResponse, body: Buffer, kind: RefusalKind, message: string): Promise<void> {
    const indexing = this.hooks.prepare([]);
    if (indexing) await indexing;
    if (!this.currentUpstream) {
      const refused = this.hooks.refusal(kind, message);
      return sendJson(res, refused.status, refused.response);
    }
    const id = header(req, 'mcp-session-id');
    const upstreamId = id === undefined ? undefined : this.options.ownSessions ? this.sessions.find(id)?.upstreamId : id;
    await passRaw(this, req, res, body, upstreamId, (status, text) => {
      if (status < 400) return;
      try {
        const answer = JSON.parse(text) as JsonRpcMessage;
        if (isResponse(answer) && 'error' in answer) this.hooks.refused(kind, { status, error: answer });
      } catch {
        // not a JSON-RPC answer: nothing to file
      }
    });
  }

  async post(req: IncomingMessage, res: ServerResponse, body: Buffer, parsed: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    const indexing = this.hooks.prepare([]); // the cassette is still being indexed: what it holds decides from here on
    if (indexing) await indexing;
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    const requests = messages.filter(isRequest);
    const initRequest = requests.find((r) => r.method === 'initialize');
    // a 2026-07-28 request carries its revision in _meta and has no session (an Mcp-Session-Id is ignored)
    const modern = requests.length > 0 && requests.every((r) => metaVersion(r.params) !== undefined);
    let session: Session | undefined;
    const stale = staleSession(req, this.sessions); // before sessionFor, which adopts a mirrored id it did not know
    if (initRequest) {
      const refused = refuseStaleInit(req, this.gateFacts());
      if (refused) return sendJson(res, refused.status, refused.response);
      // an owned session is the proxy's from the start; a mirrored one is born from the upstream's answer
      if (this.options.ownSessions) session = this.sessions.create(undefined);
      if (session) session.initParams = initRequest.params;
    } else {
      const refused = refuseWhole(req, modern, this.gateFacts());
      if (refused) return sendJson(res, refused.status, refused.response);
      session = modern ? this.sessions.get(undefined, null) : this.sessionFor(req);
      this.sessions.hold(session, res);
      noteReplies(session, messages);
      const replies = takeReplayReplies(session, messages);
      if (replies > 0 && replies === messages.length) return void res.writeHead(202).end();
    }

    const exchanges = requests.map((r) => new LiveExchange(r, session?.id));
    const preparing = this.hooks.prepare(exchanges); // the cassette's loose keys are still being indexed
    if (preparing) await preparing;
    const headers = requestHeaders(req);
    if (stale) headers.staleSession = true;
    for (const exchange of exchanges) {
      exchange.headers = headers;
      exchange.protocolVersion = metaVersion(exchange.request.params) ?? session?.protocolVersion ?? headers.protocolVersion; // for the timeline and the cassette
    }
    // hooks before the plan (a breakpoint pauses, edits or fails a call): every request of the POST at once
    if (this.hooks.intercepts()) await Promise.all(exchanges.map((e) => this.hooks.request(e, session, res)));
    const planSession = session ?? this.sessions.get(undefined, null);
    const single = exchanges.length === 1 && !Array.isArray(parsed);
    const local: LocalAnswer[] = [];
    const forward: LiveExchange[] = [];
    for (const exchange of exchanges) {
      const offers = this.hooks.offers(exchange, planSession);
      const plan = planRequest({
        method: exchange.request.method,
        answered: exchange.response,
        rule: offers.rule,
        cassette: offers.cassette,
        upstream: this.currentUpstream !== undefined,
        synthesize: this.options.synthesize,
        single,
        local: () => localAnswer(exchange.request, this.options.serverInfo),
      });
      apply(exchange, plan, offers.rule);
      this.hooks.planned(exchange, plan, planSession);
      if (plan.answer === 'cassette' && plan.single) {
        await this.hooks.respond(exchange, planSession, res);
        const sessionHeader = exchange.request === initRequest ? replayedInit(this.sessions, exchange, session, plan.entry.stateless === true) : {};
        return replayAnswer({
          stage: this,
          session: planSession,
          exchange,
          entry: plan.entry,
          res,
          accept: header(req, 'accept'),
          headers: sessionHeader,
          speed: this.options.replaySpeed,
          usualFraming: this.hooks.usualFraming(),
        });
      }
      if (plan.answer === 'upstream') forward.push(exchange);
      else local.push({ exchange, delayMs: plan.answer === 'rule' ? plan.delayMs : 0, status: plan.answer === 'local' ? plan.status : undefined });
    }
    const init = initRequest ? exchanges.find((e) => e.request === initRequest) : undefined;

    // notifications and replies go upstream only where an upstream session exists to receive them
    const relayOnly = requests.length === 0 && this.currentUpstream !== undefined && session !== undefined && session.upstreamId !== undefined;
    if (forward.length === 0 && !relayOnly) return this.answerLocally(req, res, parsed, local, session, init);

    if (session && !init && session.upstreamId === undefined && this.options.ownSessions) {
      try {
        await openUpstreamSession(this, session, header(req, 'mcp-protocol-version'));
      } catch (error) {
        return answerUpstreamDown(this, res, forward, session, error, await this.settle(local, session, res));
      }
    }
    const answeredHere = local.length > 0;
    const edited = exchanges.some((e) => e.edited);
    const upstreamMessages = answeredHere ? messages.filter((m) => !(isRequest(m) && local.some((l) => l.exchange.request.id === m.id))) : messages;
    const upstreamBody = !answeredHere && !edited ? body : Buffer.from(JSON.stringify(Array.isArray(parsed) ? upstreamMessages : upstreamMessages[0]));
    const answers = await this.settle(local, session, res);
    await relayPost(this, this.sessions, {
      req,
      res,
      parsed,
      session,
      init: init && forward.includes(init) ? init : undefined,
      body: upstreamBody,
      exchanges: forward,
      local: answers,
      reconnect: this.options.ownSessions ? (s) => openUpstreamSession(this, s, undefined, true).then(() => undefined) : undefined,
    });
    for (const { exchange } of local) void this.hooks.finish(exchange, session);
  }

  async get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const indexing = this.hooks.prepare([]); // the cassette is still being indexed
    if (indexing) await indexing;
    const refused = refuseWhole(req, false, this.gateFacts());
    if (refused) return sendJson(res, refused.status, refused.response);
    const session = this.sessionFor(req);
    this.sessions.hold(session, res);
    const lastEventId = header(req, 'last-event-id');
    if (lastEventId !== undefined && session.resumable.size > 0) {
      const resuming = resumableFor(session, lastEventId, true);
      // a replayed POST stream closed early, resumed: the rest of the recording plays here
      if (resuming?.replay) return resumableFor(session, lastEventId)!.replay!(res);
      if (resuming && this.currentUpstream) return relayStream(this, req, res, 'GET', session, true); // relayed, it completes the live stream's exchanges
    }
    // a replayed stream the client dropped: what followed its last event comes again
    const replayed = lastEventId !== undefined ? parseReplayEventId(lastEventId) : undefined;
    const stream = replayed && session.replayed.get(replayed.stream);
    if (replayed && stream) return stream.resume(replayed.event, res);
    const plan = planStream({
      upstreamSession: this.currentUpstream !== undefined && session.upstreamId !== undefined,
      pushes: this.hooks.pushes(),
      observed: this.hooks.observesStreams(),
    });
    if (plan.kind === 'own') return openOwnedStream(this, req, res, session, plan.upstream);
    if (plan.kind === 'relay') return relayStream(this, req, res, 'GET', session, plan.tap);
    res.writeHead(405, { allow: 'POST, DELETE' }).end();
  }

  async delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const indexing = this.hooks.prepare([]);
    if (indexing) await indexing;
    const refused = refuseWhole(req, false, this.gateFacts());
    if (refused) return sendJson(res, refused.status, refused.response);
    const id = header(req, 'mcp-session-id');
    const session = this.sessionFor(req);
    if (id) this.sessions.end(id);
    for (const stream of session.streams) stream.end();
    if (this.options.ownSessions || !this.currentUpstream) {
      if (session.upstreamId) void this.currentUpstream?.endSession(session.upstreamId, session.protocolVersion);
      res.writeHead(200).end();
      return;
    }
    await relayStream(this, req, res, 'DELETE', session);
  }

  private gateFacts(): GateFacts {
    return { sessions: this.sessions, hooks: this.hooks, ownSessions: this.options.ownSessions, upstream: this.currentUpstream !== undefined };
  }

  sessionFor(req: IncomingMessage): Session {
    const id = header(req, 'mcp-session-id');
    return this.sessions.get(id, this.options.ownSessions ? undefined : (id ?? null));
  }

  /** Upstream sessions the proxy opened itself end with it (mirrored ones belong to their clients). */
  async close(): Promise<void> {
    clearInterval(this.reaper);
    const ending: Array<Promise<void>> = [];
    for (const session of this.sessions.all()) {
      for (const stream of session.streams) stream.end();
      if (this.options.ownSessions && session.upstreamId)
        ending.push(this.currentUpstream?.endSession(session.upstreamId, session.protocolVersion) ?? Promise.resolve());
    }
    await Promise.all(ending);
    this.currentUpstream?.close();
    await this.hooks.close();
  }

  /** Answers a POST entirely from here (rules, cassette, the proxy itself); each answer waits for its rule's delay. */
  private async answerLocally(
    req: IncomingMessage,
    res: ServerResponse,
    parsed: JsonRpcMessage | JsonRpcMessage[],
    local: LocalAnswer[],
    session: Session | undefined,
    init: LiveExchange | undefined,
  ): Promise<void> {
    if (local.length === 0) return void res.writeHead(202).end(); // notifications and replies need no answer
    const answers = await this.settle(local, session, res);
    const headers = init ? replayedInit(this.sessions, init, session, false) : {};
    const status = local.length === 1 && !Array.isArray(parsed) ? local[0].status : undefined;
    if (status !== undefined && status !== 200) sendJson(res, status, answers[0], headers);
    else sendMessages(res, header(req, 'accept'), Array.isArray(parsed) ? answers : answers[0], headers);
    for (const { exchange } of local) void this.hooks.finish(exchange, session);
  }

  /** Waits out simulated latency (override delay_s) and the holding hooks; returns the answers in order. */
  private async settle(local: LocalAnswer[], session: Session | undefined, res: ServerResponse): Promise<JsonRpcResponse[]> {
    let longest = 0;
    let holding = false;
    for (const l of local) {
      if (l.delayMs > longest) longest = l.delayMs;
      if (waits(l.exchange.need)) holding = true;
    }
    if (longest > 0) await delay(longest);
    if (holding) await Promise.all(local.map((l) => this.hooks.respond(l.exchange, session, res)));
    return local.map((l) => l.exchange.response as JsonRpcResponse);
  }
}

/** Carries a plan's choice into the exchange (what the timeline and the hooks read). */
function apply(exchange: LiveExchange, plan: Plan, rule: RuleOffer | undefined): void {
  exchange.behavior = rule?.behavior;
  exchange.rewrite = rule?.rewrite;
  switch (plan.answer) {
    case 'cassette': {
      exchange.source = 'cache';
      exchange.cassette = 'hit';
      const { error } = plan.entry;
      exchange.response = error
        ? errorResponse(exchange.request.id, error.code, error.message, error.data)
        : { jsonrpc: '2.0', id: exchange.request.id, result: plan.entry.result };
      return;
    }
    case 'rule':
    case 'local':
      exchange.source = 'proxy';
      exchange.response = plan.response;
      if (plan.answer === 'local' && plan.miss) exchange.cassette = 'miss';
      return;
    case 'upstream':
      return;
  }
}

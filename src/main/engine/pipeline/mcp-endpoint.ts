import type { IncomingMessage, ServerResponse } from 'node:http';
import { BREAKPOINT_FAILED_CODE } from '../../../shared/breakpoints.js';
import { errorResponse, isRequest, isResponse, type JsonRpcId, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse } from '../../../shared/jsonrpc.js';
import type { Mode } from '../../../shared/modes.js';
import { sendMessages } from '../http/sse.js';
import type { RuleSet } from '../rules/rule-set.js';
import type { HttpUpstream } from '../upstream/http-upstream.js';
import type { Breakpoints } from './breakpoints.js';
import { LiveExchange } from './exchange.js';
import { initializeOwned, openUpstreamSession } from './owned-session.js';
import { planExchange, type ToolsMemory } from './planner.js';
import { answerUpstreamDown, relayPost, relayStream, type Rewrite } from './relay.js';
import type { Recorder } from './recorder.js';
import type { Replayer } from './replayer.js';
import { SessionRegistry, type Session } from './session.js';
import { openOwnedStream, pushToStreams } from './owned-stream.js';
import { replayStream } from './stream-replay.js';
import { header } from '../http/url.js';

export interface EndpointContext {
  mode: Mode;
  /** the upstream server; undefined in replay and for a session without one (may change: setUpstream) */
  upstream?: HttpUpstream;
  replayer?: Replayer;
  recorder?: Recorder;
  /** overlay rules and instructions, applied on top of whichever source answers */
  rules?: RuleSet;
  /**
   * true: the proxy issues the client's Mcp-Session-Id and maps it onto upstream sessions it opens itself
   * (replay, hybrid, sessions with rules: survives upstream restarts). false: the upstream's id is handed through.
   */
  ownSessions: boolean;
  /** serverInfo of the initialize the proxy answers itself when there is no upstream and no cassette */
  serverInfo: { name: string; version: string };
  /** tools/call breakpoints (pause before upstream / before the client gets the result); inactive without rules */
  breakpoints?: Breakpoints;
  /** a finished exchange (turned into an ExchangeEvent only when someone listens) */
  emit: (exchange: LiveExchange) => void;
  /** is anyone watching exchanges? If not, and nothing is recorded, live traffic is piped without parsing */
  observed: () => boolean;
  /** operational detail (verbose) */
  log: (line: string) => void;
  /** something the user should see even without --verbose */
  warn: (line: string) => void;
}


const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The MCP endpoint (Streamable HTTP) in front of the upstream and/or the cassette, for one proxy or session. */
export class McpEndpoint {
  readonly sessions = new SessionRegistry();
  readonly memory: ToolsMemory = {};

  constructor(readonly ctx: EndpointContext) {}

  /** Switches (or detaches) the upstream: every session reconnects lazily to the new one. */
  setUpstream(upstream: HttpUpstream | undefined): void {
    this.ctx.upstream?.close();
    this.ctx.upstream = upstream;
    this.memory.upstreamTools = undefined;
    for (const session of this.sessions.all()) session.upstreamId = undefined;
  }

  /** Sends a notification to every client holding a server stream (GET) — e.g. tools/list_changed. */
  notifyAll(method: string, params?: Record<string, unknown>): number {
    let reached = 0;
    for (const session of this.sessions.all()) reached += pushToStreams(session, { jsonrpc: '2.0', method, ...(params ? { params } : {}) });
    return reached;
  }

  async post(req: IncomingMessage, res: ServerResponse, body: Buffer, parsed: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    const requests = messages.filter(isRequest);
    const init = requests.find((r) => r.method === 'initialize');
    if (init && this.ctx.ownSessions) return initializeOwned(this, req, res, init);
    const session = init ? undefined : this.sessionFor(req);
    if (session) this.noteReplies(session, messages);
    const replies = session ? this.takeReplayReplies(session, messages) : 0;
    if (replies > 0 && replies === messages.length) return void res.writeHead(202).end();

    // breakpoints (request stage): matching tools/calls wait here; edited arguments are written into the requests
    const paused = this.ctx.breakpoints?.active ? await this.ctx.breakpoints.beforeRequests(requests, session?.id, res) : undefined;
    const exchanges = requests.map((r) => new LiveExchange(r, session?.id));
    const protocolVersion = header(req, 'mcp-protocol-version') ?? session?.protocolVersion;
    for (const exchange of exchanges) {
      exchange.protocolVersion = protocolVersion || undefined;
      const original = paused?.originals.get(exchange.request.id);
      if (original) {
        exchange.originalRequest = original;
        exchange.flags.push('arguments edited at a breakpoint');
      }
    }
    const local: Array<{ exchange: LiveExchange; delayMs: number }> = [];
    const forward: LiveExchange[] = [];
    const rewrites = new Map<JsonRpcId, Rewrite>();
    for (const exchange of exchanges) {
      const failed = paused?.failed.get(exchange.request.id);
      if (failed !== undefined) {
        exchange.response = errorResponse(exchange.request.id, BREAKPOINT_FAILED_CODE, failed);
        exchange.source = 'proxy';
        exchange.flags.push('failed at a breakpoint');
        local.push({ exchange, delayMs: 0 });
        continue;
      }
      const plan = planExchange(this.ctx, this.memory, exchange, session ?? this.sessions.get(undefined, null));
      if (plan.kind === 'stream' && exchanges.length === 1 && !Array.isArray(parsed) && (header(req, 'accept') ?? '').includes('text/event-stream')) {
        if (this.ctx.breakpoints?.active) await this.ctx.breakpoints.holdResponse(exchange, res);
        await replayStream(this.ctx, session ?? this.sessions.get(undefined, null), exchange, plan.entry, exchange.response as JsonRpcResponse, res);
        return this.pushFollowUps(exchange);
      }
      if (plan.kind === 'local' || plan.kind === 'stream') local.push({ exchange, delayMs: plan.kind === 'local' ? plan.delayMs : 0 });
      else {
        forward.push(exchange);
        if (plan.rewrite) rewrites.set(exchange.request.id, plan.rewrite);
      }
    }

    // notifications and replies go upstream only where an upstream session exists to receive them
    const relayOnly = requests.length === 0 && this.ctx.upstream !== undefined && session !== undefined && session.upstreamId !== undefined;
    if (forward.length === 0 && !relayOnly) return this.answerLocally(req, res, parsed, local);

    if (session && session.upstreamId === undefined && this.ctx.ownSessions) {
      try {
        await openUpstreamSession(this, session, header(req, 'mcp-protocol-version'));
      } catch (error) {
        return answerUpstreamDown(this.ctx, res, forward, error, await this.settle(local));
      }
    }
    const answeredHere = new Set(local.map((l) => l.exchange.request.id));
    const upstreamMessages = messages.filter((m) => !(isRequest(m) && answeredHere.has(m.id)));
    const upstreamBody = answeredHere.size === 0 && !paused?.edited ? body : Buffer.from(JSON.stringify(Array.isArray(parsed) ? upstreamMessages : upstreamMessages[0]));
    await relayPost(this.ctx, this.sessions, {
      req, res, parsed, session, init, rewrites,
      body: upstreamBody,
      exchanges: forward,
      local: await this.settle(local),
      reconnect: this.ctx.ownSessions ? (s) => openUpstreamSession(this, s, undefined, true).then(() => undefined) : undefined,
    });
  }

  async get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const session = this.sessionFor(req);
    // the proxy must be able to push: list_changed after a rule change, recorded server notifications in replay
    if (this.ctx.rules || (this.ctx.mode !== 'proxy-only' && this.ctx.replayer?.hasFollowUps())) return openOwnedStream(this, req, res, session);
    if (this.ctx.mode === 'replay' || session.upstreamId === undefined || !this.ctx.upstream) {
      // no live server behind this session: no server-initiated stream (clients treat 405 as "not offered")
      res.writeHead(405, { allow: 'POST, DELETE' }).end();
      return;
    }
    await relayStream(this.ctx, req, res, 'GET', session);
  }

  async delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = header(req, 'mcp-session-id');
    const session = this.sessionFor(req);
    if (id) this.sessions.delete(id);
    for (const stream of session.streams) stream.end();
    if (this.ctx.ownSessions || !this.ctx.upstream) {
      if (session.upstreamId) void this.ctx.upstream?.endSession(session.upstreamId, session.protocolVersion);
      res.writeHead(200).end();
      return;
    }
    await relayStream(this.ctx, req, res, 'DELETE', session);
  }

  sessionFor(req: IncomingMessage): Session {
    const id = header(req, 'mcp-session-id');
    return this.sessions.get(id, this.ctx.ownSessions ? undefined : (id ?? null));
  }

  /** Answers a POST entirely from here (rules, cassette, no upstream); each answer waits for its rule's delay. */
  private async answerLocally(req: IncomingMessage, res: ServerResponse, parsed: JsonRpcMessage | JsonRpcMessage[], local: Array<{ exchange: LiveExchange; delayMs: number }>): Promise<void> {
    if (local.length === 0) return void res.writeHead(202).end(); // notifications and replies need no answer
    const answers = await this.settle(local, res);
    sendMessages(res, header(req, 'accept'), Array.isArray(parsed) ? answers : answers[0]);
  }

  /** Waits out simulated latency (override delay_s), emits the exchanges, and returns their answers in order. */
  private async settle(local: Array<{ exchange: LiveExchange; delayMs: number }>, res?: ServerResponse): Promise<JsonRpcResponse[]> {
    const longest = Math.max(0, ...local.map((l) => l.delayMs));
    if (longest > 0) await delay(longest);
    const breakpoints = this.ctx.breakpoints;
    if (breakpoints?.active) await Promise.all(local.map((l) => breakpoints.holdResponse(l.exchange, res))); // response stage
    for (const { exchange } of local) {
      this.ctx.emit(exchange);
      if (exchange.cassette === 'hit') setImmediate(() => this.pushFollowUps(exchange)); // after the answer is out
    }
    return local.map((l) => l.exchange.response as JsonRpcResponse);
  }

  /** Replay: the server notifications recorded after this exchange go out on the client's server stream. */
  pushFollowUps(exchange: LiveExchange): void {
    const followUps = this.ctx.replayer?.followUps(exchange.key);
    if (!followUps?.length) return;
    const session = this.sessions.get(exchange.sessionId, undefined);
    for (const message of followUps) pushToStreams(session, message, true);
  }

  /** Replies to server→client requests the proxy replayed itself: handed to the waiting replay, never forwarded. */
  private takeReplayReplies(session: Session, messages: JsonRpcMessage[]): number {
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
  private noteReplies(session: Session, messages: JsonRpcMessage[]): void {
    if (session.awaitingReplies.size === 0) return;
    for (const m of messages) {
      if (!isResponse(m) || m.id === null) continue;
      const exchange = session.awaitingReplies.get(m.id);
      if (!exchange) continue;
      exchange.addStreamed(m);
      session.awaitingReplies.delete(m.id);
    }
  }
}

export type { JsonRpcRequest };

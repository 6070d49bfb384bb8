import {
  ErrorCode,
  errorResponse,
  isRequest,
  isResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../../../shared/jsonrpc.js';
import type { CassetteEntry } from '../../../shared/cassette/entry.js';
import { waits, type HookChain } from './core/chain.js';
import type { Closable, ExchangeDetail, RuleSource, ServerMessage } from './core/contract.js';
import { exchangeFor, LiveExchange } from './core/exchange.js';
import { initialized, planExchange } from './core/plan-exchange.js';
import type { Replayer } from './replay/replayer.js';
import { noteCancels, type Session } from './core/session.js';

/** The cassette as a message-level pipeline uses it: offers, plays an entry back message by message, takes replies. */
export type MessageReplay = Pick<Replayer, 'prepare' | 'offer' | 'take' | 'play' | 'followUpsAfter' | 'takeReplies'>;

/** The upstream of a message-level pipeline (message-upstream.ts: a wrapped SDK transport, a stdio child). */
export interface MessageUpstream {
  /** before a request goes: the transport started and the server initialized (a hybrid's own initialize) */
  open(request: JsonRpcRequest, session: Session): Promise<void>;
  send(message: JsonRpcMessage, options?: unknown): Promise<void>;
  notify(
    message: JsonRpcNotification,
    options: unknown,
    upstreamRequests: ReadonlyMap<unknown, unknown>,
  ): Promise<void>;
}

export interface MessagePlannerOptions {
  /** the hooks of the mode (recorder, rules, breakpoints, events…), in order */
  hooks: HookChain;
  rules?: RuleSource;
  cassette?: MessageReplay;
  /** absent: nothing live behind (replay) */
  upstream?: MessageUpstream;
  /** the client's one session (a stdio client, an in-process client) */
  session: Session;
  /** serverInfo of the initialize the proxy answers itself */
  serverInfo: { name: string; version: string };
  /** a message for the client, in order; `raw`: the upstream's own text of it, when nothing changed it */
  toClient(message: JsonRpcMessage, raw?: string): void;
  onError(error: Error): void;
  /** the detail of an upstream-answered exchange for the hooks that keep it (stdio: its JSON lines) */
  detail?(exchange: LiveExchange, rawAnswer: string | undefined): ExchangeDetail | undefined;
  /** the hooks that only observe run in a later turn, after the answer is written (default: at once) */
  observeLater?: boolean;
}

const NEVER_CLOSES: Closable = { once: () => undefined, off: () => undefined };
const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One client's JSON-RPC messages through the pipeline, message by message, with no HTTP in between: the planner of
 * the stdio downstream (stdio-proxy.ts) and of the library's wrapTransport. Per request it asks the sources who
 * answers (plan-exchange.ts, as the HTTP endpoint does), runs the mode's hooks (breakpoints before the plan; rules,
 * the recorder and what waits on the answer before it goes out; observers after), keeps the initialize bookkeeping
 * and files the upstream's messages under the exchange they belong to. What goes to the client keeps its order: an
 * answer that waits for its entry to be on disk holds what follows it.
 */
export class MessagePlanner {
  /** requests sent upstream awaiting their answer, by id */
  private readonly pending = new Map<unknown, LiveExchange>();
  /** server→client requests awaiting the client's reply, with the exchange they belong to */
  private readonly awaiting = new Map<unknown, LiveExchange>();
  private queue: Promise<void> = Promise.resolve();
  private queued = 0;

  constructor(private readonly o: MessagePlannerOptions) {}

  /** Nothing is on its way to the client and no answer is awaited: the upstream's next line may pass unread. */
  get idle(): boolean {
    return this.queued === 0 && this.pending.size === 0 && this.awaiting.size === 0;
  }

  /** A message of the client. */
  send(message: JsonRpcMessage, options?: unknown): Promise<void> {
    if (isRequest(message)) return this.request(message, options);
    if (isResponse(message)) return this.reply(message, options);
    noteCancels(this.o.session, [message]);
    return this.o.upstream?.notify(message, options, this.pending) ?? Promise.resolve();
  }

  /** A notification of the proxy's own to the client (the rules changed: tools/list_changed). */
  notify(method: string, params?: Record<string, unknown>): void {
    this.emit({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  private async request(request: JsonRpcRequest, options: unknown): Promise<void> {
    const { session, cassette, hooks, upstream, rules, serverInfo } = this.o;
    const exchange = new LiveExchange(request, undefined, undefined, session.protocolVersion);
    const preparing = cassette?.prepare(exchange);
    if (preparing) await preparing;
    if (hooks.intercepts()) await hooks.request(exchange, session, NEVER_CLOSES);
    const plan = planExchange(exchange, session, true, {
      rules,
      cassette,
      upstream: upstream !== undefined,
      serverInfo,
    });
    hooks.needs(exchange);
    if (plan.answer === 'upstream') return this.forward(exchange, options);
    if (plan.answer === 'cassette') return this.replay(exchange, plan.entry);
    if (request.method === 'initialize') initialized(exchange, session, exchange.response as JsonRpcResponse);
    this.answerHere(exchange, plan.answer === 'rule' ? plan.delayMs : 0);
  }

  private async forward(exchange: LiveExchange, options: unknown): Promise<void> {
    const { upstream, session } = this.o;
    const { request } = exchange;
    try {
      await upstream!.open(request, session);
    } catch (error) {
      return this.upstreamDown(exchange, (error as Error).message);
    }
    this.pending.set(request.id, exchange);
    session.inFlight.set(request.id, exchange);
    exchange.timeline.sentUpstreamMs = exchange.elapsed();
    try {
      await upstream!.send(request, options);
    } catch (error) {
      if (this.pending.get(request.id) !== exchange) return; // answered meanwhile (the upstream ended: upstreamGone)
      this.untrack(request.id);
      this.upstreamDown(exchange, (error as Error).message);
    }
  }

  private untrack(id: unknown): void {
    this.pending.delete(id);
    this.o.session.inFlight.delete(id as string);
  }

  /** The upstream could not take the request (it would not start, or it ended): the proxy answers with the reason. */
  private upstreamDown(exchange: LiveExchange, reason: string): void {
    exchange.delivery.source = 'proxy';
    exchange.respond(
      errorResponse(
        exchange.request.id,
        ErrorCode.InternalError,
        `mcp-rewind: the upstream server is unavailable: ${reason}`,
      ),
    );
    this.answerHere(exchange, 0);
  }

  /** The upstream ended: what it left unanswered is answered with the reason. */
  upstreamGone(reason: string): void {
    const left = [...this.pending.values()];
    for (const exchange of left) {
      this.untrack(exchange.request.id);
      this.upstreamDown(exchange, reason);
    }
    this.awaiting.clear();
  }

  /** A cassette hit: played back message by message, in recorded order; what waits on the answer runs first. */
  private replay(exchange: LiveExchange, entry: CassetteEntry): void {
    const { session } = this.o;
    const cassette = this.o.cassette!;
    if (exchange.request.method === 'initialize' && !entry.error)
      initialized(exchange, session, exchange.response as JsonRpcResponse);
    const followUps = cassette.followUpsAfter(exchange, session); // its place: the answers of its key so far
    let held: Promise<void> | undefined;
    const deliver = (message: JsonRpcMessage): void => {
      const answer = isResponse(message) && message.id === exchange.request.id;
      if (answer && waits(exchange.delivery.need))
        held = this.respond(exchange).then(() => this.o.toClient(exchange.response as JsonRpcResponse));
      else if (held) held = held.then(() => this.o.toClient(message));
      else this.o.toClient(message);
    };
    this.step(async () => {
      await cassette.play(exchange, entry, session, deliver, followUps);
      await held;
      this.finish(exchange);
    });
  }

  /** An answer of the proxy's own or of the rules: after the rule's delay and the hooks that wait on it. */
  private answerHere(exchange: LiveExchange, delayMs: number): void {
    const out = async (): Promise<void> => {
      if (delayMs > 0) await delay(delayMs);
      await this.respond(exchange);
      this.emit(exchange.response as JsonRpcResponse);
      this.finish(exchange);
    };
    out().catch((error: Error) => this.o.onError(error));
  }

  /** The client's reply to a server→client request: to the replay that asked it, else upstream (and into its exchange). */
  private async reply(reply: JsonRpcResponse, options: unknown): Promise<void> {
    const { session, cassette, hooks, upstream } = this.o;
    if (cassette?.takeReplies(session, [reply])) return;
    if (hooks.readsReplies()) await hooks.replies([reply], session, NEVER_CLOSES);
    const exchange = this.awaiting.get(reply.id);
    if (exchange) {
      exchange.addStreamed(reply);
      this.awaiting.delete(reply.id);
    }
    await upstream?.send(reply, options);
  }

  /** What the server sent: an answer, or a message of an exchange in flight, or one outside any (the hooks that watch). */
  fromUpstream(message: JsonRpcMessage, raw?: string): void {
    if (isResponse(message)) {
      const exchange = this.pending.get(message.id);
      if (!exchange) return this.emit(message, raw);
      this.untrack(message.id);
      return this.answered(exchange, message, raw);
    }
    const owner = this.pending.size > 0 ? exchangeFor(message, [...this.pending.values()], this.pending) : undefined;
    if (owner) {
      owner.addStreamed(message);
      if (isRequest(message)) this.awaiting.set(message.id, owner);
    } else if (this.o.hooks.observesStreams()) this.o.hooks.serverMessage(message as ServerMessage, this.o.session);
    this.emit(message, raw);
  }

  private answered(exchange: LiveExchange, response: JsonRpcResponse, raw: string | undefined): void {
    const { session, hooks } = this.o;
    exchange.upstreamAnswered(response);
    if (exchange.request.method === 'initialize') initialized(exchange, session, response);
    const detail = hooks.wantsDetail() ? this.o.detail?.(exchange, raw) : undefined;
    const need = exchange.delivery.need;
    const out = (): void => {
      this.o.toClient(exchange.response as JsonRpcResponse, exchange.response === response ? raw : undefined);
      this.finish(exchange, detail);
    };
    if (!waits(need)) {
      this.emit(response, raw);
      return this.finish(exchange, detail);
    }
    // a commit (its entry on disk) holds what follows it; a hold (a rule, a breakpoint) holds only this answer
    const responded = (): Promise<void> => this.respond(exchange, detail);
    if (need === 'commit') this.step(() => responded().then(out));
    else
      void responded().then(() => {
        if (this.queued === 0) return out();
        this.step(out);
      });
  }

  /** Runs the hooks the answer waits for; one that fails is reported and the answer goes out as it stands. */
  private respond(exchange: LiveExchange, detail?: ExchangeDetail): Promise<void> {
    if (!waits(exchange.delivery.need)) return Promise.resolve();
    return this.o.hooks
      .respond(exchange, this.o.session, NEVER_CLOSES, detail)
      .catch((error: Error) => this.o.onError(error));
  }

  private finish(exchange: LiveExchange, detail?: ExchangeDetail): void {
    const { hooks, session } = this.o;
    if (exchange.delivery.need === 'none') return exchange.settle();
    if (this.o.observeLater) setImmediate(() => void hooks.finish(exchange, session, detail));
    else void hooks.finish(exchange, session, detail);
  }

  /** To the client now, or after what is ahead of it. */
  private emit(message: JsonRpcMessage, raw?: string): void {
    if (this.queued === 0) return this.o.toClient(message, raw);
    this.step(() => this.o.toClient(message, raw));
  }

  private step(run: () => void | Promise<void>): void {
    this.queued++;
    this.queue = this.queue
      .then(run)
      .catch((error: Error) => this.o.onError(error))
      .then(() => void this.queued--);
  }

  /** Resolves once what is on its way to the client went out. */
  async drained(): Promise<void> {
    while (this.queued > 0) await this.queue;
  }

  /** How many requests still wait for the upstream's answer. */
  get inFlight(): number {
    return this.pending.size;
  }
}

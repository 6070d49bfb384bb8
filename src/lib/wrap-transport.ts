import type { ReplayMiss } from '../shared/cassette/miss.js';
import type { CassetteEntry } from '../shared/cassette/entry.js';
import {
  isRequest,
  isResponse,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../shared/jsonrpc.js';
import { MODE_TRAITS, type Mode } from '../shared/modes.js';
import type { ExchangeEvent } from '../shared/traffic.js';
import { exchangeFor, LiveExchange } from '../main/engine/pipeline/exchange.js';
import type { Session } from '../main/engine/pipeline/session.js';
import type { Replayer } from '../main/engine/pipeline/replayer.js';
import { openSources, type CassetteSources } from './cassette-sources.js';
import { OptionsError } from './errors.js';
import { resolveMode } from './mode.js';
import { Observed } from './observed.js';
import { checkCassetteOptions, type CassetteOptions } from './options.js';
import type { McpTransport } from './transport.js';
import { UpstreamSession } from './upstream-session.js';

/** Options of wrapTransport: the cassette (a folder) is required unless the mode is passthrough. */
export type WrapOptions = CassetteOptions;

/** A Transport that records and replays in this process (wrapTransport). */
export interface WrappedTransport extends McpTransport {
  /** the mode it runs in (from the options, else the environment) */
  readonly mode: Mode;
  /** replay misses are JSON-RPC errors naming the closest recorded key */
  readonly strict: boolean;
  /** was the wrapped transport started (a stdio server spawned, a URL called)? Never in replay. */
  readonly upstreamStarted: boolean;
  /** every exchange that went through, oldest first, as the app's timeline shows them */
  exchanges(): ExchangeEvent[];
  /** requests replay had no answer for, each with the closest recorded key and what differs */
  misses(): ReplayMiss[];
  /** throws a CassetteMissError listing the misses, if there were any */
  assertNoMisses(): void;
  /** `await using` closes it (close() waits until every recorded entry is on disk) */
  [Symbol.asyncDispose](): Promise<void>;
}

const asMessage = (message: unknown): JsonRpcMessage => message as JsonRpcMessage;

/**
 * Records and replays MCP around any SDK Transport (stdio, Streamable HTTP, in-memory; SDK 1.x and 2.x), in this
 * process, with no port: give the result to `client.connect()`. Record forwards everything to `transport` and stores
 * each exchange in the cassette as the CLI does; replay answers from the cassette and never starts `transport` (no
 * server is spawned or called); hybrid replays what is recorded and opens `transport` for the rest (with the client's
 * own initialize), recording it. The cassette is the CLI's and the app's format: each replays the other's.
 */
export function wrapTransport(transport: McpTransport, options: WrapOptions): WrappedTransport {
  const { mode, strict } = resolveMode(options, options.env);
  checkCassetteOptions(options);
  if (MODE_TRAITS[mode].usesCassette && !options.cassette)
    throw new OptionsError(`cassette is required in ${mode} mode (a folder)`);
  return new CassetteTransport(transport, { ...options, mode, strict: strict && MODE_TRAITS[mode].cassetteOnly });
}

class CassetteTransport implements WrappedTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JsonRpcMessage, extra?: unknown) => void;
  readonly mode: Mode;
  readonly strict: boolean;
  private sources?: CassetteSources;
  private readonly upstream: UpstreamSession;
  /** upstream requests awaiting their answer, by id; server→client requests awaiting the client's reply */
  private readonly pending = new Map<unknown, LiveExchange>();
  private readonly awaiting = new Map<unknown, LiveExchange>();
  /** messages for the client, in order (an upstream answer waits here until its entry is on disk) */
  private queue: Promise<void> = Promise.resolve();
  private readonly observed: Observed;
  private closing?: Promise<void>;

  constructor(
    private readonly inner: McpTransport,
    private readonly options: WrapOptions & { mode: Mode; strict: boolean },
  ) {
    this.mode = options.mode;
    this.strict = options.strict;
    this.observed = new Observed(options.cassette);
    this.upstream = new UpstreamSession(inner, (message) => this.fromUpstream(asMessage(message)), {
      onclose: () => void this.close(),
      onerror: (error) => this.onerror?.(error),
    });
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  get upstreamStarted(): boolean {
    return this.upstream.started;
  }

  readonly setProtocolVersion = (version: string): void => this.inner.setProtocolVersion?.(version);
  readonly setSupportedProtocolVersions = (versions: string[]): void =>
    (this.inner as { setSupportedProtocolVersions?: (v: string[]) => void }).setSupportedProtocolVersions?.(versions);

  private get session(): Session | undefined {
    return this.sources?.session;
  }

  async start(): Promise<void> {
    const { mode, cassette } = this.options;
    const { usesCassette, forwards, replays } = MODE_TRAITS[mode];
    if (usesCassette)
      this.sources = await openSources({
        ...this.options,
        mode,
        cassette: cassette as string,
        durable: this.options.fsync !== false,
        onMiss: (miss) => this.observed.missed(miss),
        log: (line, level) =>
          this.options.onLog
            ? this.options.onLog(line, level)
            : level === 'warn' && process.stderr.write(`mcp-rewind: ${line}\n`),
      });
    if (forwards && !replays) await this.upstream.start(); // hybrid opens it for its first miss
  }

  async send(message: unknown, options?: unknown): Promise<void> {
    const m = asMessage(message);
    if (isRequest(m)) return this.request(m, options);
    if (isResponse(m)) return this.reply(m, options);
    return this.upstream.notify(m, options, this.pending);
  }

  private async request(request: JsonRpcRequest, options: unknown): Promise<void> {
    const exchange = new LiveExchange(request, undefined, undefined, this.session?.protocolVersion);
    const replayer = this.sources?.replayer;
    if (replayer && this.session) {
      const preparing = replayer.prepare(exchange);
      if (preparing) await preparing;
      const offer = replayer.offer(exchange, this.session);
      if ('entry' in offer) {
        replayer.take(exchange, this.session);
        return this.replay(exchange, offer.entry);
      }
      if (!MODE_TRAITS[this.mode].forwards) {
        exchange.delivery.source = 'proxy';
        if ('miss' in offer) exchange.timeline.cassette = 'miss';
        return this.answer(exchange, 'refuse' in offer ? offer.refuse.response : offer.miss().response);
      }
    }
    await this.upstream.open(request, this.session);
    this.pending.set(request.id, exchange);
    exchange.timeline.sentUpstreamMs = exchange.elapsed();
    try {
      await this.upstream.send(request, options);
    } catch (error) {
      this.pending.delete(request.id);
      throw error;
    }
  }

  /** A cassette hit: played back after send() returns, in recorded order. */
  private replay(exchange: LiveExchange, entry: CassetteEntry): void {
    exchange.delivery.source = 'cache';
    exchange.timeline.cassette = 'hit';
    const session = this.session as Session;
    if (exchange.request.method === 'initialize' && !entry.error) {
      session.initParams = exchange.request.params;
      exchange.negotiated(String(entry.result.protocolVersion ?? ''));
      session.protocolVersion = exchange.protocolVersion;
    }
    const replayer = this.sources?.replayer as Replayer;
    const followUps = replayer.followUpsAfter(exchange, session); // its place: the answers of its key so far
    this.enqueue(async () => {
      await replayer.play(exchange, entry, session, (m) => this.deliver(m), followUps);
      this.observed.exchanged(exchange.toEvent());
    });
  }

  /** An answer of the proxy's own (a replay miss, a refusal the recorded server would give). */
  private answer(exchange: LiveExchange, response: JsonRpcResponse): void {
    exchange.respond(response);
    this.enqueue(() => {
      this.deliver(exchange.response as JsonRpcResponse);
      this.observed.exchanged(exchange.toEvent());
    });
  }

  /** The client's reply to a server→client request: to the replay that asked it, else upstream (and into its exchange). */
  private async reply(reply: JsonRpcResponse, options: unknown): Promise<void> {
    if (this.session && this.sources?.replayer?.takeReplies(this.session, [reply])) return;
    if (this.session) void this.sources?.recorder?.onReplies(Array.of<JsonRpcMessage>(reply), this.session);
    const exchange = this.awaiting.get(reply.id);
    if (exchange) {
      exchange.addStreamed(reply);
      this.awaiting.delete(reply.id);
    }
    await this.upstream.send(reply, options);
  }

  /** What the server sent: an answer (recorded before the client gets it), or a message of an exchange in flight. */
  private fromUpstream(message: JsonRpcMessage): void {
    if (isResponse(message)) {
      const exchange = this.pending.get(message.id);
      if (!exchange) return this.enqueue(() => this.deliver(message));
      this.pending.delete(message.id);
      return this.answered(exchange, message);
    }
    const owner = this.pending.size > 0 ? exchangeFor(message, [...this.pending.values()], this.pending) : undefined;
    if (owner) {
      owner.addStreamed(message);
      if (isRequest(message)) this.awaiting.set(message.id, owner);
    } else if (this.session) this.sources?.recorder?.onServerMessage(message as JsonRpcNotification, this.session);
    this.enqueue(() => this.deliver(message));
  }

  private answered(exchange: LiveExchange, response: JsonRpcResponse): void {
    exchange.upstreamAnswered(response);
    const session = this.session;
    if (exchange.request.method === 'initialize' && 'result' in response) {
      exchange.negotiated(String(response.result.protocolVersion ?? ''));
      if (session) {
        session.initParams = exchange.request.params;
        session.protocolVersion = exchange.protocolVersion;
      }
    }
    this.enqueue(async () => {
      await this.sources?.recorder?.onResponse(exchange, session, undefined);
      this.deliver(response);
      this.observed.exchanged(exchange.toEvent());
    });
  }

  private enqueue(step: () => void | Promise<void>): void {
    this.queue = this.queue.then(step).catch((error: Error) => this.onerror?.(error));
  }

  private deliver(message: JsonRpcMessage): void {
    this.onmessage?.(message);
  }

  exchanges(): ExchangeEvent[] {
    return this.observed.exchanges();
  }

  misses(): ReplayMiss[] {
    return this.observed.misses();
  }

  assertNoMisses(): void {
    this.observed.assertNoMisses();
  }

  /** Waits for what is on its way to the client and every entry on disk, then closes the wrapped transport (if started). */
  close(): Promise<void> {
    return (this.closing ??= (async () => {
      await this.queue;
      await this.sources?.close();
      await this.upstream.close();
      this.onclose?.();
    })());
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

import type { ReplayMiss } from '../shared/cassette/miss.js';
import type { JsonRpcMessage } from '../shared/jsonrpc.js';
import { MODE_TRAITS, type Mode } from '../shared/modes.js';
import type { ExchangeEvent } from '../shared/traffic.js';
import type { Log } from '../main/engine/log.js';
import { HookChain } from '../main/engine/pipeline/core/chain.js';
import { MessagePlanner } from '../main/engine/pipeline/message-planner.js';
import { UpstreamSession } from '../main/engine/pipeline/upstream/message-upstream.js';
import { ObserverHook } from '../main/engine/pipeline/core/events.js';
import { SessionRegistry } from '../main/engine/pipeline/core/session.js';
import { openSources, type CassetteSources } from './cassette-sources.js';
import { OptionsError } from './errors.js';
import { resolveMode } from './mode.js';
import { Observed } from './observed.js';
import { checkCassetteOptions, type CassetteOptions } from './options.js';
import type { McpTransport } from './transport.js';

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
  /** the engine's message-level pipeline: who answers each request, the recorder and replayer, in order */
  private planner?: MessagePlanner;
  private readonly observed: Observed;
  private closing?: Promise<void>;

  constructor(
    private readonly inner: McpTransport,
    private readonly options: WrapOptions & { mode: Mode; strict: boolean },
  ) {
    this.mode = options.mode;
    this.strict = options.strict;
    this.observed = new Observed(options.cassette);
    this.upstream = new UpstreamSession(inner, (message) => this.planner?.fromUpstream(asMessage(message)), {
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

  async start(): Promise<void> {
    const { mode, cassette } = this.options;
    const { usesCassette, forwards, replays } = MODE_TRAITS[mode];
    const log: Log = (line, level) =>
      this.options.onLog
        ? this.options.onLog(line, level)
        : level === 'warn' && process.stderr.write(`mcp-rewind: ${line}\n`);
    if (usesCassette)
      this.sources = await openSources({
        ...this.options,
        mode,
        cassette: cassette as string,
        durable: this.options.fsync !== false,
        onMiss: (miss) => this.observed.missed(miss),
        log,
      });
    const observer = new ObserverHook((event) => this.observed.exchanged(event));
    const hooks = [this.sources?.recorder, observer].filter((h): h is NonNullable<typeof h> => h !== undefined);
    this.planner = new MessagePlanner({
      hooks: new HookChain(hooks, log),
      cassette: this.sources?.replayer,
      upstream: forwards ? this.upstream : undefined,
      session: this.sources?.session ?? new SessionRegistry().create(null),
      serverInfo: { name: 'mcp-rewind', version: '0' },
      toClient: (message) => this.onmessage?.(message),
      onError: (error) => this.onerror?.(error),
    });
    if (forwards && !replays) await this.upstream.start(); // hybrid opens it for its first miss
  }

  send(message: unknown, options?: unknown): Promise<void> {
    if (!this.planner) return Promise.reject(new Error('mcp-rewind: wrapTransport: send() before start()'));
    return this.planner.send(asMessage(message), options);
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
      await this.planner?.drained();
      await this.sources?.close();
      await this.upstream.close();
      this.onclose?.();
    })());
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

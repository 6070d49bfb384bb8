import type { ReplayMiss } from '../shared/cassette/miss.js';
import { MODE_TRAITS, type Mode } from '../shared/modes.js';
import type { ExchangeEvent } from '../shared/traffic.js';
import { startProxy as startEngineProxy } from '../main/engine/proxy.js';
import { openUpstream, type OpenedUpstream, type UpstreamSpec } from '../main/engine/upstream/open.js';
import { OptionsError } from './errors.js';
import { resolveMode } from './mode.js';
import {
  checkCassetteOptions,
  checkReplayTiming,
  checkedRules,
  type CassetteOptions,
  type RulesFile,
} from './options.js';
import { Observed } from './observed.js';

/** The server behind the proxy: a URL (Streamable HTTP or legacy HTTP+SSE, detected), or a command run as a stdio child. */
export type UpstreamOption =
  | { url: string; headers?: Record<string, string> }
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string };

/** Options of startProxy. */
export interface ProxyOptions extends CassetteOptions {
  /** the server to record from (record, hybrid, passthrough); replay never starts or calls it */
  upstream?: UpstreamOption;
  /** port on 127.0.0.1 (default 0: any free port) */
  port?: number;
  /** per-tool rules (docs/rules.md), applied on top of any mode */
  rules?: RulesFile;
  /** replay: `none` (default: at once), `recorded` (the recorded latency), `x2`, `x0.5` … */
  replayTiming?: string;
}

/** A proxy running in this process (startProxy). */
export interface RunningProxy {
  /** the MCP endpoint (Streamable HTTP; legacy SSE clients: `/sse`), `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  /** the mode it runs in (from the options, else the environment) */
  readonly mode: Mode;
  /** replay misses are JSON-RPC errors naming the closest recorded key */
  readonly strict: boolean;
  /** the cassette it reads and writes */
  readonly cassette?: string;
  /** every exchange that went through, oldest first, as the app's timeline shows them */
  exchanges(): ExchangeEvent[];
  /** requests replay had no answer for, each with the closest recorded key and what differs */
  misses(): ReplayMiss[];
  /** throws a CassetteMissError listing the misses, if there were any */
  assertNoMisses(): void;
  /** stops the proxy once every recorded entry is on disk (and the upstream it started) */
  close(): Promise<void>;
  /** `await using proxy = await startProxy(…)` closes it at the end of the block */
  [Symbol.asyncDispose](): Promise<void>;
}

function specOf(upstream: UpstreamOption): UpstreamSpec {
  if ('url' in upstream) return { url: upstream.url, headers: upstream.headers };
  return { command: upstream.command, args: upstream.args ?? [], env: upstream.env, cwd: upstream.cwd };
}

function check(options: ProxyOptions, mode: Mode): void {
  checkCassetteOptions(options);
  checkReplayTiming(options.replayTiming);
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new OptionsError(`port must be an integer from 0 to 65535, got ${String(options.port)}`);
  if (MODE_TRAITS[mode].forwards && !options.upstream)
    throw new OptionsError(`upstream is required in ${mode} mode ({ url } or { command, args })`);
  if (MODE_TRAITS[mode].usesCassette && !options.cassette && !options.rules)
    throw new OptionsError(`cassette is required in ${mode} mode (a folder)`);
}

/**
 * Starts the mcp-rewind engine in this process: an MCP endpoint on 127.0.0.1 that records, replays, mixes both
 * (hybrid) or passes through, with the same cassette format as the CLI and the app. Resolves once the endpoint
 * answers; rejects with an OptionsError (bad options), a CassetteMissingError (replay of a cassette that does not
 * exist: replay never creates one) or an UnreachableError (the upstream did not answer an MCP initialize).
 */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const { mode, strict: strictAsked } = resolveMode(options, options.env);
  check(options, mode);
  const { forwards, cassetteOnly } = MODE_TRAITS[mode];
  const strict = strictAsked && cassetteOnly;
  const rules = checkedRules(options.rules);
  const onLog =
    options.onLog ??
    ((line: string, level: 'info' | 'warn') =>
      level === 'warn' ? process.stderr.write(`mcp-rewind: ${line}\n`) : undefined);
  const observed = new Observed(options.cassette);
  const upstream: OpenedUpstream | undefined =
    forwards && options.upstream
      ? await openUpstream(specOf(options.upstream), { log: (line, level) => onLog(line, level) })
      : undefined;
  const proxy = await startEngineProxy({
    mode,
    upstreamUrl: upstream?.url,
    upstreamDispatch: upstream?.bridge?.dispatch,
    upstreamHeaders: upstream?.headers,
    cacheDir: options.cassette,
    port: options.port ?? 0,
    rules,
    matchIgnore: options.matchIgnore,
    repeat: options.repeat,
    replayTiming: options.replayTiming,
    redact: options.redact,
    durable: options.fsync !== false,
    strict,
    onMiss: (miss) => observed.missed(miss),
    onLog,
  }).catch(async (error: Error) => {
    await upstream?.close();
    throw error;
  });
  proxy.events.on('exchange', (event) => observed.exchanged(event));
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      await proxy.close();
      await upstream?.close();
    })());
  return {
    url: proxy.url,
    mode,
    strict,
    cassette: options.cassette,
    exchanges: () => observed.exchanges(),
    misses: () => observed.misses(),
    assertNoMisses: () => observed.assertNoMisses(),
    close,
    [Symbol.asyncDispose]: close,
  };
}

import { Command, Option } from 'commander';
import type { Mode } from '../../shared/modes.js';
import { readFileSync } from 'node:fs';
import { describeZodError, RulesFileSchema } from '../../shared/rules/schema.js';
import type { ProxyOptions } from '../engine/proxy.js';
import { compileRedactions } from '../engine/cassette/redact.js';
import { splitShellWords } from '../engine/transports/shell-words.js';
import { UsageError } from '../engine/errors.js';
import { isReplayTiming, REPLAY_TIMING_HINT } from '../../shared/replay-timing.js';
import { BROWSER_ORIGIN_HINT, isBrowserOrigin } from '../../shared/origins.js';
import { parseJson } from '../../shared/json-depth.js';
import {
  DEFAULT_UPSTREAM_MAX_TIME_S,
  DEFAULT_UPSTREAM_TIMEOUT_S,
  UPSTREAM_MAX_TIME_HINT,
  UPSTREAM_TIMEOUT_HINT,
  upstreamLimitsMs,
} from '../../shared/upstream-limits.js';
import { upstreamLimitFlags } from './upstream-limits.js';
import { addOAuthOptions, toOAuthOptions, type OAuthCliOptions } from './oauth-options.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function buildProgram(version: string): Command {
  const program = new Command('mcp-rewind')
    .description('Record, replay and inspect MCP traffic (Streamable HTTP proxy)')
    .version(version, '--version', 'print the version')
    .helpOption('-h, --help', 'show this help')
    .option('-p, --port <port>', 'port to listen on (0 = random)', '0')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('-u, --url <url>', 'upstream MCP server URL (record, hybrid, proxy-only): Streamable HTTP or legacy HTTP+SSE, detected')
    .option(
      '--upstream-command <command>',
      'instead of --url: run the upstream MCP server as a stdio child, e.g. "npx -y some-server --flag" (quotes and backslashes as in sh; no shell)',
    )
    .option('--stdio', 'speak MCP on stdin/stdout (for agents that launch a command); the banner and all logs go to stderr', false)
    .option('-c, --cache <dir>', 'cassette folder', './cache')
    .option('-r, --replay', 'replay from the cache; with --url: hybrid', false)
    .option(
      '--record-missing',
      'hybrid: replay what the cassette holds, record what it misses (needs --url or --upstream-command; creates the cassette folder)',
      false,
    )
    .option('--strict', 'replay: a miss is an error naming the closest recorded key and what differs; at exit, a miss summary and exit status 1', false)
    .option('--proxy-only', 'forward without reading or writing the cache', false)
    .option('--clean', 'wipe the cassette files of the cache folder at startup (record mode only)', false)
    .option(
      '--no-fsync',
      'record, hybrid: answer before the entry is flushed to disk (faster; an answered call can be lost if the proxy or the machine crashes)',
    )
    .option('--upstream-timeout <seconds>', `upstream call: ${UPSTREAM_TIMEOUT_HINT}`, String(DEFAULT_UPSTREAM_TIMEOUT_S))
    .option('--upstream-max-time <seconds>', `upstream call: ${UPSTREAM_MAX_TIME_HINT}`, String(DEFAULT_UPSTREAM_MAX_TIME_S))
    .option('--session-idle <seconds>', 'end client sessions that sent nothing this long, with their upstream session and stdio child (0: never)', '600')
    .option('-v, --verbose', 'log each cache hit, miss, skip and record', false)
    .option('--result-hash-path <path>', 'dot path into the result used as hash input instead of the full result')
    .addOption(new Option('--result-hash-ignore <path>', 'dot path deleted before hashing (relative to --result-hash-path); repeatable').argParser(collect))
    .addOption(
      new Option('--match-ignore <path>', 'replay: dot path into the request params ignored when matching (e.g. arguments.timestamp); repeatable').argParser(
        collect,
      ),
    )
    .addOption(
      new Option('--repeat <policy>', 'replay: once a repeated request used every recorded answer').choices(['last', 'cycle', 'error']).default('last'),
    )
    .option('--replay-timing <timing>', `replay: how long answers take: ${REPLAY_TIMING_HINT}`, 'none')
    .addOption(
      new Option('--redact <regex>', 'secret pattern written as [REDACTED] everywhere in the cassette (headers are redacted anyway); repeatable').argParser(
        collect,
      ),
    )
    .option('--rules <file>', 'JSON file of per-tool rules ({ instructions?, tools: [...], passthrough? }), applied on top of any mode')
    .addOption(new Option('--allowed-host <name>', 'extra Host header value to accept; repeatable').argParser(collect))
    .addOption(new Option('--allowed-origin <origin>', "a browser page's origin that may call the proxy (others are refused); repeatable").argParser(collect));
  return addOAuthOptions(program, true).addHelpText('after', SUBCOMMANDS_HELP);
}

const SUBCOMMANDS_HELP = `
Commands (mcp-rewind <command> --help for each):
  serve    sessions configured over a REST API (MiMCP-compatible), per-tool rules
  verify   send a cassette's requests to the live server and report drift (JUnit with --junit, --update)
  diff     compare two cassettes: keys and tools added, removed, changed (exit 1 on breaking)
  export   a cassette as one file (--out) or as HAR 1.2 (--har)
  auth     status | login <url> | logout <url>: the sign-ins kept for OAuth-protected upstreams
  ui       the app's UI in your browser (127.0.0.1, access token in the printed URL)
  app      the desktop app (needs Electron: npm install electron)`;

interface RawOptions {
  port: string;
  host: string;
  url?: string;
  cache: string;
  replay: boolean;
  recordMissing?: boolean;
  strict?: boolean;
  proxyOnly: boolean;
  clean: boolean;
  verbose: boolean;
  resultHashPath?: string;
  resultHashIgnore?: string[];
  allowedHost?: string[];
  allowedOrigin?: string[];
  rules?: string;
  matchIgnore?: string[];
  redact?: string[];
  repeat?: 'last' | 'cycle' | 'error';
  replayTiming?: string;
  upstreamCommand?: string;
  stdio?: boolean;
  fsync?: boolean;
  sessionIdle?: string;
  oauth?: boolean;
  open?: boolean;
  oauthClientId?: string;
  oauthClientSecretFile?: string;
  oauthCallbackPort?: string;
  signInTimeout?: string;
  upstreamTimeout?: string;
  upstreamMaxTime?: string;
}

/** Validates the parsed flags and turns them into engine options; throws UsageError on a bad combination. */
export function toProxyOptions(raw: RawOptions): ProxyOptions & { verbose: boolean; upstreamCommand?: string; stdio?: boolean; oauth: OAuthCliOptions } {
  if (!/^\d+$/.test(raw.port) || Number(raw.port) > 65535) throw new UsageError(`--port must be an integer between 0 and 65535, got "${raw.port}"`);
  if (raw.replay && raw.proxyOnly) throw new UsageError('--proxy-only cannot be combined with --replay');
  if (raw.recordMissing && raw.proxyOnly) throw new UsageError('--proxy-only cannot be combined with --record-missing');
  if (raw.recordMissing && raw.clean) throw new UsageError('--clean cannot be combined with --record-missing (it would wipe the cassette being replayed)');
  if (raw.recordMissing && raw.url === undefined && raw.upstreamCommand === undefined)
    throw new UsageError('--record-missing needs --url or --upstream-command (the server that answers what the cassette misses)');
  if (raw.clean && raw.replay) throw new UsageError('--clean cannot be combined with --replay (it would wipe the cassette being replayed)');
  if (raw.clean && raw.proxyOnly) throw new UsageError('--clean has no meaning with --proxy-only (no cache is written)');
  if (raw.url !== undefined && raw.upstreamCommand !== undefined) throw new UsageError('--upstream-command cannot be combined with --url (one upstream)');
  if (raw.upstreamCommand !== undefined) {
    let words: string[];
    try {
      words = splitShellWords(raw.upstreamCommand);
    } catch (error) {
      throw new UsageError(`--upstream-command: ${(error as Error).message} in "${raw.upstreamCommand}"`);
    }
    if (words.length === 0) throw new UsageError('--upstream-command must name a command');
  }
  const idle = raw.sessionIdle ?? '600';
  if (!/^\d+(\.\d+)?$/.test(idle)) throw new UsageError(`--session-idle must be a number of seconds, got "${idle}"`);
  const limits = upstreamLimitFlags({
    upstreamTimeout: raw.upstreamTimeout ?? DEFAULT_UPSTREAM_TIMEOUT_S,
    upstreamMaxTime: raw.upstreamMaxTime ?? DEFAULT_UPSTREAM_MAX_TIME_S,
  });
  const live = raw.url !== undefined || raw.upstreamCommand !== undefined;
  const mode: Mode = raw.proxyOnly ? 'proxy-only' : raw.replay || raw.recordMissing ? (live ? 'hybrid' : 'replay') : 'record';
  if (raw.strict && mode !== 'replay')
    throw new UsageError(`--strict applies to replay (--replay without --url or --upstream-command); in ${mode} mode nothing misses`);
  if (raw.replayTiming !== undefined && !isReplayTiming(raw.replayTiming))
    throw new UsageError(`--replay-timing must be ${REPLAY_TIMING_HINT}, got "${raw.replayTiming}"`);
  if (raw.replayTiming !== undefined && raw.replayTiming !== 'none' && mode !== 'replay' && mode !== 'hybrid')
    throw new UsageError('--replay-timing applies to replay (--replay, and hybrid)');
  for (const origin of raw.allowedOrigin ?? [])
    if (!isBrowserOrigin(origin)) throw new UsageError(`--allowed-origin must be ${BROWSER_ORIGIN_HINT}, got "${origin}"`);
  if (mode !== 'replay' && raw.upstreamCommand === undefined) {
    if (!raw.url) throw new UsageError(`--url (or --upstream-command) is required in ${mode} mode (replay needs --replay)`);
    let url: URL;
    try {
      url = new URL(raw.url);
    } catch {
      throw new UsageError(`--url must be a valid URL, got "${raw.url}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--url must be an http:// or https:// URL, got "${raw.url}"`);
  }
  return {
    mode,
    rules: raw.rules === undefined ? undefined : readRules(raw.rules),
    upstreamUrl: raw.url,
    cacheDir: raw.cache,
    host: raw.host,
    port: Number(raw.port),
    clean: raw.clean,
    verbose: raw.verbose,
    resultHashPath: raw.resultHashPath,
    resultHashIgnore: raw.resultHashIgnore,
    matchIgnore: raw.matchIgnore,
    redact: checkedRedactions(raw.redact),
    repeat: raw.repeat,
    replayTiming: raw.replayTiming,
    strict: raw.strict === true,
    allowedHosts: raw.allowedHost,
    allowedOrigins: raw.allowedOrigin,
    upstreamCommand: raw.upstreamCommand,
    stdio: raw.stdio,
    durable: raw.fsync !== false,
    sessionIdleMs: Math.round(Number(idle) * 1000),
    ...upstreamLimitsMs(limits.upstreamTimeoutS, limits.upstreamMaxTimeS),
    oauth: toOAuthOptions(raw as unknown as Record<string, unknown>),
  };
}

export type { RawOptions };

function readRules(file: string): ProxyOptions['rules'] {
  let json: unknown;
  try {
    json = parseJson(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--rules ${file}: ${(error as Error).message}`);
  }
  const parsed = RulesFileSchema.safeParse(json);
  if (!parsed.success) throw new UsageError(`--rules ${file}: ${describeZodError(parsed.error)}`);
  const { instructions, ...overlay } = parsed.data;
  return { overlay, instructions };
}

function checkedRedactions(patterns: string[] | undefined): string[] | undefined {
  if (!patterns) return undefined;
  try {
    compileRedactions(patterns);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return patterns;
}

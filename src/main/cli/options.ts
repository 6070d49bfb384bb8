import type { z } from 'zod';
import { MODE_TRAITS, type Mode } from '../../shared/modes.js';
import { MAX_COMMAND_CHARS, ProxyConfigSchema, type ProxyConfig, type ProxyField } from '../../shared/proxy-config.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeZodError, engineRules, RulesFileSchema } from '../../shared/rules/schema.js';
import type { ProxyOptions } from '../engine/proxy.js';
import { compileRedactions } from '../engine/redact.js';
import { splitShellWords } from '../engine/transports/shell-words.js';
import { UsageError } from '../engine/errors.js';
import type { RepeatPolicy } from '../../shared/replay-repeat.js';
import { REPLAY_TIMING_HINT } from '../../shared/replay-timing.js';
import { BROWSER_ORIGIN_HINT } from '../../shared/origins.js';
import { parseJson } from '../../shared/json-depth.js';
import {
  DEFAULT_UPSTREAM_MAX_TIME_S,
  DEFAULT_UPSTREAM_TIMEOUT_S,
  upstreamLimitsMs,
} from '../../shared/upstream-limits.js';
import { upstreamLimitFlags } from './upstream-limits.js';
import { givenSignInFlags, toOAuthOptions, type OAuthCliOptions } from './oauth-options.js';

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
  repeat?: RepeatPolicy;
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
  attach?: boolean;
  attachName?: string;
  record?: string;
  dataDir?: string;
}

/** The flag of each proxy configuration field the CLI sets, and what it must be. */
const FLAGS: Partial<Record<ProxyField, { flag: string; expects: string }>> = {
  upstreamUrl: { flag: '--url', expects: 'an http:// or https:// URL' },
  upstreamCommand: { flag: '--upstream-command', expects: `a command line of at most ${MAX_COMMAND_CHARS} characters` },
  cacheDir: { flag: '--cache', expects: 'a folder' },
  port: { flag: '--port', expects: 'an integer between 0 and 65535' },
  replayTiming: { flag: '--replay-timing', expects: REPLAY_TIMING_HINT },
  allowedOrigins: { flag: '--allowed-origin', expects: BROWSER_ORIGIN_HINT },
  oauth: { flag: '--oauth-client-id', expects: 'a client id of at most 1,000 characters' },
};

/**
 * A problem the proxy configuration schema found, in the words of the flag: a value the flag must not have, or a
 * flag that is missing (a mode that forwards needs an upstream: the schema's own sentence).
 */
function flagProblem(issue: z.core.$ZodIssue, given: Record<string, unknown>, recordByDefault: boolean): string {
  const field = issue.path[0] as ProxyField;
  const { flag, expects } = FLAGS[field] ?? { flag: String(field), expects: issue.message };
  const value = issue.path.reduce<unknown>((at, key) => (at as Record<PropertyKey, unknown> | undefined)?.[key], given);
  if (value === undefined)
    return `${flag}: ${issue.message}${recordByDefault ? ' (to replay a cassette: --replay)' : ''}`;
  return `${flag} must be ${expects}, got "${String(value)}"`;
}

/** The flags' proxy configuration, checked by the one schema the app, `serve` and the New proxy form use. */
function checkedConfig(
  raw: RawOptions,
  mode: Mode,
  limits: Pick<ProxyConfig, 'upstreamTimeoutS' | 'upstreamMaxTimeS'>,
): ProxyConfig {
  const config = {
    mode,
    upstreamUrl: raw.url,
    upstreamCommand: raw.upstreamCommand,
    cacheDir: raw.cache,
    port: /^\d+$/.test(raw.port) ? Number(raw.port) : NaN,
    replayTiming: raw.replayTiming,
    strict: raw.strict === true,
    allowedOrigins: raw.allowedOrigin,
    ...limits,
    ...(raw.oauth === false || raw.oauthClientId !== undefined
      ? {
          oauth: {
            ...(raw.oauth === false ? { disabled: true } : {}),
            ...(raw.oauthClientId !== undefined ? { clientId: raw.oauthClientId } : {}),
          },
        }
      : {}),
  };
  const parsed = ProxyConfigSchema.safeParse(config);
  if (!parsed.success)
    throw new UsageError(
      flagProblem(parsed.error.issues[0], { ...config, port: raw.port }, !raw.replay && !raw.proxyOnly),
    );
  return parsed.data;
}

/** What --attach adds to the proxy's options. */
export interface AttachCliOptions {
  name: string;
  record?: string;
  dataDir?: string;
}

/** --attach's checks: only with --stdio and a live upstream, never with a mode of its own (the app says what to record). */
function attachOptions(raw: RawOptions, upstreamArgv: string[]): AttachCliOptions | undefined {
  if (!raw.attach) {
    for (const [flag, value] of [
      ['--attach-name', raw.attachName],
      ['--record', raw.record],
      ['--data-dir', raw.dataDir],
    ] as const)
      if (value !== undefined) throw new UsageError(`${flag} needs --attach`);
    return undefined;
  }
  if (!raw.stdio) throw new UsageError('--attach needs --stdio (an agent starts it as a command)');
  if (raw.replay || raw.clean || raw.proxyOnly)
    throw new UsageError(
      '--attach cannot be combined with --replay, --clean or --proxy-only (it records only with --record, or when the app says so)',
    );
  if (raw.rules !== undefined)
    throw new UsageError('--attach takes its rules from the app; --rules cannot be combined with it');
  const name = raw.attachName ?? upstreamArgv[0] ?? raw.upstreamCommand ?? raw.url ?? 'mcp-rewind';
  return { name: name.slice(0, 200), record: raw.record, dataDir: raw.dataDir };
}

/** Flags that cannot go together, and a command line that does not split into words: UsageErrors. */
function checkFlagCombinations(raw: RawOptions, upstreamArgv: string[]): void {
  if (raw.replay && raw.proxyOnly) throw new UsageError('--proxy-only cannot be combined with --replay');
  if (raw.recordMissing && raw.proxyOnly) throw new UsageError('--proxy-only cannot be combined with --record-missing');
  if (raw.recordMissing && raw.clean)
    throw new UsageError(
      '--clean cannot be combined with --record-missing (it would wipe the cassette being replayed)',
    );
  if (raw.recordMissing && raw.url === undefined && raw.upstreamCommand === undefined)
    throw new UsageError(
      '--record-missing needs --url or --upstream-command (the server that answers what the cassette misses)',
    );
  if (raw.clean && raw.replay)
    throw new UsageError('--clean cannot be combined with --replay (it would wipe the cassette being replayed)');
  if (raw.clean && raw.proxyOnly)
    throw new UsageError('--clean has no meaning with --proxy-only (no cache is written)');
  if (raw.url !== undefined && raw.upstreamCommand !== undefined)
    throw new UsageError('--upstream-command cannot be combined with --url (one upstream)');
  if (raw.upstreamCommand !== undefined && !upstreamArgv.length) {
    let words: string[];
    try {
      words = splitShellWords(raw.upstreamCommand);
    } catch (error) {
      throw new UsageError(`--upstream-command: ${(error as Error).message} in "${raw.upstreamCommand}"`);
    }
    if (words.length === 0) throw new UsageError('--upstream-command must name a command');
  }
}

/** Flags that only some modes use: --strict (replay), --replay-timing (replay, hybrid), the sign-in's (a mode with an upstream). */
function checkModeFlags(raw: RawOptions, mode: Mode, config: ProxyConfig): void {
  const traits = MODE_TRAITS[mode];
  if (config.strict && !traits.cassetteOnly)
    throw new UsageError(
      `--strict applies to replay (--replay without --url or --upstream-command); in ${mode} mode nothing misses`,
    );
  if (config.replayTiming !== undefined && config.replayTiming !== 'none' && !traits.replays)
    throw new UsageError('--replay-timing applies to replay (--replay, and hybrid)');
  const signInFlag = givenSignInFlags(raw as unknown as Record<string, unknown>)[0];
  if (signInFlag && !traits.forwards)
    throw new UsageError(
      `${signInFlag} applies to the modes that use the upstream (record, hybrid, proxy-only); replay signs in to none`,
    );
}

/** Validates the parsed flags and turns them into engine options; throws UsageError on a bad combination. */
export function toProxyOptions(
  raw: RawOptions,
  /** the positional arguments commander saw, and those of them after `--` (the only place they may be) */
  positional: string[] = [],
  upstreamArgv: string[] = positional,
): ProxyOptions & {
  verbose: boolean;
  upstreamCommand?: string;
  upstreamArgv?: string[];
  stdio?: boolean;
  attach?: AttachCliOptions;
  oauth: OAuthCliOptions;
} {
  raw = withUpstreamArgv(raw, positional, upstreamArgv);
  const attach = attachOptions(raw, upstreamArgv);
  checkFlagCombinations(raw, upstreamArgv);
  const idle = raw.sessionIdle ?? '600';
  if (!/^\d+(\.\d+)?$/.test(idle)) throw new UsageError(`--session-idle must be a number of seconds, got "${idle}"`);
  const limits = upstreamLimitFlags({
    upstreamTimeout: raw.upstreamTimeout ?? DEFAULT_UPSTREAM_TIMEOUT_S,
    upstreamMaxTime: raw.upstreamMaxTime ?? DEFAULT_UPSTREAM_MAX_TIME_S,
  });
  const mode = modeOf(raw, attach !== undefined);
  const config = checkedConfig(raw, mode, limits);
  checkModeFlags(raw, mode, config);
  return {
    mode,
    rules: raw.rules === undefined ? undefined : readRules(raw.rules),
    upstreamUrl: config.upstreamUrl,
    cacheDir: config.cacheDir,
    host: raw.host,
    port: config.port,
    clean: raw.clean,
    verbose: raw.verbose,
    resultHashPath: raw.resultHashPath,
    resultHashIgnore: raw.resultHashIgnore,
    matchIgnore: raw.matchIgnore,
    redact: checkedRedactions(raw.redact),
    repeat: raw.repeat,
    replayTiming: config.replayTiming,
    strict: config.strict === true,
    allowedHosts: raw.allowedHost,
    allowedOrigins: config.allowedOrigins,
    upstreamCommand: config.upstreamCommand,
    ...(upstreamArgv.length ? { upstreamArgv } : {}),
    stdio: raw.stdio,
    durable: raw.fsync !== false,
    // an attached proxy serves one agent for its whole life: its session (and the server's process) never idles out
    sessionIdleMs: attach && raw.sessionIdle === undefined ? 0 : Math.round(Number(idle) * 1000),
    ...(attach ? { attach } : {}),
    ...upstreamLimitsMs(config.upstreamTimeoutS, config.upstreamMaxTimeS),
    oauth: toOAuthOptions(
      raw as unknown as Record<string, unknown>,
      process.env,
      raw.dataDir === undefined ? undefined : resolve(raw.dataDir),
    ),
  };
}

export type { RawOptions };

/** The upstream given after `--` as the command line (the only place positional arguments may be). */
function withUpstreamArgv(raw: RawOptions, positional: string[], upstreamArgv: string[]): RawOptions {
  if (positional.length > upstreamArgv.length)
    throw new UsageError(`unexpected argument "${positional[0]}" (an upstream command and its arguments go after --)`);
  if (upstreamArgv.length && (raw.upstreamCommand !== undefined || raw.url !== undefined))
    throw new UsageError('an upstream after -- cannot be combined with --upstream-command or --url (one upstream)');
  return upstreamArgv.length ? { ...raw, upstreamCommand: upstreamArgv.join(' ') } : raw;
}

/** The mode the flags ask for: --proxy-only (or --attach), --replay / --record-missing (hybrid with an upstream), else record. */
function modeOf(raw: RawOptions, attached: boolean): Mode {
  const live = raw.url !== undefined || raw.upstreamCommand !== undefined;
  if (raw.proxyOnly || attached) return 'proxy-only';
  if (raw.replay || raw.recordMissing) return live ? 'hybrid' : 'replay';
  return 'record';
}

function readRules(file: string): ProxyOptions['rules'] {
  let json: unknown;
  try {
    json = parseJson(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`--rules ${file}: ${(error as Error).message}`);
  }
  const parsed = RulesFileSchema.safeParse(json);
  if (!parsed.success) throw new UsageError(`--rules ${file}: ${describeZodError(parsed.error)}`);
  return engineRules(parsed.data);
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

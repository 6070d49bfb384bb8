import { describeZodError, engineRules, RulesFileSchema, type RulesFileInput } from '../shared/rules/schema.js';
import { isReplayTiming, REPLAY_TIMING_HINT } from '../shared/replay-timing.js';
import { compileRedactions } from '../main/engine/redact.js';
import { REPEAT_POLICIES, type RepeatPolicy as ReplayRepeat } from '../shared/replay-repeat.js';
import { OptionsError } from './errors.js';
import type { LibraryMode } from './mode.js';

/** A rules file (docs/rules.md): per-tool relay / override / inject rules, applied on top of any mode. */
export type RulesFile = RulesFileInput;
/** What replay does once repeated identical requests have used every recorded answer: `last`, `cycle`, `error`. */
export type RepeatPolicy = ReplayRepeat;

/** What the cassette options of startProxy and wrapTransport share. */
export interface CassetteOptions {
  /** record, replay, hybrid (replay, else record), passthrough / proxy-only; default from the environment (resolveMode) */
  mode?: LibraryMode;
  /** the cassette: a folder in mcp-rewind's layout (record, hybrid), or a single-file cassette (replay only) */
  cassette?: string;
  /** replay: dot paths into the request params ignored when matching (e.g. `arguments.timestamp`) */
  matchIgnore?: string[];
  /** replay: once a repeated request used every recorded answer: `last` (default), `cycle`, `error` */
  repeat?: RepeatPolicy;
  /** replay: a miss is a JSON-RPC error naming the closest recorded key and what differs; default `MCP_REWIND_STRICT` */
  strict?: boolean;
  /** regular expressions whose matches are written as `[REDACTED]` everywhere in the cassette */
  redact?: string[];
  /** record, hybrid: false answers before an entry is fsynced (faster; close() still waits for it) — default true */
  fsync?: boolean;
  /** the environment the mode is read from (default process.env) */
  env?: NodeJS.ProcessEnv;
  /** the engine's log lines (warnings: a file that cannot be read, a failed write) */
  onLog?: (line: string, level: 'info' | 'warn') => void;
}

/** Checks the options every entry point shares; throws OptionsError naming the option. */
export function checkCassetteOptions(options: CassetteOptions): void {
  if (options.repeat !== undefined && !REPEAT_POLICIES.includes(options.repeat))
    throw new OptionsError(`repeat must be last, cycle or error, got "${String(options.repeat)}"`);
  try {
    compileRedactions(options.redact ?? []);
  } catch (error) {
    throw new OptionsError(`redact: ${(error as Error).message}`);
  }
}

/** A rules file (docs/rules.md) checked, as the engine takes it; throws OptionsError naming what is wrong. */
export function checkedRules(rules: RulesFile | undefined): ReturnType<typeof engineRules> | undefined {
  if (rules === undefined) return undefined;
  const parsed = RulesFileSchema.safeParse(rules);
  if (!parsed.success) throw new OptionsError(`rules: ${describeZodError(parsed.error)}`);
  return engineRules(parsed.data);
}

export function checkReplayTiming(timing: string | undefined): void {
  if (timing !== undefined && !isReplayTiming(timing))
    throw new OptionsError(`replayTiming must be ${REPLAY_TIMING_HINT}, got "${timing}"`);
}

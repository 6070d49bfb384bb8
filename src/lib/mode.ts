import type { Mode } from '../shared/modes.js';
import { OptionsError } from './errors.js';

/** A mode as the library takes it: the engine's four, and `passthrough` (Polly's word for proxy-only). */
export type LibraryMode = Mode | 'passthrough';

/** The mode and strictness a suite runs in, and where they came from. */
export interface ResolvedMode {
  mode: Mode;
  strict: boolean;
}

const NAMES: ReadonlyMap<string, Mode> = new Map<string, Mode>([
  ['record', 'record'],
  ['replay', 'replay'],
  ['hybrid', 'hybrid'],
  ['proxy-only', 'proxy-only'],
  ['passthrough', 'proxy-only'],
]);

function modeNamed(name: string, where: string): Mode {
  const mode = NAMES.get(name.trim().toLowerCase());
  if (!mode) throw new OptionsError(`${where} must be record, replay, hybrid or passthrough, got "${name}"`);
  return mode;
}

const isOn = (value: string | undefined): boolean => value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());

/**
 * The mode of a proxy or wrapped transport: the option when given, else `MCP_REWIND_MODE` (record, replay, hybrid,
 * passthrough), else `replay` on CI (`CI=true`) and `hybrid` elsewhere (replay what is recorded, record what is
 * missing). Strict: the option when given, else `MCP_REWIND_STRICT=1`; it only changes replay.
 */
export function resolveMode(
  options: { mode?: LibraryMode; strict?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): ResolvedMode {
  const fromEnv = env.MCP_REWIND_MODE?.trim() ? modeNamed(env.MCP_REWIND_MODE, 'MCP_REWIND_MODE') : undefined;
  const mode =
    options.mode !== undefined ? modeNamed(options.mode, 'mode') : (fromEnv ?? (isOn(env.CI) ? 'replay' : 'hybrid'));
  return { mode, strict: options.strict ?? isOn(env.MCP_REWIND_STRICT) };
}

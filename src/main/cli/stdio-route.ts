import { MODE_TRAITS } from '../../shared/modes.js';
import type { ChildSpec } from '../engine/transports/child-upstream.js';
import { fullEnvironment } from '../engine/transports/child-env.js';
import { launchChild, type LaunchedChild } from '../engine/transports/stdio-child.js';
import type { toProxyOptions } from './options.js';

// A module of its own, light: the CLI asks it before it loads the stdio pipeline (stdio-pipe.ts and the engine).

type ProxyCliOptions = ReturnType<typeof toProxyOptions>;

/**
 * Does this run go stdio to stdio through the message-level pipeline (engine/stdio-proxy.ts)? `--stdio` in front of
 * a command (or of nothing: replay), in every mode; an HTTP upstream, and replay timing other than none, keep the
 * HTTP endpoint (downstream-stdio.ts).
 */
export function pipesStdio(options: ProxyCliOptions, spec: object | undefined): boolean {
  if (!options.stdio || (spec !== undefined && 'url' in spec)) return false;
  if (options.replayTiming !== undefined && options.replayTiming !== 'none' && MODE_TRAITS[options.mode].replays)
    return false;
  return spec !== undefined || !MODE_TRAITS[options.mode].forwards;
}

/**
 * The stdio server, spawned now where every message goes to it (proxy-only, which --attach is, and record): it
 * boots while the pipeline loads and the client sends its initialize, as it would started directly. A mode that
 * replays starts it at the first miss only (or never).
 */
export function launchEarly(options: ProxyCliOptions, spec: ChildSpec | undefined): LaunchedChild | undefined {
  const { forwards, replays } = MODE_TRAITS[options.mode];
  if (!spec || !forwards || replays) return undefined;
  return launchChild({ command: spec.command, args: spec.args, env: fullEnvironment(spec.env), cwd: spec.cwd });
}

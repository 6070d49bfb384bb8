import { stat } from 'node:fs/promises';
import { redactUrl } from '../../engine/redact.js';
import { describeError, UnreachableError } from '../../engine/errors.js';
import type { Log } from '../../engine/log.js';
import { commandSpec } from '../../engine/upstream/command.js';
import { openUpstream as openEngineUpstream, type OpenedUpstream } from '../../engine/upstream/open.js';
import type { ProxyConfig, ProxyFailure } from '../../../shared/api.js';
import { MODE_TRAITS } from '../../../shared/modes.js';
import type { UpstreamAuth } from '../../engine/upstream/oauth/challenge.js';

/**
 * What a UI proxy needs before it may say "running": its upstream answers an MCP initialize (live modes), or its
 * cassette exists (replay: never created here). Built from the engine's own start-up pieces, the way the CLI opens
 * an upstream: the engine's openUpstream (detect legacy HTTP+SSE, bridge stdio and legacy SSE, probe with initialize).
 */

/** A start that cannot work: `message` names the form's field; `failure` says what failed. */
export class ProxyStartError extends Error {
  constructor(
    message: string,
    readonly failure: ProxyFailure,
  ) {
    super(message);
    this.name = 'ProxyStartError';
  }
}

const PROBE_TIMEOUT_MS = 10_000;

/** A mode that only reads its cassette (replay): it (a folder, or a single-file cassette) must exist and be readable; nothing is created. */
export async function checkCassette(config: ProxyConfig, dir: string | undefined): Promise<void> {
  if (!MODE_TRAITS[config.mode].needsExistingCassette || !dir) return;
  try {
    await stat(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'cannot be read (permission denied)'
          : `cannot be read (${describeError(error)})`;
    throw new ProxyStartError(
      `Cassette folder ${dir} ${why}: replay answers from a recorded cassette and never creates one`,
      'cassette',
    );
  }
}

/**
 * Opens a live mode's upstream with the engine's openUpstream (as the CLI and `serve` do: detect, bridge a stdio or
 * legacy HTTP+SSE server, probe with an MCP initialize), worded for the form: a ProxyStartError naming the URL or the
 * command (never the bridge's internal loopback address). `log` gets the bridge's lines (a stdio server's stderr).
 */
export async function openUpstream(
  config: ProxyConfig,
  log: Log,
  allowedOrigins?: () => readonly string[],
  auth?: UpstreamAuth,
): Promise<OpenedUpstream | undefined> {
  if (!MODE_TRAITS[config.mode].forwards) return undefined;
  const command = config.upstreamCommand;
  let spec;
  try {
    spec = command ? commandSpec(command) : { url: config.upstreamUrl as string };
  } catch (error) {
    throw new ProxyStartError(
      `stdio command "${command}" cannot be split into words: ${(error as Error).message}`,
      'upstream',
    );
  }
  try {
    return await openEngineUpstream(spec, { log, timeoutMs: PROBE_TIMEOUT_MS, allowedOrigins, auth });
  } catch (error) {
    const why = error instanceof UnreachableError ? error.reason : describeError(error);
    if (!command)
      throw new ProxyStartError(
        `Upstream URL ${redactUrl(config.upstreamUrl as string)} did not answer an MCP initialize: ${why}`,
        'upstream',
      );
    const failure = error instanceof UnreachableError ? error.failure : undefined;
    if (failure?.kind === 'not-started')
      throw new ProxyStartError(`stdio command "${command}" did not start: ${failure.error}`, 'upstream');
    // a server that says nothing in time: what it printed on stderr is the best clue
    const printed =
      failure?.kind === 'timeout'
        ? failure.printed
            .filter((l) => l.trim())
            .slice(-3)
            .join(' / ')
        : '';
    throw new ProxyStartError(
      `stdio command "${command}" did not answer an MCP initialize: ${why}${printed ? ` (it printed: ${printed})` : ''}`,
      'upstream',
    );
  }
}

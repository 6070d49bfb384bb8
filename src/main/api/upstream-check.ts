import { stat } from 'node:fs/promises';
import { redactUrl } from '../engine/cassette/redact.js';
import { detectUpstreamKind } from '../engine/transports/detect.js';
import { splitShellWords } from '../engine/transports/shell-words.js';
import { startUpstreamBridge, type UpstreamBridge } from '../engine/transports/upstream-bridge.js';
import { probeUpstream } from '../engine/upstream/http-upstream.js';
import type { ProxyConfig, ProxyFailure } from '../../shared/api.js';

/**
 * What a UI proxy needs before it may say "running": its upstream answers an MCP initialize (live modes), or its
 * cassette exists (replay: never created here). Built from the engine's own start-up pieces, the way the CLI opens
 * an upstream (detect legacy HTTP+SSE, bridge stdio and legacy SSE, probe with initialize). When the engine gets one
 * `openUpstream(spec)` for the CLI, the app and `serve`, this file becomes a call to it.
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

export interface OpenedUpstream {
  /** what the pipeline talks to: the upstream's own URL, or a bridge's */
  url?: string;
  bridge?: UpstreamBridge;
}

const PROBE_TIMEOUT_MS = 10_000;

function reason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e.code && !e.message.includes(e.code) ? `${e.code} ${e.message}` : e.message;
}

/** Replay: the cassette (a folder, or a single-file cassette) must exist and be readable; nothing is created. */
export async function checkCassette(config: ProxyConfig, dir: string | undefined): Promise<void> {
  if (config.mode !== 'replay' || !dir) return;
  try {
    await stat(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'cannot be read (permission denied)' : `cannot be read (${reason(error)})`;
    throw new ProxyStartError(`Cassette folder ${dir} ${why}: replay answers from a recorded cassette and never creates one`, 'cassette');
  }
}

/**
 * Opens a live mode's upstream: a stdio command behind a bridge, or a URL (legacy HTTP+SSE behind a bridge), and
 * checks it with an MCP initialize. Throws a ProxyStartError naming the URL or the command (never the bridge's
 * internal loopback address). `log` gets the bridge's lines (a stdio server's stderr).
 */
export async function openUpstream(config: ProxyConfig, log: (line: string, level?: 'info' | 'warn') => void): Promise<OpenedUpstream> {
  if (config.mode === 'replay') return {};
  if (config.upstreamCommand) {
    const [command, ...args] = splitShellWords(config.upstreamCommand);
    const said: string[] = []; // what the child printed on stderr: the reason a command fails is usually there
    const bridge = await startUpstreamBridge({ kind: 'stdio', command, args }, (line, level) => {
      if (said.length < 20) said.push(line.replace(/^upstream [^:]*: /, ''));
      log(line, level);
    }).catch((error: unknown) => {
      throw new ProxyStartError(`stdio command "${config.upstreamCommand}" did not start: ${reason(error)}`, 'upstream');
    });
    const problem = await probeUpstream(bridge.url, PROBE_TIMEOUT_MS);
    if (problem) {
      await bridge.close();
      const why = problem.replace(/^initialize failed: /, '').replace(/^mcp-rewind: /, '').replace(/ \(-32005\)$/, '').replace(/https?:\/\/127\.0\.0\.1:\d+\/mcp/g, 'the bridge');
      const notStarted = /could not start the upstream command "[^"]*": (.*)$/.exec(why);
      if (notStarted) throw new ProxyStartError(`stdio command "${config.upstreamCommand}" did not start: ${notStarted[1]}`, 'upstream');
      // a server that says nothing in time: what it printed on stderr is the best clue
      const printed = /no answer within/.test(why) ? said.filter((l) => l.trim() && !/^upstream process /.test(l)).slice(-3).join(' / ') : '';
      throw new ProxyStartError(`stdio command "${config.upstreamCommand}" did not answer an MCP initialize: ${why}${printed ? ` (it printed: ${printed})` : ''}`, 'upstream');
    }
    return { url: bridge.url, bridge };
  }
  const url = config.upstreamUrl as string;
  const label = redactUrl(url);
  let bridge: UpstreamBridge | undefined;
  try {
    const kind = await detectUpstreamKind(url, { timeoutMs: PROBE_TIMEOUT_MS });
    if (kind === 'sse') bridge = await startUpstreamBridge({ kind: 'sse', url }, log);
  } catch (error) {
    throw new ProxyStartError(`Upstream URL ${label} did not answer an MCP initialize: ${reason(error)}`, 'upstream');
  }
  const problem = await probeUpstream(bridge?.url ?? url, PROBE_TIMEOUT_MS);
  if (problem) {
    await bridge?.close();
    throw new ProxyStartError(`Upstream URL ${label} did not answer an MCP initialize: ${problem}`, 'upstream');
  }
  return { url: bridge?.url ?? url, bridge };
}

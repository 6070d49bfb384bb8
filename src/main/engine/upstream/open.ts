import { redactUrl } from '../redact.js';
import { McpError, ErrorCode as SdkErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { describeError, notStartedOf, timeoutOf, UnreachableError, type UnreachableFailure } from '../errors.js';
import type { Log } from '../log.js';
import { startUpstreamBridge, type UpstreamBridge } from '../transports/upstream-bridge.js';
import type { GuardOptions } from '../http/guard.js';
import { hasAuthorization } from '../http/headers.js';
import type { UpstreamAuth } from './oauth/challenge.js';
import { SignInRequiredError } from './oauth/steps.js';

/** An upstream MCP server as the user names it: a URL (Streamable HTTP or legacy HTTP+SSE, detected) or a command. */
export type UpstreamSpec =
  | { url: string; headers?: Record<string, string> }
  | { command: string; args: string[]; env?: Record<string, string>; cwd?: string };

export interface OpenedUpstream {
  /** the Streamable HTTP URL the pipeline talks to: the server's own, or the bridge's in front of it */
  readonly url: string;
  /** headers for every request to `url` (the server's credentials; none through a bridge, which adds them itself) */
  readonly headers?: Record<string, string>;
  readonly kind: 'streamable-http' | 'sse' | 'stdio';
  /** for banners and logs: the URL without credentials, or the command */
  readonly label: string;
  /** the bridge of a stdio or legacy SSE upstream */
  readonly bridge?: UpstreamBridge;
  /** the upstream answered 401: the proxy must sign in (its `auth`) before the upstream answers anything */
  readonly needsSignIn?: boolean;
  close(): Promise<void>;
}

export interface OpenOptions {
  log: Log;
  /** check with an initialize of the proxy's own that the server answers MCP (default true) */
  probe?: boolean;
  /**
   * a URL whose server cannot be reached yet is taken as Streamable HTTP instead of refused (`serve`: its supervisor
   * keeps retrying); a server that answers but speaks neither transport is still refused
   */
  lenient?: boolean;
  timeoutMs?: number;
  /** a bridged upstream's sessions nobody used this long end, with their stdio child (default 10 min; 0: never) */
  idleMs?: number;
  /** the browser origins the proxy in front admits: its requests reach the bridge with their Origin (guard.ts) */
  allowedOrigins?: GuardOptions['allowedOrigins'];
  /**
   * the URL's OAuth sign-in (ignored when the spec's headers carry an Authorization): detection and the probe use its
   * token; an upstream that wants a sign-in nobody made yet is taken as Streamable HTTP with `needsSignIn`
   */
  auth?: UpstreamAuth;
}

/**
 * The one way to open an upstream — for the CLI, the app and `serve`: detect the transport of a URL, bridge a
 * legacy SSE server or a command onto Streamable HTTP (transports/upstream-bridge.ts), then probe it. Throws an
 * UnreachableError naming the upstream when it does not answer MCP; nothing is left running then.
 */
export async function openUpstream(spec: UpstreamSpec, options: OpenOptions): Promise<OpenedUpstream> {
  const label = 'url' in spec ? redactUrl(spec.url) : `${[spec.command, ...spec.args].join(' ')} (stdio)`;
  let bridge: UpstreamBridge | undefined;
  const auth = 'url' in spec && !hasAuthorization(spec.headers) ? options.auth : undefined;
  try {
    const { kind, needsSignIn } = 'url' in spec ? await detect(spec, options, auth) : { kind: 'stdio' as const };
    bridge = await bridgeOf(spec, kind, options);
    const url = bridge?.url ?? (spec as { url: string }).url;
    const headers = bridge ? undefined : (spec as { headers?: Record<string, string> }).headers;
    // a Streamable HTTP server found by detection has answered a full handshake already
    if (
      options.probe !== false &&
      !needsSignIn &&
      (kind !== 'streamable-http' || !('url' in spec) || options.lenient)
    ) {
      const { closeOwnClient, connectOwnClient } = await import('./own-client.js'); // the SDK's Client: only to probe
      const client = await connectOwnClient(url, {
        name: 'mcp-rewind-probe',
        headers,
        timeoutMs: options.timeoutMs,
        auth: bridge ? undefined : auth,
      });
      await closeOwnClient(client);
    }
    const opened = bridge;
    return {
      url,
      headers,
      kind,
      label: kind === 'sse' ? `${label} (legacy HTTP+SSE)` : label,
      bridge,
      needsSignIn: needsSignIn ?? false,
      close: async () => {
        await opened?.close();
      },
    };
  } catch (error) {
    await bridge?.close();
    throw unreachable(error, label, bridge);
  }
}

type UrlSpec = Extract<UpstreamSpec, { url: string }>;

/** The transport a URL's server speaks; a 401 with a Bearer challenge is Streamable HTTP that needs a sign-in. */
async function detect(
  spec: UrlSpec,
  options: OpenOptions,
  auth: UpstreamAuth | undefined,
): Promise<{ kind: OpenedUpstream['kind']; needsSignIn?: boolean }> {
  const { detectUpstreamKind, NotMcpError } = await import('./detect.js'); // a URL's only: SDK clients
  try {
    return { kind: await detectUpstreamKind(spec.url, { headers: spec.headers, timeoutMs: options.timeoutMs, auth }) };
  } catch (error) {
    // a 401 with a Bearer challenge: Streamable HTTP (legacy SSE servers are not signed in to)
    if (error instanceof SignInRequiredError) return { kind: 'streamable-http', needsSignIn: true };
    if (options.lenient && !(error instanceof NotMcpError)) return { kind: 'streamable-http' }; // not reachable yet
    throw error;
  }
}

/** The bridge onto Streamable HTTP of a legacy SSE server or a command; none for a Streamable HTTP server. */
function bridgeOf(
  spec: UpstreamSpec,
  kind: OpenedUpstream['kind'],
  options: OpenOptions,
): Promise<UpstreamBridge> | undefined {
  const bridgeOptions = { idleMs: options.idleMs, allowedOrigins: options.allowedOrigins };
  if ('url' in spec)
    return kind === 'sse'
      ? startUpstreamBridge({ kind: 'sse', url: spec.url, headers: spec.headers }, options.log, bridgeOptions)
      : undefined;
  const { command, args, env, cwd } = spec;
  return startUpstreamBridge({ kind: 'stdio', command, args, env, cwd }, options.log, bridgeOptions);
}

/** The error that says an upstream did not answer MCP, and why, in words and as data. */
function unreachable(error: unknown, label: string, bridge: UpstreamBridge | undefined): UnreachableError {
  // the SDK client words a JSON-RPC error answer "MCP error <code>: …"; the bridge's own answers start "mcp-rewind: "
  let reason = describeError(causeOf(error))
    .replace(/^MCP error -?\d+: /, '')
    .replace(/^mcp-rewind: /, '');
  if (bridge) reason = reason.replaceAll(bridge.url, 'the bridge'); // its loopback address means nothing to the user
  return new UnreachableError(`upstream ${label} did not answer an MCP initialize: ${reason}`, {
    cause: error,
    reason,
    failure: failureOf(error, bridge),
  });
}

/** Why the probe failed, from the error's kind and data (never its text). */
function failureOf(error: unknown, bridge: UpstreamBridge | undefined): UnreachableFailure {
  const notStarted = notStartedOf(error);
  if (notStarted !== undefined) return { kind: 'not-started', error: notStarted };
  const e = causeOf(error);
  const timedOut =
    (e instanceof McpError && e.code === SdkErrorCode.RequestTimeout) ||
    e.name === 'TimeoutError' ||
    timeoutOf(e) !== undefined;
  return timedOut ? { kind: 'timeout', printed: [...(bridge?.printed() ?? [])] } : { kind: 'other' };
}

/** fetch failures hide the network error (ECONNREFUSED) in `cause` */
function causeOf(error: unknown): Error {
  const e = error as Error & { cause?: unknown };
  return e.cause instanceof Error && (e.cause as NodeJS.ErrnoException).code ? e.cause : e;
}

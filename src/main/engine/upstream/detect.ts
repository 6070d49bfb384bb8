/**
 * Which transport does the server at `--url` speak? Streamable HTTP, or legacy HTTP+SSE (2024-11-05) — found the way
 * the SDK's documented fallback does, with the SDK's own Client: an initialize over Streamable HTTP; a 4xx
 * (400/404/405 in 2025-11-25, any 4xx before) means "try the old way": the same handshake over SSE.
 *
 * Each attempt is a full MCP handshake of the proxy's own (upstream/own-client.ts), so a detected server has also
 * answered MCP; the sessions it opened are ended (DELETE) at once.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { closeOwnClient, connectOwnClient } from './own-client.js';
import type { UpstreamAuth } from './oauth/challenge.js';
import { SignInRequiredError } from './oauth/steps.js';

export type UpstreamKind = 'streamable-http' | 'sse';

/** The server answered, but speaks neither Streamable HTTP nor legacy HTTP+SSE (not "unreachable"). */
export class NotMcpError extends Error {
  override name = 'NotMcpError';
}

export interface DetectOptions {
  /** sent on every request (e.g. Authorization) */
  headers?: Record<string, string>;
  /** for the Streamable HTTP handshake; default 10 s */
  timeoutMs?: number;
  /** for the legacy SSE handshake (its endpoint event and initialize); default 5 s */
  sseTimeoutMs?: number;
  /** the URL's OAuth sign-in: a 401 it cannot cure without a browser is a SignInRequiredError, not "not MCP" */
  auth?: UpstreamAuth;
}

/**
 * Detects the upstream's transport. Throws with a one-line reason when the URL is neither (network errors keep
 * their `code`, e.g. ECONNREFUSED).
 */
export async function detectUpstreamKind(target: string | URL, options: DetectOptions = {}): Promise<UpstreamKind> {
  try {
    await closeOwnClient(
      await connectOwnClient(target, {
        name: 'mcp-rewind-detect',
        headers: options.headers,
        timeoutMs: options.timeoutMs ?? 10_000,
        auth: options.auth,
      }),
    );
    return 'streamable-http';
  } catch (error) {
    if (error instanceof SignInRequiredError) throw error;
    const status = error instanceof StreamableHTTPError ? error.code : undefined;
    if (status === undefined || status < 400 || status >= 500) throw networkError(error, status);
    try {
      await closeOwnClient(
        await connectOwnClient(target, {
          name: 'mcp-rewind-detect',
          headers: options.headers,
          timeoutMs: options.sseTimeoutMs ?? 5_000,
          legacySse: true,
        }),
      );
      return 'sse';
    } catch (sseError) {
      throw new NotMcpError(
        `POST initialize answered HTTP ${status} and GET (legacy HTTP+SSE) ${legacyProblem(sseError)}: neither Streamable HTTP nor HTTP+SSE`,
        { cause: sseError },
      );
    }
  }
}

/** What the legacy SSE attempt met, in words. */
function legacyProblem(error: unknown): string {
  if (error instanceof SseError && error.code !== undefined) return `answered HTTP ${error.code}`;
  return `failed (${networkError(error).message})`;
}

/** fetch hides the network error (ECONNREFUSED) in `cause`: that one is thrown, so callers see its `code`. */
function networkError(error: unknown, status?: number): Error {
  const e = error as Error & { cause?: unknown };
  if (e.cause instanceof Error && (e.cause as NodeJS.ErrnoException).code) return e.cause;
  if (status !== undefined) return new NotMcpError(`POST initialize answered HTTP ${status}`, { cause: error });
  return e instanceof Error ? e : new Error(String(error));
}

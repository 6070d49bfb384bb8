import type { ReplayMiss } from '../../shared/cassette/miss.js';
import { ErrorCode, errorResponse, type JsonRpcError, type JsonRpcId } from '../../shared/jsonrpc.js';

/**
 * The engine's error vocabulary: every error the proxy answers a client with is one of these, carrying its JSON-RPC
 * code (src/shared/jsonrpc.ts's ErrorCode, the one table) and, at the HTTP edge, its status.
 */
export class RewindError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data?: unknown,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }

  /** The JSON-RPC error answer to request `id`. */
  toResponse(id: JsonRpcId | null): JsonRpcError {
    return errorResponse(id, this.code, this.message, this.data);
  }
}

/** A request refused at the HTTP edge: the status code, and the JSON-RPC error that goes with it. */
export class HttpError extends RewindError {
  constructor(
    readonly status: number,
    message: string,
    code: number = ErrorCode.InvalidRequest,
  ) {
    super(message, code);
  }
}

/** The upstream could not be reached, did not answer in time, or broke the stream. */
export class UpstreamUnavailableError extends RewindError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, ErrorCode.UpstreamUnavailable, undefined, options);
  }
}

/**
 * An upstream call cut by one of its limits: `call` — no answer and no progress within the per-call timeout (each
 * progress notification restarts it, as the spec allows); `total` — the call outlived the maximum total time,
 * progress or not.
 */
export class UpstreamTimeoutError extends UpstreamUnavailableError {
  constructor(
    readonly limit: 'call' | 'total',
    readonly seconds: number,
  ) {
    super(
      limit === 'call'
        ? `mcp-rewind: the upstream sent no answer and no progress within the per-call timeout (${seconds} s)`
        : `mcp-rewind: the upstream call exceeded the maximum total time (${seconds} s), progress notwithstanding`,
    );
  }
}

/** Replay has no recorded answer (or has used them all). */
export class ReplayMissError extends RewindError {
  constructor(
    message: string,
    data: { key: string; method: string; nearest?: string[]; exhausted?: number } & Partial<ReplayMiss>,
  ) {
    super(message, ErrorCode.ReplayMiss, data);
  }
}

/** A tools/call failed by the user at a breakpoint. */
export class BreakpointFailedError extends RewindError {
  constructor(message: string) {
    super(message, ErrorCode.BreakpointFailed);
  }
}

/** A tool the session does not have (unknown, or hidden by the rules). */
export class UnknownToolError extends RewindError {
  constructor(name: string) {
    super(`Unknown tool: ${name}`, ErrorCode.InvalidParams);
  }
}

/** A method nobody can answer here (no upstream behind the session). */
export class MethodNotFoundError extends RewindError {
  constructor(message: string) {
    super(message, ErrorCode.MethodNotFound);
  }
}

/**
 * Why a live server did not answer an MCP initialize, for callers that word it their way: `not-started` — its
 * command could not be spawned (`error`: the spawn's own message); `timeout` — it said nothing in time (`printed`:
 * the last lines a stdio child wrote on stderr, usually the clue); `other` — it refused, broke or answered non-MCP.
 */
export type UnreachableFailure =
  { kind: 'not-started'; error: string } | { kind: 'timeout'; printed: readonly string[] } | { kind: 'other' };

/** A live server that did not answer an MCP initialize (start-up probe, verify). */
export class UnreachableError extends RewindError {
  /** why, in a few words (ECONNREFUSED …, what the bridge said) */
  readonly reason: string;
  readonly failure: UnreachableFailure;

  constructor(message: string, details: { cause?: unknown; reason?: string; failure?: UnreachableFailure } = {}) {
    super(
      message,
      ErrorCode.UpstreamUnavailable,
      undefined,
      details.cause === undefined ? undefined : { cause: details.cause },
    );
    this.reason = details.reason ?? message;
    this.failure = details.failure ?? { kind: 'other' };
  }
}

/**
 * The data of the bridge's error answer to an initialize whose stdio command did not start (transports/upstream-
 * bridge.ts): the spawn's message, read back by the probe (upstream/open.ts) without parsing the error's text.
 */
export interface NotStartedData {
  notStarted: string;
}

/** The spawn failure an error answer carries (NotStartedData), if it does. */
export function notStartedOf(error: unknown): string | undefined {
  const data = (error as { data?: unknown } | undefined)?.data;
  const notStarted = (data as Partial<NotStartedData> | undefined)?.notStarted;
  return typeof notStarted === 'string' ? notStarted : undefined;
}

/**
 * Replay was given a cassette that does not exist. Replay never creates one: record it first (record mode), or
 * record what is missing (hybrid: `--record-missing`).
 */
export class CassetteMissingError extends Error {
  override name = 'CassetteMissingError';
  constructor(readonly dir: string) {
    super(`cassette ${dir} does not exist: replay answers from a recorded cassette and never creates one`);
  }
}

/** A bad command line: printed as one line, exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** The error a client gets when the upstream could not take its request: the connector's own (a sign-in that failed), else -32005. */
export function upstreamError(error: unknown, message: string): RewindError {
  return error instanceof RewindError && !(error instanceof UpstreamUnavailableError)
    ? error
    : new UpstreamUnavailableError(message);
}

/** A short reason for a network or timeout failure: the error code (ECONNREFUSED) or the message. */
export function reasonOf(error: unknown): string {
  const limit = timeoutOf(error);
  if (limit)
    return limit.limit === 'call'
      ? `no answer and no progress within the per-call timeout (${limit.seconds} s)`
      : `the call exceeded the maximum total time (${limit.seconds} s)`;
  const e = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'no answer within the upstream timeout';
  if (error instanceof RewindError) return error.message; // its code is a JSON-RPC number, not a network code
  return e?.code ?? e?.cause?.code ?? e?.message ?? String(error); // fetch hides the network error in `cause`
}

/** `ECONNREFUSED connect ECONNREFUSED …` style: the code first when the message does not already say it. */
export function describeError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e.code && !e.message.includes(e.code) ? `${e.code} ${e.message}` : e.message;
}

/** The limit that cut an upstream call, when a timeout did (the abort error carries it as its cause). */
export function timeoutOf(error: unknown): UpstreamTimeoutError | undefined {
  if (error instanceof UpstreamTimeoutError) return error;
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause instanceof UpstreamTimeoutError ? cause : undefined;
}

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Framing, Timing } from '../../../shared/cassette/entry.js';
import type { JsonRpcResponse } from '../../../shared/jsonrpc.js';
import { describeError } from '../errors.js';
import { closeOwnClient, openOwnClient, RawResult } from '../upstream/own-client.js';
import type { UpstreamAuth } from '../upstream/oauth/challenge.js';

/** What the live server answered one request verify sent again, as the recorder would keep it. */
export interface LiveAnswer {
  response: JsonRpcResponse;
  /** what streamed before the answer: notifications, server→client requests and the replies verify gave them */
  stream: Array<Record<string, unknown>>;
  /** the HTTP status, when not 200 (known for 2026-07-28 requests) */
  status?: number;
  /** how the answer travelled (known for 2026-07-28 requests) */
  framing?: Framing;
  timing: Timing;
}

/** What verify sends: a request as recorded, and whether it asks for progress (the recording streamed some). */
export interface VerifyRequest {
  method: string;
  params?: Record<string, unknown>;
  /** the recorded stream: its client replies answer the server→client requests met again, in order */
  recordedStream?: ReadonlyArray<Record<string, unknown>>;
  progress?: boolean;
}

/** verify's own MCP session on the live server (2025 revisions): one request at a time, server→client requests answered. */
export interface LiveSession {
  /** the live server's initialize result */
  readonly initializeResult: Record<string, unknown>;
  /**
   * Sends a request and resolves with its answer. A server→client request met on the way gets the client's reply
   * recorded in `recordedStream` for the same method (in order), else a JSON-RPC error; a ping gets `{}`.
   */
  send(request: VerifyRequest): Promise<LiveAnswer>;
  /** what the server sent while no request was in flight (its GET stream) since the last call, taken */
  takeOutside?(): Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export const DEFAULT_CLIENT_INFO = { name: 'mcp-rewind-verify', version: '1' };
const DEFAULT_CLIENT_PARAMS = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: DEFAULT_CLIENT_INFO };

/**
 * The client replies a recording holds to server→client requests, handed out per method in recorded order: a
 * request's own stream, or what followed the exchanges on the GET stream (roots/list after connect).
 */
class RecordedReplies {
  /** per method, the replies not handed out yet (the stream is read once per method) */
  private readonly left = new Map<string, Array<Record<string, unknown>>>();

  constructor(private readonly stream: ReadonlyArray<Record<string, unknown>>) {}

  /** The next recorded reply to a request of `method`, if one is left. */
  next(method: string): Record<string, unknown> | undefined {
    let left = this.left.get(method);
    if (!left) this.left.set(method, (left = this.replies(method)));
    return left.shift();
  }

  private replies(method: string): Array<Record<string, unknown>> {
    const replies: Array<Record<string, unknown>> = [];
    this.stream.forEach((m, i) => {
      if (m.method !== method || !('id' in m)) return;
      const reply = this.stream.find((r, j) => j > i && !('method' in r) && r.id === m.id);
      if (reply) replies.push(reply);
    });
    return replies;
  }
}

/** A recorded reply as what verify answers the live server: its result, or its error (thrown). */
function replyWith(recorded: Record<string, unknown> | undefined, method: string): Record<string, unknown> {
  if (recorded && 'result' in recorded) return recorded.result as Record<string, unknown>;
  if (recorded && 'error' in recorded) {
    const error = recorded.error as { code: number; message: string; data?: unknown };
    throw new McpError(error.code, error.message, error.data);
  }
  throw new McpError(ErrorCode.MethodNotFound, `mcp-rewind verify has no recorded reply to ${method}`);
}

/** The request in flight: its recorded stream, the replies used so far, and what streams live meanwhile. */
class InFlight {
  private readonly replies: RecordedReplies;
  /** the JSON-RPC id the SDK gave our request (its first outgoing request of the method) */
  private id?: string | number;
  readonly stream: Array<Record<string, unknown>> = [];
  readonly streamMs: number[] = [];
  private readonly started = performance.now();

  constructor(private readonly request: VerifyRequest) {
    this.replies = new RecordedReplies(request.recordedStream ?? []);
  }

  /** The recorded reply of this request's stream to a server→client request met again, if it has one. */
  reply(request: JSONRPCRequest): Record<string, unknown> | undefined {
    return this.replies.next(request.method);
  }

  /** Keeps what travels while the request is open, except the request and its answer. */
  see(message: JSONRPCMessage, direction: 'in' | 'out'): void {
    const m = message as { id?: string | number; method?: string };
    if (this.id === undefined && direction === 'out' && m.method === this.request.method && m.id !== undefined)
      return void (this.id = m.id);
    if (this.id === undefined || (direction === 'in' && m.method === undefined && m.id === this.id)) return;
    this.stream.push(message as Record<string, unknown>);
    this.streamMs.push(this.elapsed());
  }

  elapsed(): number {
    return Math.round(performance.now() - this.started);
  }

  /** The live answer with what travelled before it and when. */
  answered(response: JsonRpcResponse): LiveAnswer {
    return {
      response,
      stream: this.stream,
      timing: { answerMs: this.elapsed(), ...(this.streamMs.length ? { streamMs: this.streamMs } : {}) },
    };
  }
}

/**
 * Opens verify's session over Streamable HTTP with the SDK's Client (the recorded client's initialize params, its
 * protocol version included). Throws when the server does not answer.
 */
export async function openHttpSession(
  url: string,
  options: {
    initializeParams?: Record<string, unknown>;
    headers?: Record<string, string>;
    timeoutMs?: number;
    auth?: UpstreamAuth;
    /** what followed the recorded exchanges on the GET stream: its client replies answer the same requests met again */
    followUps?: ReadonlyArray<Record<string, unknown>>;
  } = {},
): Promise<LiveSession> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  let current: InFlight | undefined;
  const background = new RecordedReplies(options.followUps ?? []);
  const outside: Array<Record<string, unknown>> = [];
  let own;
  try {
    own = await openOwnClient(url, {
      name: 'mcp-rewind-verify',
      headers: options.headers,
      auth: options.auth,
      timeoutMs,
      initializeParams: options.initializeParams ?? DEFAULT_CLIENT_PARAMS,
      // the request in flight's recorded reply, else one the recording gave on the GET stream
      answer: async (request) => replyWith(current?.reply(request) ?? background.next(request.method), request.method),
      tap: (message, direction) => {
        if (current) current.see(message, direction);
        else if (direction === 'in' && 'method' in message) outside.push(message as Record<string, unknown>);
      },
    });
  } catch (error) {
    throw new Error(describeError(causeOf(error)), { cause: error });
  }
  const { client, initializeResult } = own;
  let nextId = 1;
  return {
    initializeResult,
    async send(request) {
      const flight = (current = new InFlight(request));
      try {
        return flight.answered(await requestOnce(client, request, `mcp-rewind-verify-${nextId++}`, timeoutMs));
      } finally {
        current = undefined;
      }
    },
    takeOutside: () => outside.splice(0),
    close: () => closeOwnClient(client),
  };
}

/** One request to the live server: its result, or the JSON-RPC error it answered; a timeout or a closed connection throws. */
async function requestOnce(
  client: Client,
  request: VerifyRequest,
  id: string,
  timeoutMs: number,
): Promise<JsonRpcResponse> {
  try {
    const { method, params } = request;
    const result = await client.request({ method, ...(params ? { params } : {}) } as never, RawResult, {
      timeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
      ...(request.progress ? { onprogress: () => {} } : {}),
    });
    return { jsonrpc: '2.0', id, result };
  } catch (error) {
    if (
      !(error instanceof McpError) ||
      error.code === ErrorCode.RequestTimeout ||
      error.code === ErrorCode.ConnectionClosed
    )
      throw error;
    const message = error.message.replace(/^MCP error -?\d+: /, '');
    return {
      jsonrpc: '2.0',
      id,
      error: { code: error.code, message, ...(error.data !== undefined ? { data: error.data } : {}) },
    };
  }
}

/** fetch failures hide the network error (ECONNREFUSED) in `cause` */
export function causeOf(error: unknown): Error {
  const e = error as Error & { cause?: unknown };
  return e.cause instanceof Error && (e.cause as NodeJS.ErrnoException).code ? e.cause : e;
}

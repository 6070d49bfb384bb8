import { ErrorCode, McpError, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { JsonRpcResponse } from '../../../shared/jsonrpc.js';
import { describeError } from '../errors.js';
import { closeOwnClient, openOwnClient, RawResult } from '../upstream/own-client.js';
import type { UpstreamAuth } from '../upstream/oauth/challenge.js';

/** verify's own MCP session on the live server: one request at a time, server→client requests answered. */
export interface LiveSession {
  /** the live server's initialize result */
  readonly initializeResult: Record<string, unknown>;
  /**
   * Sends a request and resolves with its answer. A server→client request met on the way gets the client's reply
   * recorded in `recordedStream` for the same method (in order), else a JSON-RPC error; a ping gets `{}`.
   */
  send(method: string, params: Record<string, unknown> | undefined, recordedStream?: ReadonlyArray<Record<string, unknown>>): Promise<JsonRpcResponse>;
  close(): Promise<void>;
}

export const DEFAULT_CLIENT_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'mcp-rewind-verify', version: '1' },
};

/** The recorded client replies to server→client requests of `method`, in order. */
function recordedReplies(stream: ReadonlyArray<Record<string, unknown>>, method: string): Array<Record<string, unknown>> {
  const replies: Array<Record<string, unknown>> = [];
  stream.forEach((m, i) => {
    if (m.method !== method || !('id' in m)) return;
    const reply = stream.slice(i + 1).find((r) => !('method' in r) && r.id === m.id);
    if (reply) replies.push(reply);
  });
  return replies;
}

/**
 * Opens verify's session over Streamable HTTP with the SDK's Client (the recorded client's initialize params, its
 * protocol version included). Throws when the server does not answer.
 */
export async function openHttpSession(
  url: string,
  options: { initializeParams?: Record<string, unknown>; headers?: Record<string, string>; timeoutMs?: number; auth?: UpstreamAuth } = {},
): Promise<LiveSession> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  /** the request being verified: server→client requests met meanwhile get its recorded replies, in order */
  let current: { stream: ReadonlyArray<Record<string, unknown>>; used: Map<string, number> } = { stream: [], used: new Map() };
  const answer = async (request: JSONRPCRequest): Promise<Record<string, unknown>> => {
    const k = current.used.get(request.method) ?? 0;
    current.used.set(request.method, k + 1);
    const recorded = recordedReplies(current.stream, request.method)[k];
    if (recorded && 'result' in recorded) return recorded.result as Record<string, unknown>;
    if (recorded && 'error' in recorded) {
      const error = recorded.error as { code: number; message: string; data?: unknown };
      throw new McpError(error.code, error.message, error.data);
    }
    throw new McpError(ErrorCode.MethodNotFound, `mcp-rewind verify has no recorded reply to ${request.method}`);
  };
  let own;
  try {
    own = await openOwnClient(url, {
      name: 'mcp-rewind-verify',
      headers: options.headers,
      auth: options.auth,
      timeoutMs,
      initializeParams: options.initializeParams ?? DEFAULT_CLIENT_PARAMS,
      answer,
    });
  } catch (error) {
    throw new Error(describeError(causeOf(error)), { cause: error });
  }
  const { client, initializeResult } = own;
  let nextId = 1;
  return {
    initializeResult,
    async send(method, params, recordedStream = []) {
      current = { stream: recordedStream, used: new Map() };
      const id = `mcp-rewind-verify-${nextId++}`;
      try {
        const result = await client.request({ method, ...(params ? { params } : {}) } as never, RawResult, {
          timeout: timeoutMs,
          signal: AbortSignal.timeout(timeoutMs),
        });
        return { jsonrpc: '2.0', id, result };
      } catch (error) {
        if (error instanceof McpError && error.code !== ErrorCode.RequestTimeout && error.code !== ErrorCode.ConnectionClosed) {
          return {
            jsonrpc: '2.0',
            id,
            error: { code: error.code, message: error.message.replace(/^MCP error -?\d+: /, ''), ...(error.data !== undefined ? { data: error.data } : {}) },
          };
        }
        throw error;
      }
    },
    close: () => closeOwnClient(client),
  };
}

/** fetch failures hide the network error (ECONNREFUSED) in `cause` */
function causeOf(error: unknown): Error {
  const e = error as Error & { cause?: unknown };
  return e.cause instanceof Error && (e.cause as NodeJS.ErrnoException).code ? e.cause : e;
}

// Minimal JSON-RPC 2.0 shapes the proxy relays. Deliberately looser than the SDK's zod schemas:
// a proxy must pass through fields it does not know (newer spec revisions, vendor extensions).
export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}
export interface JsonRpcResult {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: Record<string, unknown>;
}
export interface JsonRpcError {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  error: { code: number; message: string; data?: unknown };
}
export type JsonRpcResponse = JsonRpcResult | JsonRpcError;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** Returns a reason when `value` is not a JSON-RPC 2.0 message, otherwise null. */
export function invalidMessageReason(value: unknown): string | null {
  if (!isObject(value)) return 'message must be a JSON object';
  if (value.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  if ('method' in value) {
    if (typeof value.method !== 'string' || value.method.length === 0) return 'method must be a non-empty string';
    if ('id' in value && !isId(value.id)) return 'id must be a string or a number';
    if ('params' in value && value.params !== undefined && !isObject(value.params)) return 'params must be an object';
    return null;
  }
  if ('result' in value || 'error' in value) {
    if (!('id' in value) || (value.id !== null && !isId(value.id))) return 'response id must be a string or a number';
    if ('error' in value && !isObject(value.error)) return 'error must be an object';
    return null;
  }
  return 'message has neither method nor result nor error';
}

export const isRequest = (m: JsonRpcMessage): m is JsonRpcRequest => 'method' in m && 'id' in m;
export const isNotification = (m: JsonRpcMessage): m is JsonRpcNotification => 'method' in m && !('id' in m);
export const isResponse = (m: JsonRpcMessage): m is JsonRpcResponse => !('method' in m);
export const isResult = (m: JsonRpcMessage): m is JsonRpcResult => !('method' in m) && 'result' in m;

export function errorResponse(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcError {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

/**
 * The one table of error codes: JSON-RPC's own, plus the ones mcp-rewind answers with (documented in the README).
 * Engine errors carry one of these (src/main/engine/errors.ts).
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  /** an unknown or hidden tool (what MCP servers answer for a tool they do not have) */
  InvalidParams: -32602,
  InternalError: -32603,
  /** the MCP session the request names is not known (HTTP 404) */
  SessionNotFound: -32001,
  /** replay: no recorded entry for this request */
  ReplayMiss: -32004,
  /** live: the upstream server could not be reached or broke the stream */
  UpstreamUnavailable: -32005,
  /** a tools/call failed by the user at a breakpoint */
  BreakpointFailed: -32006,
  /** live: the upstream needs an OAuth sign-in that has not completed (the message names the step that failed) */
  SignInFailed: -32007,
} as const;

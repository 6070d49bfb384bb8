/**
 * What the proxy must know of the MCP revisions themselves (spec 2024-11-05 … 2026-07-28): which revision a request
 * speaks, the per-request `_meta` fields of 2026-07-28, the methods each era has, and the protocol-level error codes.
 * Pure data and functions: the engine decides with them, the timeline shows them.
 */
import type { JsonRpcRequest } from './jsonrpc.js';

/** The 2026-07-28 revision's per-request (and per-result) `_meta` keys. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** Revisions that open with `initialize` (the SDKs call them legacy). */
export const LEGACY_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
/**
 * The revisions the proxy's own initialize answer takes (engine/pipeline/core/plan.ts localAnswer), newest first: the
 * v1 SDK's SUPPORTED_PROTOCOL_VERSIONS, said here so the start path does not load the SDK's types module (it builds
 * every zod schema of the protocol at import); test/mcp-protocol-sdk.test.ts keeps the two equal.
 */
export const ANSWERED_REVISIONS: readonly string[] = [
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
  '2024-11-05',
  '2024-10-07',
];
/** The first revision without initialize: protocol fields in every request's `_meta`. */
export const FIRST_MODERN_REVISION = '2026-07-28';

/** A revision carried in `_meta` per request (2026-07-28 and later): revisions are dates, compared as strings. */
export const isModernRevision = (version: string): boolean =>
  version >= FIRST_MODERN_REVISION && /^\d{4}-\d{2}-\d{2}$/.test(version);

/** The era of a revision: both eras can share one endpoint and one cassette, but never an answer. */
export type Era = 'legacy' | 'modern';
export const eraOf = (version: string | undefined): Era | undefined =>
  version === undefined ? undefined : isModernRevision(version) ? 'modern' : 'legacy';

/** The revision a request declares in its `_meta` (2026-07-28 requests); undefined for legacy requests. */
export function metaVersion(params: Record<string, unknown> | undefined): string | undefined {
  const meta = params?._meta as Record<string, unknown> | undefined;
  const version = meta?.[META.protocolVersion];
  return typeof version === 'string' ? version : undefined;
}

/** The client capabilities a 2026-07-28 request declares in its `_meta`. */
export function metaCapabilities(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const meta = params?._meta as Record<string, unknown> | undefined;
  const caps = meta?.[META.clientCapabilities];
  return caps !== null && typeof caps === 'object' ? (caps as Record<string, unknown>) : undefined;
}

/** Client requests of the 2026-07-28 revision (schema.ts ClientRequest). */
export const MODERN_METHODS = new Set([
  'server/discover',
  'completion/complete',
  'prompts/get',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'subscriptions/listen',
  'tools/call',
  'tools/list',
]);

/** Client requests of 2025-11-25 (and before). */
export const LEGACY_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
]);

/** Methods 2026-07-28 removed (changelog: no initialize, ping, logging/setLevel, resources/(un)subscribe). */
export const REMOVED_IN_MODERN = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);

/** Is this method part of the given era's core protocol (or one of its extensions, like tasks)? */
export function isKnownMethod(method: string, era: Era): boolean {
  if (method.startsWith('tasks/')) return true; // experimental in 2025-11-25, an extension in 2026-07-28
  return era === 'modern' ? MODERN_METHODS.has(method) : LEGACY_METHODS.has(method);
}

/** The protocol-level error codes (2026-07-28 basic/index.mdx "Error Codes"). */
export const PROTOCOL_ERROR = {
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

/** The client capability each input request of an input_required result needs (2026-07-28 MRTR). */
const INPUT_REQUEST_CAPABILITY: ReadonlyMap<string, string> = new Map([
  ['elicitation/create', 'elicitation'],
  ['sampling/createMessage', 'sampling'],
  ['roots/list', 'roots'],
]);

/**
 * The capabilities an input_required result asks of the client that `declared` lacks (the server MUST NOT send input
 * requests the client has not declared support for: it answers -32021 instead). Undefined when none is missing.
 */
export function missingInputCapabilities(
  result: Record<string, unknown>,
  declared: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (result.resultType !== 'input_required') return undefined;
  const requests = result.inputRequests as Record<string, { method?: unknown }> | undefined;
  if (!requests) return undefined;
  const missing: Record<string, unknown> = {};
  for (const request of Object.values(requests)) {
    const capability = typeof request?.method === 'string' ? INPUT_REQUEST_CAPABILITY.get(request.method) : undefined;
    if (capability && !(declared && capability in declared)) missing[capability] = {};
  }
  return Object.keys(missing).length ? missing : undefined;
}

/** The first input request name of an input_required result that needs a missing capability (for the -32021 message). */
export function firstInputRequest(
  result: Record<string, unknown>,
  capability: string,
): { key: string; method: string } | undefined {
  const requests = (result.inputRequests ?? {}) as Record<string, { method?: unknown }>;
  for (const [key, request] of Object.entries(requests)) {
    if (typeof request?.method === 'string' && INPUT_REQUEST_CAPABILITY.get(request.method) === capability)
      return { key, method: request.method };
  }
  return undefined;
}

/** Decodes a `=?base64?…?=` header value (2026-07-28 Value Encoding); other values are returned as they are. */
export function decodeHeaderValue(value: string): string {
  if (!value.startsWith('=?base64?')) return value;
  const m = /^=\?base64\?(.*)\?=$/.exec(value);
  if (!m) return value;
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(m[1]), (c) => c.charCodeAt(0)));
  } catch {
    return value;
  }
}

/** Encodes a header value as 2026-07-28 asks (Value Encoding): as it is when it is plain printable ASCII, else `=?base64?…?=`. */
export function encodeHeaderValue(value: string): string {
  if (/^[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?$/.test(value) && !value.startsWith('=?base64?')) return value;
  let binary = '';
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

/** The params field a 2026-07-28 request's `Mcp-Name` header repeats: `name` (tools/call, prompts/get), `uri` (resources/read). */
export function nameField(method: string): 'name' | 'uri' | undefined {
  return method === 'resources/read' ? 'uri' : method === 'tools/call' || method === 'prompts/get' ? 'name' : undefined;
}

/** The `_meta` a 2026-07-28 request carries: its revision, who the client is and what it can do. */
export function modernMeta(version: string, clientInfo: unknown, capabilities: unknown): Record<string, unknown> {
  return { [META.protocolVersion]: version, [META.clientInfo]: clientInfo, [META.clientCapabilities]: capabilities };
}

/** The request's standard headers (2026-07-28 SEP-2243), lower-cased names. */
export interface StandardHeaders {
  protocolVersion?: string;
  method?: string;
  name?: string;
}

/**
 * Why the standard headers of a 2026-07-28 request disagree with its body (HeaderMismatch, -32020), or undefined when
 * they agree: the protocol version against `_meta`, `Mcp-Method` against `method`, `Mcp-Name` against
 * `params.name` / `params.uri` (required for tools/call, resources/read and prompts/get).
 */
export function headerMismatch(
  request: Pick<JsonRpcRequest, 'method' | 'params'>,
  headers: StandardHeaders,
): { header: string; body: string } | undefined {
  const version = metaVersion(request.params);
  if (headers.protocolVersion === undefined)
    return { header: 'MCP-Protocol-Version', body: 'the MCP-Protocol-Version header is missing' };
  if (version !== undefined && headers.protocolVersion !== version) {
    return {
      header: headers.protocolVersion,
      body: `the body envelope names protocol version ${version} but the MCP-Protocol-Version header names ${headers.protocolVersion}`,
    };
  }
  if (headers.method === undefined) return { header: 'Mcp-Method', body: 'the Mcp-Method header is missing' };
  if (headers.method !== request.method)
    return {
      header: headers.method,
      body: `the body carries method=${JSON.stringify(request.method)} but the Mcp-Method header names ${JSON.stringify(headers.method)}`,
    };
  const field = nameField(request.method);
  if (field === undefined) return undefined;
  const bodyValue = request.params?.[field];
  if (headers.name === undefined) return { header: 'Mcp-Name', body: 'the Mcp-Name header is missing' };
  const named = decodeHeaderValue(headers.name);
  if (typeof bodyValue === 'string' && named !== bodyValue)
    return {
      header: named,
      body: `the body carries params.${field}=${JSON.stringify(bodyValue)} but the Mcp-Name header names ${JSON.stringify(named)}`,
    };
  return undefined;
}

/**
 * What a recorded error answer depends on besides the request's key (which ignores `_meta` and headers): replay
 * only gives it to a request in the same situation. `headers`: the standard headers disagreed with the body (-32020);
 * `version`: the revision was not supported (-32022); `envelope`: the `_meta` envelope was malformed (-32602 with
 * data.envelope); `capability`: the client lacked a capability (-32021, data.requiredCapabilities).
 */
export type ErrorCondition = 'headers' | 'version' | 'envelope' | 'capability';

export function conditionOf(error: { code: number; data?: unknown } | undefined): ErrorCondition | undefined {
  if (!error) return undefined;
  switch (error.code) {
    case PROTOCOL_ERROR.HeaderMismatch:
      return 'headers';
    case PROTOCOL_ERROR.UnsupportedProtocolVersion:
      return 'version';
    case PROTOCOL_ERROR.MissingRequiredClientCapability:
      return 'capability';
    case -32602:
      return error.data !== null && typeof error.data === 'object' && 'envelope' in error.data ? 'envelope' : undefined;
    default:
      return undefined;
  }
}

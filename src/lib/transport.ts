/**
 * The shape of an MCP SDK `Transport`, as both SDK generations declare it (`@modelcontextprotocol/sdk` 1.x and
 * `@modelcontextprotocol/client` 2.x: start / send / close, onmessage / onclose / onerror, sessionId,
 * setProtocolVersion), written structurally so that neither SDK is a dependency of the library.
 */

import type { MessageTransport } from '../main/engine/pipeline/upstream/message-upstream.js';

/** A JSON-RPC message as the SDKs pass it (their own types are stricter; every one of them fits this). */
export interface TransportMessage {
  jsonrpc: '2.0';
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** The SDK Transport interface, structurally (what Client.connect and Server.connect take). */
export interface McpTransport extends MessageTransport {
  sessionId?: string | undefined;
  setProtocolVersion?: ((version: string) => void) | undefined;
}

/**
 * The shape of an MCP SDK `Transport`, as both SDK generations declare it (`@modelcontextprotocol/sdk` 1.x and
 * `@modelcontextprotocol/client` 2.x: start / send / close, onmessage / onclose / onerror, sessionId,
 * setProtocolVersion), written structurally so that neither SDK is a dependency of the library.
 */

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
export interface McpTransport {
  start(): Promise<void>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each SDK passes its own message and option types
  send(message: any, options?: any): Promise<void>;
  close(): Promise<void>;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assignable from and to both SDKs' generic callback
  onmessage?: ((message: any, extra?: any) => void) | undefined;
  sessionId?: string | undefined;
  setProtocolVersion?: ((version: string) => void) | undefined;
}

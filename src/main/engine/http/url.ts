import type { IncomingMessage } from 'node:http';

/** decodeURIComponent that answers undefined instead of throwing on malformed escapes (`%`, `%E0%A4%A`). */
export function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** The request target as a URL, whatever the client sent (`//`, `*`, a bare path): never throws. */
export function requestUrl(req: IncomingMessage): URL {
  const raw = req.url ?? '/';
  try {
    return new URL(`http://localhost${raw.startsWith('/') ? raw : `/${raw}`}`);
  } catch {
    return new URL('http://localhost/');
  }
}

/** A header's first value (Node gives an array for repeated headers). */
export const firstValue = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** The first value of a request header. */
export function header(req: IncomingMessage, name: string): string | undefined {
  return firstValue(req.headers[name]);
}

/** The path of a request target, without its query. */
export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/** The MCP headers of a request (names lower-cased as node gives them), read once at the entry. */
export interface McpHead {
  /** Mcp-Session-Id */
  sessionId?: string;
  /** MCP-Protocol-Version */
  protocolVersion?: string;
  /** Mcp-Method, Mcp-Name (2026-07-28) */
  method?: string;
  name?: string;
  accept?: string;
  lastEventId?: string;
}

export function mcpHead(req: IncomingMessage): McpHead {
  const h = req.headers;
  const head: McpHead = {};
  const set = (key: keyof McpHead, value: string | string[] | undefined): void => {
    const v = firstValue(value);
    if (v !== undefined) head[key] = v;
  };
  set('sessionId', h['mcp-session-id']);
  set('protocolVersion', h['mcp-protocol-version']);
  set('method', h['mcp-method']);
  set('name', h['mcp-name']);
  set('accept', h.accept);
  set('lastEventId', h['last-event-id']);
  return head;
}

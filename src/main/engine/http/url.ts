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

/** The first value of a request header (Node gives an array for repeated headers). */
export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
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
  const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);
  const head: McpHead = {};
  const set = (key: keyof McpHead, value: string | string[] | undefined): void => {
    const v = first(value);
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

/** A raw 2026-07-28 client's pieces: its per-request `_meta`, and a `subscriptions/listen` stream read off the wire. */

export const MODERN = '2026-07-28';

/** The `_meta` a 2026-07-28 client sends with every request, under its name. */
export function modernMeta(client: string): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: client, version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}

export const MODERN_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/**
 * Opens a listen stream for tool list changes (raw HTTP, no SDK client in between); its messages are read one by one
 * as they arrive — SSE events, or the lines of a chunked JSON body (`contentType` says which the server sent).
 * `next` throws when the stream ends while the client still holds it open.
 */
export async function openListen(
  url: string,
  meta: Record<string, unknown>,
): Promise<{ next(): Promise<unknown>; close(): void; contentType: string }> {
  const abort = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...MODERN_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'subscriptions/listen',
      params: { _meta: meta, notifications: { toolsListChanged: true } },
    }),
    signal: abort.signal,
  });
  const contentType = (res.headers.get('content-type') ?? '').split(';')[0];
  const lines = contentType === 'application/json';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  const messages: unknown[] = [];
  return {
    async next() {
      while (messages.length === 0) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the listen stream ended while the client still held it open');
        buffered += decoder.decode(value, { stream: true }).replace(/\r\n/g, '\n'); // sse-starlette ends lines with CRLF
        if (lines) {
          const complete = buffered.split('\n');
          buffered = complete.pop() ?? '';
          for (const text of complete) if (text.trim()) messages.push(JSON.parse(text));
          continue;
        }
        const events = buffered.split('\n\n');
        buffered = events.pop() ?? '';
        for (const event of events) {
          const data = event
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('');
          if (data) messages.push(JSON.parse(data));
        }
      }
      return messages.shift();
    },
    close: () => abort.abort(),
    contentType,
  };
}

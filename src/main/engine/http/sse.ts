import type { ServerResponse } from 'node:http';
import type { JsonRpcMessage } from '../../../shared/jsonrpc.js';

export function sseEvent(message: unknown, id?: string): string {
  return `${id !== undefined ? `id: ${id}\n` : ''}event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Answers with JSON when the client accepts it, otherwise as a one-shot SSE stream. */
export function sendMessages(
  res: ServerResponse,
  acceptHeader: string | undefined,
  body: JsonRpcMessage | JsonRpcMessage[],
  headers: Record<string, string> = {},
): void {
  const accept = acceptHeader ?? '';
  if (accept.includes('application/json') || accept.includes('*/*') || !accept.includes('text/event-stream')) {
    sendJson(res, 200, body, headers);
    return;
  }
  const messages = Array.isArray(body) ? body : [body];
  res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(messages.map((m) => sseEvent(m)).join(''));
}

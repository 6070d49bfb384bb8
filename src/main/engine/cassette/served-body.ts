import { createParser } from 'eventsource-parser';
import type { CassetteEntry } from '../../../shared/cassette/entry.js';
import type { JsonRpcMessage } from '../../../shared/jsonrpc.js';
import { sseEvent } from '../http/sse.js';
import { canonicalJson } from './keys.js';
import { parseJson } from '../../../shared/json-depth.js';

/** Does a raw HTTP body look like an SSE stream (rather than JSON)? */
const looksLikeSse = (text: string, mimeType = ''): boolean =>
  mimeType.includes('text/event-stream') ||
  /^(event|data|id|retry):/m.test(text.trimStart().slice(0, 200)) ||
  text.trimStart().startsWith(':');

/** The JSON-RPC messages of an HTTP body: a JSON message or batch, or an SSE stream of them. Throws on broken JSON. */
export function messagesOfBody(text: string, mimeType = ''): JsonRpcMessage[] {
  if (looksLikeSse(text, mimeType)) {
    const out: JsonRpcMessage[] = [];
    const parser = createParser({
      onEvent: (event) => {
        if (!event.data) return; // a priming event
        try {
          out.push(parseJson(event.data) as JsonRpcMessage);
        } catch {
          /* not a message */
        }
      },
    });
    parser.feed(text.endsWith('\n\n') ? text : `${text}\n\n`);
    return out;
  }
  const trimmed = text.trim();
  if (!trimmed) return [];
  const parsed = parseJson(trimmed) as JsonRpcMessage | JsonRpcMessage[];
  return Array.isArray(parsed) ? parsed : [parsed];
}

/**
 * The response body an export shows for a recorded exchange: what replay serves. The recorded raw body (`.res.json`)
 * while it still says what the distilled entry says; once the entry was edited by hand (its result or its streamed
 * messages differ), the body is rebuilt from the entry, in the raw body's format (SSE or JSON) — a stale debug file
 * never wins over the entry replay answers with.
 */
export function servedBody(
  entry: CassetteEntry | undefined,
  raw: string | undefined,
  fallbackId: number,
): { text: string; rebuilt: boolean } | undefined {
  if (raw === undefined) return undefined;
  if (!entry) return { text: raw, rebuilt: false };
  let messages: JsonRpcMessage[];
  try {
    messages = messagesOfBody(raw);
  } catch {
    messages = [];
  }
  const final = [...messages].reverse().find((m) => 'result' in m || 'error' in m) as
    { id?: number | string; result?: unknown } | undefined;
  const streamed = messages.filter((m) => m !== final);
  // the entry's stream also holds the client's replies to server requests, which the server's body never carries
  const fromServer = (entry.stream ?? []).filter((m) => 'method' in m);
  const answer = entry.error ? { error: entry.error } : { result: entry.result };
  const sameAnswer =
    final !== undefined &&
    (entry.error
      ? 'error' in final && canonicalJson((final as { error?: unknown }).error) === canonicalJson(entry.error)
      : 'result' in final && canonicalJson(final.result) === canonicalJson(entry.result));
  const same = sameAnswer && canonicalJson(streamed) === canonicalJson(fromServer);
  if (same) return { text: raw, rebuilt: false };
  const response = { jsonrpc: '2.0', id: final?.id ?? fallbackId, ...answer };
  if (!looksLikeSse(raw)) return { text: JSON.stringify(response), rebuilt: true };
  return { text: [...fromServer, response].map((m) => sseEvent(m)).join(''), rebuilt: true };
}

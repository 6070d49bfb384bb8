import type { Framing } from '../../../shared/cassette/entry.js';
import type { JsonRpcMessage, JsonRpcResponse } from '../../../shared/jsonrpc.js';
import { encodeHeaderValue, META, modernMeta, nameField } from '../../../shared/mcp-protocol.js';
import { ResponseTap } from '../http/response-tap.js';
import { withoutCredentials } from '../upstream/own-client.js';
import { DEFAULT_CLIENT_INFO, type LiveAnswer, type VerifyRequest } from './verify-session.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * verify's requests in the 2026-07-28 revision: each one a stateless POST (no initialize, no session), its revision,
 * client info and capabilities in `_meta` (the recorded client's, from the entry's `.req.json`, else verify's own),
 * the standard headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) beside it. The answer — JSON or SSE, any
 * HTTP status — is read as the recorder reads it (`ResponseTap`), so a 400 with a JSON-RPC error is an answer too.
 */

export interface ModernTarget {
  url: string;
  /** extra headers on every request (the server's credentials) */
  headers?: Record<string, string>;
  timeoutMs: number;
  /** the fetch to send with (the server's OAuth sign-in: oauth/challenge.ts signedFetch); default the global one */
  fetch?: FetchLike;
}

/** What a recorded request's `_meta` said of the client, progress token aside (it belonged to the recorded session). */
export type ModernEnvelope = Record<string, unknown>;

let nextId = 1;

/** The `_meta` verify sends: the recorded envelope, with the entry's revision, else verify's own client info. */
function envelopeFor(
  version: string,
  recorded: ModernEnvelope | undefined,
  progress: boolean,
  id: string,
): Record<string, unknown> {
  const { progressToken: _old, ...kept } = recorded ?? {};
  const own = modernMeta(version, kept[META.clientInfo] ?? DEFAULT_CLIENT_INFO, kept[META.clientCapabilities] ?? {});
  return { ...kept, ...own, ...(progress ? { progressToken: id } : {}) };
}

function headersFor(
  target: ModernTarget,
  version: string,
  request: VerifyRequest,
): { url: URL; headers: Record<string, string> } {
  const { target: url, headers: auth } = withoutCredentials(new URL(target.url), target.headers ?? {});
  const field = nameField(request.method);
  const name = field ? request.params?.[field] : undefined;
  const headers: Record<string, string> = {
    ...auth,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': version,
    'mcp-method': request.method,
  };
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
  return { url, headers };
}

/** Sends one request in a 2026-07-28 revision and reads its answer; throws when nothing answers (network, no response). */
export async function sendModern(
  target: ModernTarget,
  version: string,
  envelope: ModernEnvelope | undefined,
  request: VerifyRequest,
): Promise<LiveAnswer> {
  const id = `mcp-rewind-verify-${nextId++}`;
  const params = { ...(request.params ?? {}), _meta: envelopeFor(version, envelope, request.progress === true, id) };
  const { url, headers } = headersFor(target, version, request);
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(target.timeoutMs);
  const res = await (target.fetch ?? fetch)(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method: request.method, params }),
    signal,
    redirect: 'manual',
  });
  const messages: Array<{ message: JsonRpcMessage; ms: number }> = [];
  let response: JsonRpcResponse | undefined;
  const tap = new ResponseTap(
    res.headers.get('content-type') ?? undefined,
    (message) => {
      const m = message as { id?: unknown; method?: unknown };
      if (response === undefined && m.method === undefined && (m.id === id || m.id === null))
        response = message as JsonRpcResponse;
      else if (response === undefined) messages.push({ message, ms: elapsed() });
    },
    !res.ok,
  );
  await readUntil(res, tap, () => response !== undefined);
  if (!response) throw new Error(noAnswer(res, tap.rawBody));
  return {
    response,
    stream: messages.map((m) => m.message as unknown as Record<string, unknown>),
    ...(res.status !== 200 ? { status: res.status } : {}),
    framing: framingOf(res, tap, messages.length > 0),
    timing: { answerMs: elapsed(), ...(messages.length ? { streamMs: messages.map((m) => m.ms) } : {}) },
  };
}

/** Reads the body into the tap until `done` (an SSE stream may stay open after the answer), then lets it go. */
async function readUntil(res: Response, tap: ResponseTap, done: () => boolean): Promise<void> {
  if (!res.body) return;
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      tap.push(Buffer.from(value));
      if (done()) break;
    }
    tap.end();
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** `streamed`: messages came before the answer (a JSON body of newline-delimited messages then keeps its lines) */
function framingOf(res: Response, tap: ResponseTap, streamed: boolean): Framing {
  if (!res.headers.get('content-type')?.includes('text/event-stream'))
    return tap.lines && streamed ? { type: 'json', lines: true } : { type: 'json' };
  return {
    type: 'sse',
    ...(tap.sawEventId ? { eventIds: true } : {}),
    ...(tap.retryMs !== undefined ? { retryMs: tap.retryMs } : {}),
    ...(tap.primed ? { priming: true } : {}),
  };
}

function noAnswer(res: Response, body: string): string {
  const text = body.trim().slice(0, 200);
  if (!res.ok) return `HTTP ${res.status}${text ? `: ${text}` : ''}`;
  return 'the server ended its answer without a JSON-RPC response';
}

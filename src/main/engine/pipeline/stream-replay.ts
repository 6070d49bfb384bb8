import type { ServerResponse } from 'node:http';
import { isRequest, isResponse, type JsonRpcMessage, type JsonRpcResponse } from '../../../shared/jsonrpc.js';
import type { CassetteEntry } from '../../../shared/cassette/entry.js';
import { sseEvent } from '../http/sse.js';
import type { Stage } from './contract.js';
import type { LiveExchange } from './exchange.js';
import type { Session } from './session.js';

/** How long a replayed server→client request waits for the client's reply before the exchange goes on. */
export const REPLY_TIMEOUT_MS = 60_000;

const canonical = (value: unknown): string => JSON.stringify(value, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));

/**
 * Plays a recorded exchange back on an SSE response, in recorded order: notifications are sent (progress tokens
 * rewritten to the live request's), server→client requests are sent with ids of this session and the client's
 * reply is awaited (a reply that differs from the recorded one is logged and flagged, and the exchange goes on),
 * then the final answer.
 */
export async function replayStream(stage: Stage, session: Session, exchange: LiveExchange, entry: CassetteEntry, res: ServerResponse, headers: Record<string, string> = {}): Promise<void> {
  const response = exchange.response as JsonRpcResponse; // the recorded answer, as the rules and breakpoints left it
  res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const liveToken = (exchange.request.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
  const stream = (entry.stream ?? []) as unknown as JsonRpcMessage[];
  for (let i = 0; i < stream.length && !res.destroyed; i++) {
    const message = stream[i];
    if (isResponse(message)) continue; // a recorded client reply: compared below, never sent
    if (!isRequest(message)) {
      const params = message.params as Record<string, unknown> | undefined;
      if (params && 'progressToken' in params) {
        if (liveToken === undefined) continue; // this client did not ask for progress
        const rewritten = { ...message, params: { ...params, progressToken: liveToken } };
        exchange.addStreamed(rewritten);
        res.write(sseEvent(rewritten));
      } else {
        exchange.addStreamed(message);
        res.write(sseEvent(message));
      }
      continue;
    }
    const id = `rewind-${session.nextServerRequestId++}`;
    const outgoing = { ...message, id };
    exchange.addStreamed(outgoing);
    const reply = waitForReply(session, id);
    res.write(sseEvent(outgoing));
    const got = await reply;
    const recorded = stream.slice(i + 1).find((m) => isResponse(m) && m.id === message.id) as JsonRpcResponse | undefined;
    if (!got) {
      exchange.flags.push(`no reply to ${message.method} within ${REPLY_TIMEOUT_MS / 1000} s`);
      continue;
    }
    exchange.addStreamed(got);
    const strip = (r: JsonRpcResponse | undefined): unknown => (r ? ('result' in r ? r.result : r.error) : undefined);
    if (recorded && canonical(strip(got)) !== canonical(strip(recorded))) {
      const flag = `client reply to ${message.method} differs from the recorded one`;
      exchange.flags.push(flag);
      stage.log(`replay: ${exchange.key}: ${flag}: got ${JSON.stringify(strip(got)).slice(0, 200)}, recorded ${JSON.stringify(strip(recorded)).slice(0, 200)}`, 'warn');
    }
  }
  if (!res.destroyed) res.end(sseEvent(response));
  await stage.hooks.finish(exchange, session);
}

function waitForReply(session: Session, id: string): Promise<JsonRpcResponse | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      session.pendingReplies.delete(id);
      resolve(undefined);
    }, REPLY_TIMEOUT_MS);
    timer.unref();
    session.pendingReplies.set(id, (reply) => {
      clearTimeout(timer);
      resolve(reply);
    });
  });
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ErrorCode,
  errorResponse,
  isNotification,
  isRequest,
  isResponse,
  type JsonRpcMessage,
} from '../../../../shared/jsonrpc.js';
import { ResponseTap } from '../../http/response-tap.js';
import { sendJson } from '../../http/sse.js';
import { copyEndToEndHeaders, downstreamHeaders } from '../../http/headers.js';
import type { Stage } from '../core/contract.js';
import { exchangeFor, type LiveExchange } from '../core/exchange.js';
import { RESUME_WAIT_MS, type Resumable, type Session } from '../core/session.js';

/** A live POST stream closed before its answers: its exchanges, which the resumed stream completes. */
interface Resumption {
  exchanges: LiveExchange[];
  /** hands a finished exchange to the hooks (with the HTTP detail of the stream it began on) */
  finish: (exchange: LiveExchange) => Promise<void>;
}

/**
 * Keeps the exchanges of a live POST stream that ended early — the server closed it (SSE polling), or the client
 * dropped it — on the session until the client resumes it with GET + Last-Event-ID (relayed, its messages complete
 * them), or gives up: then each is handed to `gaveUp` and finished unanswered.
 */
export function awaitResume(
  stage: Stage,
  session: Session,
  lastEventId: string,
  resumption: Resumption,
  gaveUp?: (exchange: LiveExchange) => void,
): void {
  const resumable: Resumable = {
    ready: () => stage.upstream !== undefined,
    resume: (req, res) => relayStream(stage, req, res, 'GET', session, true, resumption),
    timer: setTimeout(() => {
      session.resumable.delete(lastEventId);
      for (const exchange of resumption.exchanges) {
        gaveUp?.(exchange);
        void resumption.finish(exchange);
      }
    }, RESUME_WAIT_MS).unref(),
  };
  session.resumable.set(lastEventId, resumable);
}

/**
 * Relays a GET (server-initiated SSE stream) or DELETE for a session whose upstream is live, byte for byte; with
 * `tap`, the hooks see the stream's notifications on the way (the recorder files them after the last exchange). A GET
 * resuming a POST stream closed early (Last-Event-ID, `resuming`) completes that stream's exchanges: its messages and
 * answers are theirs.
 */
export async function relayStream(
  stage: Stage,
  req: IncomingMessage,
  res: ServerResponse,
  method: 'GET' | 'DELETE',
  session: Session,
  tap = false,
  resuming?: Resumption,
): Promise<void> {
  let upRes: IncomingMessage;
  try {
    upRes = await stage.upstream!.request({
      method,
      headers: copyEndToEndHeaders(req.headers),
      sessionId: session.upstreamId,
    });
  } catch (error) {
    if (resuming) for (const exchange of resuming.exchanges) void resuming.finish(exchange);
    sendJson(
      res,
      502,
      errorResponse(
        null,
        ErrorCode.UpstreamUnavailable,
        `mcp-rewind: upstream unavailable: ${(error as Error).message}`,
      ),
    );
    return;
  }
  res.writeHead(upRes.statusCode ?? 502, downstreamHeaders(upRes, session.id, false));
  res.flushHeaders();
  upRes.pipe(res);
  upRes.on('error', () => res.destroy());
  if (resuming) resumeExchanges(stage, session, upRes, resuming);
  else if (method === 'DELETE' && upRes.statusCode === 405) keepDeleteRefusal(stage, upRes);
  else if (tap && method === 'GET' && upRes.statusCode === 200) {
    const reader = new ResponseTap(
      upRes.headers['content-type'],
      (message) => {
        if (isNotification(message) || isRequest(message)) stage.hooks.serverMessage(message, session);
      },
      false,
    );
    upRes.on('data', (chunk: Buffer) => reader.push(chunk));
  }
  res.on('close', () => {
    if (!upRes.complete) upRes.destroy();
  });
}

/** A server that does not allow DELETE (a stateless one: 405): its refusal goes to the hooks that keep refusals. */
function keepDeleteRefusal(stage: Stage, upRes: IncomingMessage): void {
  const chunks: Buffer[] = [];
  upRes.on('data', (chunk: Buffer) => chunks.push(chunk));
  upRes.on('end', () => {
    try {
      const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcMessage;
      if (isResponse(answer) && 'error' in answer)
        stage.hooks.refused('delete-not-allowed', { status: 405, error: answer });
    } catch {
      // not a JSON-RPC answer: nothing to file
    }
  });
}

/**
 * The stream a Last-Event-ID resumes: the one whose last event it names, else — when the client saw fewer events than
 * went by (it dropped the stream itself) — the only stream of the session waiting to be resumed. Taken off the list
 * (unless only peeked at).
 */
export function resumableFor(session: Session, lastEventId: string, peek = false): Resumable | undefined {
  let id: string | undefined = session.resumable.has(lastEventId) ? lastEventId : undefined;
  if (id === undefined && session.resumable.size === 1) id = session.resumable.keys().next().value;
  const resuming = id !== undefined ? session.resumable.get(id) : undefined;
  if (resuming && !peek) {
    session.resumable.delete(id as string);
    clearTimeout(resuming.timer);
  }
  return resuming;
}

/** Reads a resumed stream into the exchanges it continues; closed early again, it waits for the next resumption. */
function resumeExchanges(stage: Stage, session: Session, upRes: IncomingMessage, resuming: Resumption): void {
  const pending = new Map(resuming.exchanges.map((e) => [e.request.id, e]));
  const reader = new ResponseTap(
    upRes.headers['content-type'],
    (message, eventId) => {
      if (isResponse(message)) {
        const exchange = message.id !== null ? pending.get(message.id) : undefined;
        if (!exchange) return;
        pending.delete(exchange.request.id);
        exchange.timeline.answerEventId = eventId;
        exchange.upstreamAnswered(message);
        void resuming.finish(exchange);
        return;
      }
      const target = exchangeFor(message, resuming.exchanges, pending);
      if (!target) return;
      target.addStreamed(message, eventId);
      if (isRequest(message)) session.awaitingReplies.set(message.id, target);
    },
    false,
  );
  upRes.on('data', (chunk: Buffer) => reader.push(chunk));
  const ended = (): void => {
    if (pending.size === 0) return;
    const rest = [...pending.values()];
    if (reader.lastEventId !== undefined && upRes.complete)
      return awaitResume(stage, session, reader.lastEventId, { exchanges: rest, finish: resuming.finish });
    for (const exchange of rest) void resuming.finish(exchange);
  };
  upRes.on('end', () => {
    reader.end();
    ended();
  });
  upRes.on('aborted', ended);
}

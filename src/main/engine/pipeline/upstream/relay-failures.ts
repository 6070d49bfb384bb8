import type { ServerResponse } from 'node:http';
import type { JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import { reasonOf, timeoutOf, upstreamError, UpstreamUnavailableError } from '../../errors.js';
import { sendJson, sseEvent } from '../../http/sse.js';
import type { Stage } from '../core/contract.js';
import type { LiveExchange } from '../core/exchange.js';
import type { Session } from '../core/session.js';

/** Every request of a POST the upstream could not take gets a JSON-RPC error; the proxy serves on. */
export function answerUpstreamDown(
  stage: Stage,
  res: ServerResponse,
  exchanges: LiveExchange[],
  session: Session | undefined,
  error: unknown,
  local: JsonRpcResponse[] = [],
): void {
  const reason = reasonOf(error);
  const where = stage.upstream?.displayUrl;
  stage.log(`upstream ${where} unavailable (${reason}): ${exchanges.length} request(s) answered with an error`, 'warn');
  const cut = timeoutOf(error);
  const answers = exchanges.map((exchange) => {
    exchange.delivery.source = 'proxy';
    exchange.respond(
      upstreamError(error, `mcp-rewind: upstream ${where} unavailable: ${reason}`).toResponse(exchange.request.id),
    );
    if (cut) exchange.end('timeout', cut.message);
    void stage.hooks.finish(exchange, session);
    return exchange.response;
  });
  const all = [...local, ...answers];
  sendJson(res, 200, all.length === 1 ? all[0] : all);
}

/**
 * The stream ended before answering: the client went away (its exchanges end unanswered, logged as such), or the
 * upstream broke it — SSE clients then get an error event per unanswered request, saying why when the upstream
 * connector knows (a timeout).
 */
export function brokenStream(
  stage: Stage,
  res: ServerResponse,
  contentType: string | undefined,
  pending: Map<unknown, LiveExchange>,
  session: Session | undefined,
  midEvent = false,
  error?: Error,
): void {
  const gone = [...pending.values()].filter((e) => e.delivery.clientGone);
  if (gone.length > 0) {
    for (const exchange of gone) {
      pending.delete(exchange.request.id);
      const listen = exchange.request.method === 'subscriptions/listen';
      exchange.timeline.flags.push(
        listen ? 'the client closed the subscription stream' : 'client disconnected before the answer',
      );
      if (!listen)
        stage.log(
          `client disconnected before the answer to ${exchange.request.method} (id ${String(exchange.request.id)})`,
          'info',
        );
      void stage.hooks.finish(exchange, session);
    }
  }
  if (res.writableEnded || res.destroyed) return;
  if (contentType?.includes('text/event-stream')) {
    // untapped relay: we may be inside an event; a blank line closes it (clients ignore answers to ids already done)
    if (midEvent) res.write('\n\n');
    const cut = timeoutOf(error);
    const why = cut?.message ?? 'mcp-rewind: upstream closed the stream before answering';
    for (const exchange of pending.values()) {
      exchange.delivery.source = 'proxy'; // the proxy's words, not the server's answer: never recorded
      exchange.respond(new UpstreamUnavailableError(why).toResponse(exchange.request.id));
      if (cut) exchange.end('timeout', cut.message);
      res.write(sseEvent(exchange.response));
      void stage.hooks.finish(exchange, session);
    }
    pending.clear();
    res.end();
  } else if (!res.headersSent && pending.size > 0) {
    // a JSON answer held back whole (a commit, a rewrite) and cut before its end: nothing of it went out yet
    const cut = timeoutOf(error);
    const answers = [...pending.values()].map((exchange) => {
      exchange.delivery.source = 'proxy'; // never recorded
      exchange.respond(
        new UpstreamUnavailableError(
          cut?.message ?? 'mcp-rewind: upstream closed the answer before its end',
        ).toResponse(exchange.request.id),
      );
      if (cut) exchange.end('timeout', cut.message);
      void stage.hooks.finish(exchange, session);
      return exchange.response;
    });
    pending.clear();
    sendJson(res, 200, answers.length === 1 ? answers[0] : answers);
  } else {
    res.destroy(); // part of a JSON body went out already: the client sees it cut
  }
}

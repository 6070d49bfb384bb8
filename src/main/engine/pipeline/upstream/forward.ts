import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RefusalKind } from '../../../../shared/cassette/entry.js';
import { isRequest, isResponse, type JsonRpcMessage } from '../../../../shared/jsonrpc.js';
import type { AnswerSource, Post, Stage } from '../core/contract.js';
import type { LiveExchange } from '../core/exchange.js';
import { hereAnswers, settle, type HereAnswer } from '../core/local-delivery.js';
import { passRaw, pipePost } from './pipe.js';
import { relayPost } from './relay.js';
import { answerUpstreamDown } from './relay-failures.js';
import type { SessionRegistry } from '../core/session.js';
import { openUpstreamSession } from './upstream-session.js';

/**
 * The upstream as an answer source: it delivers a POST that has requests for it (or notifications and replies for its
 * session) by relaying it — the answers made here for the other requests of the POST join the upstream's — and it
 * takes what no hook wants to read (piped unparsed) and what is not JSON-RPC (passed on for the server to judge).
 */
export class UpstreamDelivery implements AnswerSource {
  constructor(
    private readonly stage: Stage,
    private readonly sessions: SessionRegistry,
    /** the proxy issues the client's sessions: it opens the upstream's behind them itself */
    private readonly ownSessions: boolean,
  ) {}

  async deliver(post: Post): Promise<void> {
    const { stage, req, res, session, init } = post;
    const forward: LiveExchange[] = [];
    for (const p of post.planned) if (p.plan.answer === 'upstream') forward.push(p.exchange);
    const here = forward.length < post.planned.length ? hereAnswers(post.planned) : [];
    if (session && !init && session.upstreamId === undefined && this.ownSessions) {
      try {
        await openUpstreamSession(stage, session, post.head.protocolVersion);
      } catch (error) {
        return answerUpstreamDown(
          stage,
          res,
          forward,
          session,
          error,
          here.length > 0 ? await settle(stage, here, session, res) : [],
        );
      }
    }
    const body = upstreamBody(post, here);
    const answers = here.length > 0 ? await settle(stage, here, session, res) : [];
    await relayPost(stage, this.sessions, {
      req,
      res,
      parsed: post.parsed,
      session,
      init: init && forward.includes(init) ? init : undefined,
      body,
      exchanges: forward,
      local: answers,
      reconnect: this.ownSessions
        ? (s) => openUpstreamSession(stage, s, undefined, true).then(() => undefined)
        : undefined,
    });
    for (const { exchange } of here) void stage.hooks.finish(exchange, session);
  }

  /** A POST no hook wants to read: piped to the upstream unparsed (pipe.ts). */
  pipe(req: IncomingMessage, res: ServerResponse): Promise<void> {
    return pipePost(this.stage, req, res);
  }

  /** A POST that is not JSON-RPC: passed on unparsed, the server judges it; its refusal goes to the hooks that keep refusals. */
  invalid(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    kind: RefusalKind,
    upstreamId: string | null | undefined,
  ): Promise<void> {
    return passRaw(this.stage, req, res, body, upstreamId, (status, text) => {
      if (status < 400) return;
      try {
        const answer = JSON.parse(text) as JsonRpcMessage;
        if (isResponse(answer) && 'error' in answer) this.stage.hooks.refused(kind, { status, error: answer });
      } catch {
        // not a JSON-RPC answer: nothing to file
      }
    });
  }
}

/**
 * What goes upstream: the client's body as it came, unless requests of it were answered here, or requests or replies
 * of it were edited at a breakpoint.
 */
function upstreamBody(post: Post, here: HereAnswer[]): Buffer {
  if (here.length === 0 && !post.repliesEdited && !post.planned.some((p) => p.exchange.delivery.edited))
    return post.body;
  const answeredHere = (m: JsonRpcMessage): boolean => isRequest(m) && here.some((h) => h.exchange.request.id === m.id);
  const rest = here.length > 0 ? post.messages.filter((m) => !answeredHere(m)) : post.messages;
  return Buffer.from(JSON.stringify(Array.isArray(post.parsed) ? rest : rest[0]));
}

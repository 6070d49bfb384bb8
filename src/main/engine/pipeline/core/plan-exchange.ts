import { errorResponse, type JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import type { CassetteSource, Plan, RuleOffer, RuleSource } from './contract.js';
import type { LiveExchange } from './exchange.js';
import { localAnswer, planRequest } from './plan.js';
import type { Session } from './session.js';

/** What a request's plan is made from besides the request: the sources there are. */
export interface PlanSources {
  rules?: RuleSource;
  cassette?: Pick<CassetteSource, 'offer' | 'take'>;
  /** a live upstream is there */
  upstream: boolean;
  /** serverInfo of the initialize the proxy answers itself */
  serverInfo: { name: string; version: string };
}

/**
 * Who answers one JSON-RPC request — the message-level step every downstream shares (the HTTP endpoint through
 * sources.ts, the stdio downstream and wrapTransport through message-planner.ts): each source's offer, then the plan
 * (pure, plan.ts), carried into the exchange (delivery.source, the timeline's notes, the answer made here); a
 * cassette whose entry was taken moves on.
 */
export function planExchange(exchange: LiveExchange, session: Session, single: boolean, sources: PlanSources): Plan {
  const { rules, cassette } = sources;
  const rule = rules?.offer(exchange);
  const plan = planRequest({
    method: exchange.request.method,
    answered: exchange.response,
    rule,
    cassette: cassette?.offer(exchange, session),
    upstream: sources.upstream,
    synthesize: rules !== undefined,
    single,
    local: () => localAnswer(exchange.request, sources.serverInfo),
  });
  apply(exchange, plan, rule);
  if (plan.answer === 'cassette') cassette?.take(exchange, session);
  return plan;
}

/** Carries a plan's choice into the exchange (what the timeline and the hooks read). */
function apply(exchange: LiveExchange, plan: Plan, rule: RuleOffer | undefined): void {
  exchange.timeline.behavior = rule?.behavior;
  exchange.delivery.rewrite = rule?.rewrite;
  switch (plan.answer) {
    case 'cassette': {
      exchange.delivery.source = 'cache';
      exchange.timeline.cassette = 'hit';
      const { error } = plan.entry;
      exchange.respond(
        error
          ? errorResponse(exchange.request.id, error.code, error.message, error.data)
          : { jsonrpc: '2.0', id: exchange.request.id, result: plan.entry.result },
      );
      return;
    }
    case 'rule':
    case 'local':
      exchange.delivery.source = 'proxy';
      exchange.respond(plan.response);
      if (plan.answer === 'local' && plan.miss) exchange.timeline.cassette = 'miss';
      return;
    case 'upstream':
      return;
  }
}

/**
 * An initialize answered (by the upstream, the cassette or the proxy): the exchange and its session take the
 * negotiated revision, and the session keeps the client's params (replay's capabilities, a hybrid's own initialize).
 */
export function initialized(exchange: LiveExchange, session: Session | undefined, response: JsonRpcResponse): void {
  if (!('result' in response)) return;
  exchange.negotiated(String(response.result.protocolVersion ?? ''));
  if (!session) return;
  session.initParams = exchange.request.params;
  session.protocolVersion = exchange.protocolVersion;
}

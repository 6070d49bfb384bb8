import type { JsonRpcRequest, JsonRpcResponse } from '../../../../shared/jsonrpc.js';
import { MethodNotFoundError, UnknownToolError } from '../../errors.js';
import type { Delivery, Plan, PlanInput, StreamPlan } from './contract.js';
import { ANSWERED_REVISIONS } from '../../../../shared/mcp-protocol.js';

/**
 * Who answers a request — pure: the same facts always give the same plan, and nothing is changed. In order:
 * a hook that already answered (a failed breakpoint), the rules (override, hidden tool), the cassette (a hit, or the
 * refusal the recorded server would give when no live server can judge), the upstream, the cassette again (a miss,
 * when there is no upstream), and last the proxy itself.
 * `initialize` is planned like any other request.
 */
export function planRequest(input: PlanInput): Plan {
  if (input.answered) return { answer: 'local', response: input.answered };
  if (input.rule?.answer)
    return { answer: 'rule', response: input.rule.answer.response, delayMs: input.rule.answer.delayMs };
  const cassette = input.cassette;
  if (cassette && 'entry' in cassette) return { answer: 'cassette', entry: cassette.entry, single: input.single };
  // a request the recorded server would refuse (headers, revision): a live server judges it itself
  if (cassette && 'refuse' in cassette && !input.upstream)
    return { answer: 'local', response: cassette.refuse.response, status: cassette.refuse.status };
  if (input.upstream) return { answer: 'upstream' };
  // nothing live behind the endpoint: rules make up a session of their own; else the cassette's miss answer
  if (cassette && 'miss' in cassette && !(input.synthesize && input.method === 'initialize')) {
    const { response, status } = cassette.miss();
    return { answer: 'local', response, miss: true, status };
  }
  return { answer: 'local', response: input.local() };
}

/**
 * Who delivers a POST's answer, once its requests are planned — pure: a recorded exchange alone in its POST is played
 * back as it travelled (the cassette); a POST with a request for the upstream, or with only notifications and replies
 * for an upstream session, is relayed (the answers made here join the upstream's); else the proxy answers here.
 */
export function planDelivery(plans: readonly Plan[], facts: { forwardsMessages: boolean }): Delivery {
  if (plans.length === 1 && plans[0].answer === 'cassette' && plans[0].single) return 'cassette';
  if (facts.forwardsMessages || plans.some((p) => p.answer === 'upstream')) return 'upstream';
  return 'local';
}

/** What the client's server stream (GET) is made of — pure, like planRequest. */
export function planStream(facts: {
  upstreamSession: boolean;
  /** a live upstream is there, and the proxy will open this session's upstream session itself when it needs one */
  upstreamLater?: boolean;
  pushes: boolean;
  observed: boolean;
}): StreamPlan {
  // what the server sends outside a request (roots/list on its GET stream) must reach a client whose session opens late
  if (facts.upstreamLater) return { kind: 'own', upstream: 'later' };
  if (facts.pushes) return { kind: 'own', upstream: facts.upstreamSession ? 'now' : 'never' };
  if (!facts.upstreamSession) return { kind: 'none' }; // no live server behind the session: clients treat 405 as "not offered"
  return { kind: 'relay', tap: facts.observed };
}

/**
 * The proxy's own answer when no upstream and no cassette can give one: a session made up by the proxy
 * (initialize), ping, an empty tool list (the rules add theirs), and errors for the rest.
 */
export function localAnswer(request: JsonRpcRequest, serverInfo: { name: string; version: string }): JsonRpcResponse {
  const ok = (result: Record<string, unknown>): JsonRpcResponse => ({ jsonrpc: '2.0', id: request.id, result });
  switch (request.method) {
    case 'initialize': {
      const requested = request.params?.protocolVersion;
      const version =
        typeof requested === 'string' && ANSWERED_REVISIONS.includes(requested) ? requested : ANSWERED_REVISIONS[0];
      return ok({ protocolVersion: version, capabilities: { tools: { listChanged: true } }, serverInfo });
    }
    case 'ping':
      return ok({});
    case 'tools/list':
      return ok({ tools: [] });
    case 'tools/call':
      return new UnknownToolError(String(request.params?.name ?? '')).toResponse(request.id);
    default:
      return new MethodNotFoundError(
        `mcp-rewind: ${request.method} is not available: this session has no upstream server`,
      ).toResponse(request.id);
  }
}

/**
 * Is a 2025-era POST's session refused as a whole (404)? A session the client ended (DELETE) always is; an id the
 * proxy never issued is when the proxy issues the ids and no live server stands behind them (replay: the recorded
 * server would not know it either). With an upstream, an unknown id is adopted (the upstream judges it). 2026-07-28
 * requests have no sessions: their Mcp-Session-Id is ignored.
 */
export function planSession(facts: {
  sessionId: string | undefined;
  modern: boolean;
  ended: boolean;
  known: boolean;
  ownSessions: boolean;
  upstream: boolean;
}): 'ok' | 'not-found' {
  if (facts.modern || facts.sessionId === undefined) return 'ok';
  if (facts.ownSessions && facts.ended) return 'not-found';
  if (facts.ownSessions && !facts.upstream && !facts.known) return 'not-found';
  return 'ok';
}

import type { IncomingMessage } from 'node:http';
import { header } from '../http/url.js';
import type { HookChain } from './chain.js';
import type { Refused } from './contract.js';
import type { LiveExchange, RequestHeaders } from './exchange.js';
import { planSession } from './plan.js';
import type { Session, SessionRegistry } from './session.js';

/** What the gate reads of the endpoint. */
export interface GateFacts {
  sessions: SessionRegistry;
  hooks: HookChain;
  ownSessions: boolean;
  upstream: boolean;
}

/**
 * The refusal of a whole 2025-era request before anything else (planSession): a session the client ended, or one
 * replay never issued, gets 404; with no server behind, an MCP-Protocol-Version the recorded server did not accept
 * gets 400 — in the recorded server's words when the cassette holds them.
 */
export function refuseWhole(req: IncomingMessage, modern: boolean, facts: GateFacts): Refused | undefined {
  const id = header(req, 'mcp-session-id');
  const verdict = planSession({
    sessionId: id,
    modern,
    ended: id !== undefined && facts.sessions.wasEnded(id),
    known: id !== undefined && facts.sessions.find(id) !== undefined,
    ownSessions: facts.ownSessions,
    upstream: facts.upstream,
  });
  if (verdict === 'not-found') return facts.hooks.refusal('session-not-found');
  if (modern || facts.upstream) return undefined;
  const head = facts.hooks.refusesHead({ protocolVersion: header(req, 'mcp-protocol-version') });
  return head ? facts.hooks.refusal(head.kind, head.detail) : undefined;
}

/**
 * An `initialize` that carries an Mcp-Session-Id the proxy issued no live session for (never, or ended): a server
 * refuses it, so does the proxy where it owns the sessions (issue 21 item 3) — in the recorded server's words when
 * the cassette holds them. Where the upstream's ids are handed through, the upstream is sent the id and judges.
 */
export function refuseStaleInit(req: IncomingMessage, facts: GateFacts): Refused | undefined {
  if (!facts.ownSessions) return undefined;
  return staleSession(req, facts.sessions) ? facts.hooks.refusal('session-not-found') : undefined;
}

/** Does the request name a session (Mcp-Session-Id) that the proxy does not know live? */
export function staleSession(req: IncomingMessage, sessions: SessionRegistry): boolean {
  const id = header(req, 'mcp-session-id');
  return id !== undefined && (sessions.wasEnded(id) || sessions.find(id) === undefined);
}

/** A replayed initialize: its session takes the negotiated revision; a recorded server without sessions issues no id. */
export function replayedInit(sessions: SessionRegistry, exchange: LiveExchange, session: Session | undefined, stateless: boolean): Record<string, string> {
  const result = exchange.response && 'result' in exchange.response ? exchange.response.result : undefined;
  if (!session?.id) return {};
  if (!result || stateless) {
    sessions.delete(session.id); // no session came of it
    return {};
  }
  session.protocolVersion = String(result.protocolVersion ?? '');
  exchange.protocolVersion = session.protocolVersion;
  return { 'mcp-session-id': session.id };
}

/** The standard MCP headers of a POST (what replay checks a 2026-07-28 request against, what the recorder classifies by). */
export function requestHeaders(req: IncomingMessage): RequestHeaders {
  const h: RequestHeaders = {};
  const version = header(req, 'mcp-protocol-version');
  if (version !== undefined) h.protocolVersion = version;
  const method = header(req, 'mcp-method');
  if (method !== undefined) h.method = method;
  const name = header(req, 'mcp-name');
  if (name !== undefined) h.name = name;
  if (req.headers['mcp-session-id'] !== undefined) h.session = true;
  return h;
}

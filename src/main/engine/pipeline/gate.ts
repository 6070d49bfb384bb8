import type { McpHead } from '../http/url.js';
import type { HttpVerb, Refused } from './core/contract.js';
import { planSession } from './core/plan.js';
import type { SessionRegistry } from './core/session.js';
import type { Sources } from './sources.js';

/** What the gate reads of the endpoint. */
export interface GateFacts {
  sessions: SessionRegistry;
  sources: Sources;
  ownSessions: boolean;
  upstream: boolean;
}

/**
 * The refusal of a whole 2025-era request before anything else (planSession): a session the client ended, or one
 * replay never issued, gets 404; with no server behind, what the recorded server refused as a whole is refused again —
 * an MCP-Protocol-Version it did not accept (400), and, when the cassette holds the server's own refusal, a POST whose
 * Accept lacks a type it demanded (406) or one that is not an initialize and carries no session (400), a DELETE
 * it did not allow (405, a stateless server) and a batch it did not take (400) — in the recorded server's words and status when the cassette holds them.
 */
export function refuseWhole(
  head: McpHead,
  modern: boolean,
  facts: GateFacts,
  method: HttpVerb,
  batch = false,
): Refused | undefined {
  const id = head.sessionId;
  const verdict = planSession({
    sessionId: id,
    modern,
    ended: id !== undefined && facts.sessions.wasEnded(id),
    known: id !== undefined && facts.sessions.find(id) !== undefined,
    ownSessions: facts.ownSessions,
    upstream: facts.upstream,
  });
  if (verdict === 'not-found') return facts.sources.refusal('session-not-found');
  if (modern || facts.upstream) return undefined;
  const refused = facts.sources.refusesHead(head, method, batch);
  return refused ? facts.sources.refusal(refused.kind, refused.detail) : undefined;
}

/**
 * An `initialize` that carries an Mcp-Session-Id the proxy issued no live session for (never, or ended): a server
 * refuses it, so does the proxy where it owns the sessions (issue 21 item 3) — in the recorded server's words when
 * the cassette holds them. Where the upstream's ids are handed through, the upstream is sent the id and judges.
 */
export function refuseStaleInit(head: McpHead, facts: GateFacts): Refused | undefined {
  if (!facts.ownSessions) return undefined;
  return staleSession(head, facts.sessions) ? facts.sources.refusal('session-not-found') : undefined;
}

/** Does the request name a session (Mcp-Session-Id) that the proxy does not know live? */
export function staleSession(head: McpHead, sessions: SessionRegistry): boolean {
  const id = head.sessionId;
  return id !== undefined && (sessions.wasEnded(id) || sessions.find(id) === undefined);
}

/**
 * The timeline's filter for programs (the MCP server's list_exchanges, traffic.query): the search box's text — free
 * text, matched in the exchange's JSON, and the `has:problem` token — and the menus' method, tool and proxy. The
 * renderer's search box speaks the fuller filter language (src/renderer/src/models/filter-query.ts), `has:problem` included.
 */
import type { ExchangeSummary, TrafficEvent } from '../api.js';
import { hasProblem, takeHasProblem, worstSeverity } from './findings.js';

export interface TrafficQuery {
  query?: string;
  proxyId?: string;
  method?: string;
  tool?: string;
}

/** A predicate for the query (its text lower-cased once). */
export function queryMatcher(q: TrafficQuery): (e: TrafficEvent) => boolean {
  const { hasProblem: problemsOnly, rest } = takeHasProblem(q.query ?? '');
  const text = rest.trim().toLowerCase();
  return (e) =>
    (!q.proxyId || e.proxyId === q.proxyId) &&
    (!q.method || e.method === q.method) &&
    (!q.tool || e.tool === q.tool) &&
    (!problemsOnly || hasProblem(e)) &&
    (!text ||
      `${e.method}\n${e.tool ?? ''}\n${e.key}\n${JSON.stringify(e.request)}\n${JSON.stringify(e.response ?? null)}\n${JSON.stringify(e.stream)}`
        .toLowerCase()
        .includes(text));
}

/** ok / tool error / error <code> / pending, as the timeline's Status column says it. */
export function statusOf(e: Pick<TrafficEvent, 'response'>): string {
  const r = e.response as { error?: { code: number }; result?: { isError?: boolean } } | undefined;
  if (!r) return 'pending';
  if (r.error) return `error ${r.error.code}`;
  return r.result?.isError ? 'tool error' : 'ok';
}

export function summaryOf(e: TrafficEvent): ExchangeSummary {
  const problems = e.insight?.problems ?? [];
  return {
    seq: e.seq,
    proxyId: e.proxyId,
    ...(e.sessionId ? { sessionId: e.sessionId } : {}),
    method: e.method,
    ...(e.tool ? { tool: e.tool } : {}),
    status: statusOf(e),
    startedAt: e.startedAt,
    durationMs: Math.round(e.durationMs),
    problems: problems.length,
    ...(problems.length ? { worst: worstSeverity(problems) } : {}),
    ...(e.insight?.tokens !== undefined ? { tokens: e.insight.tokens } : {}),
  };
}

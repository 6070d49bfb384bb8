import { visibleName } from '../../models/visible-text.js';
import type { SentBy, TrafficEvent } from '../../../../shared/api.js';
import type { TimelineRow } from './model.js';

/** Pure helpers for MCP sessions on the timeline: who each session is, and the table grouped by session. */

export interface SessionInfo {
  id: string;
  proxyId: string;
  /** the client's name from its initialize (clientInfo.name), when the timeline holds it */
  client?: string;
  /** the app's own session (Resend, Compose) */
  app: boolean;
  count: number;
}

/** the first 8 characters of a session id: enough to tell sessions apart on screen */
export const shortSession = (id: string | undefined): string => (id ? id.slice(0, 8) : '—');

/** Every session seen, in order of first appearance, with its client's name. */
export function sessionsOf(list: TrafficEvent[]): Map<string, SessionInfo> {
  const out = new Map<string, SessionInfo>();
  for (const e of list) {
    if (!e.sessionId) continue;
    let info = out.get(e.sessionId);
    if (!info) out.set(e.sessionId, (info = { id: e.sessionId, proxyId: e.proxyId, app: false, count: 0 }));
    info.count++;
    if (e.sentBy) info.app = true;
    const name =
      e.method === 'initialize' ? (e.request.params?.clientInfo as { name?: unknown } | undefined)?.name : undefined;
    if (typeof name === 'string') info.client = name;
  }
  return out;
}

/** "1a2b3c4d · demo-agent" */
export function sessionLabel(info: SessionInfo | undefined, id: string | undefined): string {
  if (!id) return 'no session';
  return info?.client ? `${shortSession(id)} · ${visibleName(info.client)}` : shortSession(id);
}

/** What the app sent, in a word, for the table's flags: "↻ resent from #12", "✎ edited from #12", "composed" */
export function sentByLabel(sentBy: SentBy | undefined): string | undefined {
  if (!sentBy) return undefined;
  const from = sentBy.from !== undefined ? ` from #${sentBy.from}` : '';
  if (sentBy.kind === 'resend') return `↻ resent${from}`;
  if (sentBy.kind === 'edit') return `↻ edited and resent${from}`;
  if (sentBy.kind === 'compose') return '✉ composed';
  return 'app session';
}

/**
 * The rows grouped by session: each session's exchanges together (sessions in order of first appearance; exchanges
 * without a session last), each group headed by a row naming the session, its client and its count.
 */
export function groupBySession(rows: TimelineRow[], sessions: Map<string, SessionInfo>): TimelineRow[] {
  const groups = new Map<string, TimelineRow[]>();
  for (const row of rows) {
    const id = row.sessionId ?? '';
    const list = groups.get(id);
    if (list) list.push(row);
    else groups.set(id, [row]);
  }
  const order = [...groups.keys()].sort((a, b) => (a === '' ? 1 : b === '' ? -1 : 0));
  const out: TimelineRow[] = [];
  for (const id of order) {
    const list = groups.get(id) as TimelineRow[];
    const head = list[0];
    const info = sessions.get(id);
    const label = id ? `Session ${sessionLabel(info, id)}${info?.app ? ' (the app’s own)' : ''}` : 'Without a session';
    out.push({ ...head, group: { sessionId: id, label, count: list.length }, pausedId: undefined });
    out.push(...list);
  }
  return out;
}

import type { JSX } from 'react';
import type { Annotation } from '../../../../../shared/api.js';
import type { TimelineColumnId } from '../../../../../shared/settings.js';
import { Name } from '../../../components/Name.js';
import { exchangeSizes, formatBytes } from '../../../models/exchange-facts.js';
import { visibleName } from '../../../models/visible-text.js';
import { formatTime, isChanged, problemsOf, sourceLabel, statusKind, statusLabel, type TimelineRow } from '../model.js';
import { sentByLabel, sessionLabel, shortSession, type SessionInfo } from '../sessions.js';

/** What the cells need besides the row. */
export interface CellContext {
  proxyName(id: string): string;
  marks: Record<number, Annotation>;
  sessions: Map<string, SessionInfo>;
}

/** the flags of a row, in words: changed by a rule or breakpoint, sent by the app, the engine's flags, the note */
export function flagsOf(e: TimelineRow, mark: Annotation | undefined): string {
  return [
    ...(isChanged(e) ? ['changed'] : []),
    ...(sentByLabel(e.sentBy) ? [sentByLabel(e.sentBy)] : []),
    ...(e.flags ?? []),
    ...(mark?.note ? [`“${mark.note}”`] : []),
  ].join(', ');
}

const CELLS: Record<TimelineColumnId, (e: TimelineRow, ctx: CellContext) => JSX.Element | string> = {
  seq: (e, ctx) => {
    if (e.pausedId) return '';
    const pinned = ctx.marks[e.seq]?.pinned;
    return (
      <span className={pinned ? 'pinned' : undefined} title={pinned ? `#${e.seq}, pinned` : `#${e.seq}`}>
        {pinned ? '★' : ''}
        {e.seq}
      </span>
    );
  },
  time: (e) => formatTime(e.startedAt),
  // the proxy, and the MCP session the exchange belongs to (the app's own sessions say so)
  proxy: (e, ctx) => {
    const session = sessionLabel(ctx.sessions.get(e.sessionId ?? ''), e.sessionId);
    return (
      <span
        title={`${ctx.proxyName(e.proxyId)} · session ${visibleName(session)}${e.sentBy ? ' (the app’s own)' : ''}`}
      >
        <Name value={ctx.proxyName(e.proxyId)} />{' '}
        <span className={e.sentBy ? 'session app' : 'session'}>
          {e.sentBy ? 'app' : shortSession(e.sessionId).slice(0, 4)}
        </span>
      </span>
    );
  },
  method: (e) => (
    <code>
      <Name value={e.method} />
    </code>
  ),
  tool: (e) => (e.tool === undefined ? '' : <Name value={e.tool} />),
  source: (e) => <span className={`src src-${e.source}`}>{sourceLabel(e)}</span>,
  status: (e) => <span className={`st st-${statusKind(e).replace(' ', '-')}`}>{statusLabel(e)}</span>,
  problems: (e) => {
    const { count, worst, summary } = problemsOf(e);
    if (!count) return '';
    return (
      <span
        className={`pb pb-${worst}`}
        title={summary} // which findings (rule and message), not only how many
        data-testid="problem-count"
      >
        ⚠{count}
      </span>
    );
  },
  tokens: (e) => (e.insight?.tokens === undefined ? '' : e.insight.tokens.toLocaleString('en-US')),
  duration: (e) => (e.response ? String(Math.round(e.durationMs)) : ''),
  size: (e) => {
    if (e.pausedId) return '';
    const s = exchangeSizes(e);
    return (
      <span
        title={`request ${s.request.toLocaleString('en')} B · answer ${s.response.toLocaleString('en')} B${s.stream ? ` · stream ${s.stream.toLocaleString('en')} B` : ''}`}
      >
        {formatBytes(s.request)} / {e.response ? formatBytes(s.response) : '—'}
      </span>
    );
  },
  revision: (e) => e.protocolVersion ?? '',
  flags: (e, ctx) => {
    const text = flagsOf(e, ctx.marks[e.seq]);
    if (!text) return '';
    const changed = isChanged(e);
    return (
      <span className={changed ? 'flag changed' : e.sentBy ? 'flag sent' : 'flag'} title={visibleName(text)}>
        {changed ? '✎' : e.sentBy ? '' : '⚑'} <Name value={text} />
      </span>
    );
  },
};

export const renderCell = (id: TimelineColumnId, e: TimelineRow, ctx: CellContext): JSX.Element | string =>
  CELLS[id](e, ctx);

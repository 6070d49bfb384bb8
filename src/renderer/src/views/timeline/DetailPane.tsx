import { visibleName } from '../../models/visible-text.js';
import { useLayoutEffect, useMemo, useRef, type JSX } from 'react';
import type { TrafficEvent } from '../../../../shared/api.js';
import { finalLabel } from '../../../../shared/traffic.js';
import { Name } from '../../components/Name.js';
import { onTabListKeyDown, tabStop } from '../../components/tabs.js';
import { useTraffic } from '../../stores/traffic.js';
import { indexOfRow, isChanged, statusKind, statusLabel } from './model.js';
import { useTimelineUi, type DetailTab } from '../../stores/timeline-ui.js';
import { DetailActions } from './verbs/DetailActions.js';
import { canResend } from './verbs/use-detail-actions.js';
import { DiffTab, type Other } from './verbs/DiffTab.js';
import { EditResend } from './verbs/EditResend.js';
import { Changes } from './detail/Changes.js';
import { JsonTree } from './detail/JsonTree.js';
import { Overview } from './detail/Overview.js';
import { Problems } from './detail/Problems.js';
import { RenderedContent } from './detail/RenderedContent.js';
import { StreamList } from './detail/StreamList.js';
import { TruncatedNote, useFullExchange } from './detail/TruncatedNote.js';

const TAB_LABELS: Record<DetailTab, string> = {
  overview: 'Overview',
  problems: 'Problems',
  request: 'Request',
  response: 'Response',
  stream: 'Stream',
  content: 'Content',
  changes: 'Changes',
  edit: 'Edit',
  diff: 'Diff',
};

/** The Response tab of an exchange without an answer: why it ended so, or that it has not ended yet. */
function noAnswer(event: TrafficEvent): string {
  const label = finalLabel(event);
  return label
    ? `No answer: ${label}${event.finalReason ? ` — ${event.finalReason}` : ''}.`
    : 'Waiting for the response…';
}

/** What the Diff tab compares with: the exchange picked, else the original of a resent one. */
function useOther(event: TrafficEvent, proxyName: (id: string) => string): Other | undefined {
  const compareWith = useTimelineUi((s) => s.compareWith);
  const found = useTraffic((s) => {
    if (compareWith?.kind === 'exchange') return s.exchanges[indexOfRow(s.exchanges, compareWith.seq)];
    if (compareWith === undefined && event.sentBy?.from !== undefined)
      return s.exchanges.find((e) => e.seq === event.sentBy?.from);
    return undefined;
  });
  return useMemo(
    () =>
      found && {
        label: `#${found.seq} ${visibleName(found.method)}${found.tool ? ` ${visibleName(found.tool)}` : ''} (${proxyName(found.proxyId)})`,
        request: found.request,
        response: found.response,
        stream: found.stream,
      },
    [found, proxyName],
  );
}

/** The selected exchange, beside (or below) the table: one tab at a time, each scrolling inside the pane. */
export function DetailPane({
  event: kept,
  proxyName,
  nameOf,
  onClose,
  filteredOut,
  onReveal,
}: {
  event: TrafficEvent & { pausedId?: string };
  proxyName: string;
  nameOf: (id: string) => string;
  onClose: () => void;
  filteredOut: boolean;
  onReveal: () => void;
}): JSX.Element {
  const full = useFullExchange(kept);
  const event: TrafficEvent & { pausedId?: string } = full === kept ? kept : { ...full, pausedId: kept.pausedId };
  const tab = useTimelineUi((s) => s.detailTab);
  const setTab = useTimelineUi((s) => s.setDetailTab);
  const compareWith = useTimelineUi((s) => s.compareWith);
  const other = useOther(event, nameOf);
  const held = event.pausedId !== undefined;
  const problemCount = event.insight?.problems.length ?? 0;
  const tabs: DetailTab[] = [
    'overview',
    ...(!held ? (['problems'] as const) : []),
    'request',
    'response',
    'stream',
    'content',
    ...(isChanged(event) ? (['changes'] as const) : []),
    ...(!held && canResend(event) ? (['edit'] as const) : []),
    ...(!held ? (['diff'] as const) : []),
  ];
  const shown = tabs.includes(tab) ? tab : 'overview';
  const tablist = useRef<HTMLDivElement>(null);
  // the tabs scroll sideways in a narrow detail: the chosen one (the actions choose Edit or Diff) comes into view
  useLayoutEffect(() => {
    tablist.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [shown]);
  const label = (t: DetailTab): string =>
    t === 'stream'
      ? `Stream (${event.stream.length})`
      : t === 'problems' && problemCount
        ? `⚠ Problems (${problemCount})`
        : TAB_LABELS[t];
  return (
    <aside className="tl-detail" aria-label="Exchange detail">
      <header className="tl-detail-head">
        <div className="tl-detail-title">
          <strong>
            <code>
              <Name value={event.method} />
            </code>{' '}
            {event.tool && <Name value={event.tool} />}
          </strong>
          <span className={`st st-${statusKind(event).replace(' ', '-')}`}>{statusLabel(event)}</span>
          {event.response && <span className="muted small">{Math.round(event.durationMs)} ms</span>}
          {isChanged(event) && <span className="changed-flag">✎ changed</span>}
        </div>
        <button type="button" onClick={onClose} aria-label="Close detail" title="Close (Esc)">
          ✕
        </button>
      </header>
      {filteredOut && (
        <p className="filtered-out small" role="note">
          This exchange is filtered out of the table.{' '}
          <button type="button" className="link" onClick={onReveal}>
            Reset filters
          </button>
        </p>
      )}
      <TruncatedNote event={kept} />
      {!held && <DetailActions event={event} proxyName={proxyName} />}
      <div
        ref={tablist}
        className="tl-detail-tabs"
        role="tablist"
        aria-label="Exchange detail sections"
        onKeyDown={(e) => onTabListKeyDown(e, (i) => setTab(tabs[i]))}
      >
        {tabs.map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            id={`detail-tab-${t}`}
            tabIndex={tabStop(t === shown)}
            aria-selected={t === shown}
            aria-controls="detail-panel"
            className={t === shown ? 'active' : undefined}
            onClick={() => setTab(t)}
          >
            {label(t)}
          </button>
        ))}
      </div>
      <div
        className="tl-detail-body"
        role="tabpanel"
        tabIndex={0}
        id="detail-panel"
        aria-labelledby={`detail-tab-${shown}`}
      >
        {shown === 'overview' && <Overview event={event} proxyName={proxyName} />}
        {shown === 'problems' && <Problems event={event} />}
        {shown === 'request' && <JsonTree value={event.request} label="Request" />}
        {shown === 'response' &&
          (event.response ? (
            <JsonTree value={event.response} label="Response" />
          ) : (
            <p className="muted">{noAnswer(event)}</p>
          ))}
        {shown === 'stream' && <StreamList event={event} />}
        {shown === 'content' && <RenderedContent event={event} />}
        {shown === 'changes' && <Changes event={event} />}
        {shown === 'edit' && <EditResend event={event} />}
        {shown === 'diff' && (
          <DiffTab event={event} compareWith={compareWith} other={other} originalSeq={event.sentBy?.from} />
        )}
      </div>
    </aside>
  );
}

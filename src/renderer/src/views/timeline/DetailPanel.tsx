import { useMemo, type JSX } from 'react';
import type { TrafficEvent } from '../../../../shared/api.js';
import { finalLabel } from '../../../../shared/traffic.js';
import { visibleName } from '../../models/visible-text.js';
import { useTimelineUi, type DetailTab } from '../../stores/timeline-ui.js';
import { useTraffic } from '../../stores/traffic.js';
import { indexOfRow } from './model.js';
import { DiffTab, type Other } from './verbs/DiffTab.js';
import { EditResend } from './verbs/EditResend.js';
import { Changes } from './detail/Changes.js';
import { JsonTree } from './detail/JsonTree.js';
import { Overview } from './detail/Overview.js';
import { Problems } from './detail/Problems.js';
import { RenderedContent } from './detail/RenderedContent.js';
import { StreamList } from './detail/StreamList.js';

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

interface DetailPanelProps {
  event: TrafficEvent & { pausedId?: string };
  shown: DetailTab;
  proxyName: string;
  nameOf: (id: string) => string;
}

/** The shown tab's content, scrolling inside the pane. */
export function DetailPanel({ event, shown, proxyName, nameOf }: DetailPanelProps): JSX.Element {
  const compareWith = useTimelineUi((s) => s.compareWith);
  const other = useOther(event, nameOf);
  return (
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
  );
}

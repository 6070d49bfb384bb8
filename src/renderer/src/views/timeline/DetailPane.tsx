import type { JSX } from 'react';
import type { TrafficEvent } from '../../../../shared/api.js';
import { DetailActions } from './verbs/DetailActions.js';
import { DetailHead } from './DetailHead.js';
import { DetailPanel } from './DetailPanel.js';
import { DetailTabList } from './DetailTabList.js';
import { TruncatedNote, useFullExchange } from './detail/TruncatedNote.js';
import { useDetailTabs } from './use-detail-tabs.js';

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
  const held = event.pausedId !== undefined;
  const tabs = useDetailTabs(event, held);
  return (
    <aside className="tl-detail" aria-label="Exchange detail">
      <DetailHead event={event} onClose={onClose} />
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
      <DetailTabList {...tabs} />
      <DetailPanel event={event} shown={tabs.shown} proxyName={proxyName} nameOf={nameOf} />
    </aside>
  );
}

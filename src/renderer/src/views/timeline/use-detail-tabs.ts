import { useLayoutEffect, useRef, type RefObject } from 'react';
import type { TrafficEvent } from '../../../../shared/api.js';
import { useTimelineUi, type DetailTab } from '../../stores/timeline-ui.js';
import { isChanged } from './model.js';
import { canResend } from './verbs/use-detail-actions.js';

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

export interface DetailTabs {
  /** the tabs this exchange has, in order */
  tabs: DetailTab[];
  /** the tab shown: the one chosen, or Overview when this exchange has not that tab */
  shown: DetailTab;
  setTab(tab: DetailTab): void;
  /** a tab's text, with the stream's length and the problems' count */
  label(tab: DetailTab): string;
  tablist: RefObject<HTMLDivElement | null>;
}

/** The detail's tabs for an exchange (a held one has fewer), the one shown, and its scrolling into view. */
export function useDetailTabs(event: TrafficEvent, held: boolean): DetailTabs {
  const tab = useTimelineUi((s) => s.detailTab);
  const setTab = useTimelineUi((s) => s.setDetailTab);
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
  return { tabs, shown, setTab, label, tablist };
}

import type { TrafficEvent } from '../../../../../shared/api.js';
import { useTimelineUi } from '../../../stores/timeline-ui.js';
import { useTraffic } from '../../../stores/traffic.js';

export interface SentBy {
  /** the exchange this one was resent from, when the app resent one */
  original?: number;
  /** shows the original and this one side by side (the Diff tab) */
  compareWithOriginal(): void;
  /** selects the original, when the timeline still holds it */
  openOriginal(seq: number): void;
}

/** What the Overview offers about an exchange the app sent: its original, to compare with or to open. */
export function useSentBy(event: TrafficEvent): SentBy {
  const { select, compare, setDetailTab } = useTimelineUi();
  return {
    original: event.sentBy?.from,
    compareWithOriginal: () => (compare(undefined), setDetailTab('diff')),
    openOriginal: (seq) => {
      if (useTraffic.getState().exchanges.some((e) => e.seq === seq)) select(seq, true);
    },
  };
}

import { create } from 'zustand'
import { EMPTY_FILTER, type RowId, type TimelineFilter } from './model.js'

export type TimelineTab = 'table' | 'waterfall' | 'histogram' | 'cost'
export type DetailTab = 'overview' | 'problems' | 'request' | 'response' | 'stream' | 'content' | 'changes' | 'edit' | 'diff'

/** What the Diff tab compares the selected exchange with: another exchange (its seq), or the cassette's entry. */
export type CompareWith = { kind: 'exchange'; seq: number } | { kind: 'cassette' }

/** The Timeline view's own UI state: filter, selection, detail pane and tab (the exchanges live in stores/traffic). */
interface TimelineUiState {
  filter: TimelineFilter
  /** the selected row: an exchange's seq, or a held call's id */
  selected?: RowId
  detailOpen: boolean
  detailTab: DetailTab
  tab: TimelineTab
  /** the table grouped by MCP session */
  grouped: boolean
  /** picking the exchange to compare the selected one with (a click on a row picks it) */
  picking: boolean
  compareWith?: CompareWith
  setFilter(patch: Partial<TimelineFilter>): void
  resetFilter(): void
  select(id: RowId | undefined, open?: boolean): void
  closeDetail(): void
  setDetailTab(tab: DetailTab): void
  setTab(tab: TimelineTab): void
  setGrouped(grouped: boolean): void
  /** starts (or cancels) picking an exchange to compare with */
  setPicking(picking: boolean): void
  /** compares the selected exchange with this (opens the Diff tab); undefined: no comparison */
  compare(target: CompareWith | undefined): void
}

export const useTimelineUi = create<TimelineUiState>()((set) => ({
  filter: EMPTY_FILTER,
  detailOpen: false,
  detailTab: 'overview',
  tab: 'table',
  grouped: false,
  picking: false,
  setFilter: (patch) => set((s) => ({ filter: { ...s.filter, ...patch } })),
  resetFilter: () => set({ filter: EMPTY_FILTER }),
  select: (selected, open) =>
    set((s) =>
      s.selected === selected
        ? { detailOpen: open ?? s.detailOpen }
        : {
            selected,
            detailOpen: open ?? s.detailOpen,
            compareWith: undefined,
            ...(s.detailTab === 'diff' || s.detailTab === 'edit' ? { detailTab: 'overview' as const } : {}),
          },
    ),
  closeDetail: () => set({ detailOpen: false }),
  setDetailTab: (detailTab) => set({ detailTab }),
  setTab: (tab) => set({ tab }),
  setGrouped: (grouped) => set({ grouped }),
  setPicking: (picking) => set({ picking }),
  compare: (compareWith) => set({ compareWith, picking: false, ...(compareWith ? { detailTab: 'diff' as const, detailOpen: true } : {}) }),
}))

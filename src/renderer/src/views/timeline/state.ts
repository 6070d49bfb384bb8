import { create } from 'zustand'
import { EMPTY_FILTER, type TimelineFilter } from './model.js'

export type TimelineTab = 'table' | 'waterfall' | 'histogram'
export type DetailTab = 'overview' | 'request' | 'response' | 'stream' | 'content' | 'changes'

/** The Timeline view's own UI state: filter, selection, detail pane and tab (the exchanges live in stores/traffic). */
interface TimelineUiState {
  filter: TimelineFilter
  /** `${proxyId}:${seq}` of the selected exchange */
  selected?: string
  detailOpen: boolean
  detailTab: DetailTab
  tab: TimelineTab
  setFilter(patch: Partial<TimelineFilter>): void
  resetFilter(): void
  select(key: string | undefined, open?: boolean): void
  closeDetail(): void
  setDetailTab(tab: DetailTab): void
  setTab(tab: TimelineTab): void
}

export const useTimelineUi = create<TimelineUiState>()((set) => ({
  filter: EMPTY_FILTER,
  detailOpen: false,
  detailTab: 'overview',
  tab: 'table',
  setFilter: (patch) => set((s) => ({ filter: { ...s.filter, ...patch } })),
  resetFilter: () => set({ filter: EMPTY_FILTER }),
  select: (selected, open) => set((s) => ({ selected, detailOpen: open ?? s.detailOpen })),
  closeDetail: () => set({ detailOpen: false }),
  setDetailTab: (detailTab) => set({ detailTab }),
  setTab: (tab) => set({ tab }),
}))

import { create } from 'zustand'
import { EMPTY_FILTER, type TimelineFilter } from './model.js'

export type TimelineTab = 'table' | 'waterfall' | 'histogram'

/** The Timeline view's own UI state: filter, selection, detail pane and tab (the exchanges live in stores/traffic). */
interface TimelineUiState {
  filter: TimelineFilter
  /** `${proxyId}:${seq}` of the selected exchange */
  selected?: string
  detailOpen: boolean
  tab: TimelineTab
  setFilter(patch: Partial<TimelineFilter>): void
  resetFilter(): void
  select(key: string | undefined, open?: boolean): void
  closeDetail(): void
  setTab(tab: TimelineTab): void
}

export const useTimelineUi = create<TimelineUiState>()((set) => ({
  filter: EMPTY_FILTER,
  detailOpen: false,
  tab: 'table',
  setFilter: (patch) => set((s) => ({ filter: { ...s.filter, ...patch } })),
  resetFilter: () => set({ filter: EMPTY_FILTER }),
  select: (selected, open) => set((s) => ({ selected, detailOpen: open ?? s.detailOpen })),
  closeDetail: () => set({ detailOpen: false }),
  setTab: (tab) => set({ tab }),
}))

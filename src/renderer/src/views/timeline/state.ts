import { create } from 'zustand'
import { pick, type PickMode } from '../../models/selection.js'
import { EMPTY_FILTER, indexOfKey, rowKey, type TimelineFilter, type TimelineRow } from './model.js'

export type TimelineTab = 'table' | 'waterfall' | 'histogram'
export type DetailTab = 'overview' | 'request' | 'response' | 'stream' | 'content' | 'changes' | 'edit' | 'diff'

/** What the Diff tab compares the selected exchange with: another exchange (its row key), or the cassette's entry. */
export type CompareWith = { kind: 'exchange'; key: string } | { kind: 'cassette' }

/** Where the column menu opens: below (or, `up`, above) the point, for a column (a header's) or none. */
export interface ColumnMenuAt {
  x: number
  y: number
  up?: boolean
  column?: string
}

/** The Timeline view's own UI state: filter, selection, detail pane and tab (the exchanges live in stores/traffic). */
interface TimelineUiState {
  filter: TimelineFilter
  /** `${proxyId}:${seq}` of the selected exchange (the one the detail shows) */
  selected?: string
  /** the rows picked for the bulk verbs (the selected one included); one row unless Shift/Ctrl-picked */
  picked: ReadonlySet<string>
  /** where a Shift range starts */
  anchor?: string
  detailOpen: boolean
  detailTab: DetailTab
  tab: TimelineTab
  /** the table grouped by MCP session */
  grouped: boolean
  /** picking the exchange to compare the selected one with (a click on a row picks it) */
  picking: boolean
  compareWith?: CompareWith
  /** the column menu: where it opens, and the column it was opened on (a header's context menu) */
  columnMenu?: ColumnMenuAt
  openColumnMenu(at: ColumnMenuAt | undefined): void
  setFilter(patch: Partial<TimelineFilter>): void
  resetFilter(): void
  /** selects one exchange (picking it alone); `open` opens or closes the detail */
  select(key: string | undefined, open?: boolean): void
  /** picks a row as a click or a key with Shift/Ctrl does (the detail follows it); `rows`: the table's rows */
  pick(key: string, mode: PickMode, rows: TimelineRow[]): void
  /** picks these rows (Ctrl+A); the selection stays */
  pickAll(keys: string[]): void
  /** back to the selected row alone */
  clearPicked(): void
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
  picked: new Set<string>(),
  detailOpen: false,
  detailTab: 'overview',
  tab: 'table',
  grouped: false,
  picking: false,
  openColumnMenu: (columnMenu) => set({ columnMenu }),
  setFilter: (patch) => set((s) => ({ filter: { ...s.filter, ...patch } })),
  resetFilter: () => set({ filter: EMPTY_FILTER }),
  select: (selected, open) =>
    set((s) => {
      const picked = selected === undefined ? new Set<string>() : s.picked.size === 1 && s.picked.has(selected) ? s.picked : new Set([selected])
      return s.selected === selected
        ? { detailOpen: open ?? s.detailOpen, picked, anchor: selected }
        : {
            selected,
            picked,
            anchor: selected,
            detailOpen: open ?? s.detailOpen,
            compareWith: undefined,
            ...(s.detailTab === 'diff' || s.detailTab === 'edit' ? { detailTab: 'overview' as const } : {}),
          }
    }),
  pick: (key, mode, rows) =>
    set((s) => {
      const next = pick({ keys: s.picked, anchor: s.anchor }, key, mode, {
        count: rows.length,
        indexOf: (k) => indexOfKey(rows, k),
        keyAt: (i) => (rows[i] && !rows[i].group && !rows[i].pausedId ? rowKey(rows[i]) : undefined),
      })
      // a row Ctrl-clicked off is not shown in the detail: the selection stays where it was (or on the last picked)
      const selected = next.keys.has(key) ? key : s.selected !== key ? s.selected : [...next.keys].at(-1)
      const changed = s.selected !== selected
      return {
        picked: next.keys,
        anchor: next.anchor,
        selected,
        ...(changed ? { compareWith: undefined, ...(s.detailTab === 'diff' || s.detailTab === 'edit' ? { detailTab: 'overview' as const } : {}) } : {}),
      }
    }),
  pickAll: (keys) => set((s) => ({ picked: new Set(keys), selected: s.selected ?? keys[0] })),
  clearPicked: () => set((s) => ({ picked: s.selected ? new Set([s.selected]) : new Set<string>(), anchor: s.selected })),
  closeDetail: () => set({ detailOpen: false }),
  setDetailTab: (detailTab) => set({ detailTab }),
  setTab: (tab) => set({ tab }),
  setGrouped: (grouped) => set({ grouped }),
  setPicking: (picking) => set({ picking }),
  compare: (compareWith) => set({ compareWith, picking: false, ...(compareWith ? { detailTab: 'diff' as const, detailOpen: true } : {}) }),
}))

import { create } from 'zustand';
import { pick, type PickMode } from '../models/selection.js';
import {
  EMPTY_FILTER,
  indexOfRow,
  rowId,
  type RowId,
  type TimelineFilter,
  type TimelineRow,
} from '../views/timeline/model.js';

export type TimelineTab = 'table' | 'waterfall' | 'histogram' | 'cost';
export type DetailTab =
  'overview' | 'problems' | 'request' | 'response' | 'stream' | 'content' | 'changes' | 'edit' | 'diff';

/** What the Diff tab compares the selected exchange with: another exchange (its seq), or the cassette's entry. */
export type CompareWith = { kind: 'exchange'; seq: number } | { kind: 'cassette' };

/** Where the column menu opens: below (or, `up`, above) the point, for a column (a header's) or none. */
export interface ColumnMenuAt {
  x: number;
  y: number;
  up?: boolean;
  column?: string;
}

/** The Timeline view's own UI state: filter, selection, detail pane and tab (the exchanges live in stores/traffic). */
export interface TimelineUiState {
  filter: TimelineFilter;
  /** the selected row: an exchange's seq, or a held call's id (the one the detail shows) */
  selected?: RowId;
  /** the rows picked for the bulk verbs (the selected one included); one row unless Shift/Ctrl-picked */
  picked: ReadonlySet<RowId>;
  /** where a Shift range starts */
  anchor?: RowId;
  detailOpen: boolean;
  detailTab: DetailTab;
  tab: TimelineTab;
  /** the table grouped by MCP session */
  grouped: boolean;
  /** picking the exchange to compare the selected one with (a click on a row picks it) */
  picking: boolean;
  compareWith?: CompareWith;
  /** the column menu: where it opens, and the column it was opened on (a header's context menu) */
  columnMenu?: ColumnMenuAt;
  openColumnMenu(at: ColumnMenuAt | undefined): void;
  setFilter(patch: Partial<TimelineFilter>): void;
  resetFilter(): void;
  /** selects one exchange (picking it alone); `open` opens or closes the detail */
  select(id: RowId | undefined, open?: boolean): void;
  /** picks a row as a click or a key with Shift/Ctrl does (the detail follows it); `rows`: the table's rows */
  pick(id: RowId, mode: PickMode, rows: TimelineRow[]): void;
  /** picks these rows (Ctrl+A); the selection stays */
  pickAll(ids: RowId[]): void;
  /** back to the selected row alone */
  clearPicked(): void;
  closeDetail(): void;
  setDetailTab(tab: DetailTab): void;
  setTab(tab: TimelineTab): void;
  setGrouped(grouped: boolean): void;
  /** starts (or cancels) picking an exchange to compare with */
  setPicking(picking: boolean): void;
  /** compares the selected exchange with this (opens the Diff tab); undefined: no comparison */
  compare(target: CompareWith | undefined): void;
}

export const useTimelineUi = create<TimelineUiState>()((set) => ({
  filter: EMPTY_FILTER,
  picked: new Set<RowId>(),
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
      const picked =
        selected === undefined
          ? new Set<RowId>()
          : s.picked.size === 1 && s.picked.has(selected)
            ? s.picked
            : new Set([selected]);
      return s.selected === selected
        ? { detailOpen: open ?? s.detailOpen, picked, anchor: selected }
        : {
            selected,
            picked,
            anchor: selected,
            detailOpen: open ?? s.detailOpen,
            compareWith: undefined,
            ...(s.detailTab === 'diff' || s.detailTab === 'edit' ? { detailTab: 'overview' as const } : {}),
          };
    }),
  pick: (key, mode, rows) =>
    set((s) => {
      const next = pick({ keys: s.picked, anchor: s.anchor }, key, mode, {
        count: rows.length,
        indexOf: (k) => indexOfRow(rows, k),
        keyAt: (i) => (rows[i] && !rows[i].group && !rows[i].pausedId ? rowId(rows[i]) : undefined),
      });
      // a row Ctrl-clicked off is not shown in the detail: the selection stays where it was (or on the last picked)
      const selected = next.keys.has(key) ? key : s.selected !== key ? s.selected : [...next.keys].at(-1);
      const changed = s.selected !== selected;
      return {
        picked: next.keys,
        anchor: next.anchor,
        selected,
        ...(changed
          ? {
              compareWith: undefined,
              ...(s.detailTab === 'diff' || s.detailTab === 'edit' ? { detailTab: 'overview' as const } : {}),
            }
          : {}),
      };
    }),
  pickAll: (keys) => set((s) => ({ picked: new Set(keys), selected: s.selected ?? keys[0] })),
  clearPicked: () =>
    set((s) => ({ picked: s.selected !== undefined ? new Set([s.selected]) : new Set<RowId>(), anchor: s.selected })),
  closeDetail: () => set({ detailOpen: false }),
  setDetailTab: (detailTab) => set({ detailTab }),
  setTab: (tab) => set({ tab }),
  setGrouped: (grouped) => set({ grouped }),
  setPicking: (picking) => set({ picking }),
  compare: (compareWith) =>
    set({ compareWith, picking: false, ...(compareWith ? { detailTab: 'diff' as const, detailOpen: true } : {}) }),
}));

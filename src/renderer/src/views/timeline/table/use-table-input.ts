import type { KeyboardEvent, MouseEvent, RefObject } from 'react';
import { usePanels } from '../../../stores/panels.js';
import { pickMode } from '../../../models/selection.js';
import type { TimelineUiState } from '../../../stores/timeline-ui.js';
import { rowId, type TimelineRow } from '../model.js';
import { ROW_HEIGHT, type VirtualRows } from './use-virtual-rows.js';

/** The row the keys move to from `from` by `step` (group heads skipped), or -1. */
function stepTo(rows: TimelineRow[], from: number, step: number): number {
  const dir = step > 0 ? 1 : -1;
  const next = Math.min(rows.length - 1, Math.max(0, from + step));
  for (let i = next; i >= 0 && i < rows.length; i += dir) if (!rows[i].group) return i;
  for (let i = next; i >= 0 && i < rows.length; i -= dir) if (!rows[i].group) return i;
  return -1;
}

/** where each moving key goes from row `from` (`page`: the rows a page holds) */
function movesOf(rows: TimelineRow[]): Record<string, (from: number, page: number) => number> {
  return {
    ArrowDown: (from) => stepTo(rows, from < 0 ? -1 : from, 1),
    ArrowUp: (from) => stepTo(rows, from < 0 ? rows.length : from, -1),
    PageDown: (from, page) => stepTo(rows, Math.max(from, 0), page),
    PageUp: (from, page) => stepTo(rows, from < 0 ? rows.length - 1 : from, -page),
    Home: () => stepTo(rows, -1, 1),
    End: () => stepTo(rows, rows.length, -1),
  };
}

type TableUi = Pick<
  TimelineUiState,
  | 'selected'
  | 'picked'
  | 'select'
  | 'pick'
  | 'pickAll'
  | 'clearPicked'
  | 'closeDetail'
  | 'picking'
  | 'compare'
  | 'setPicking'
>;

export interface TableInput {
  onRowClick(event: MouseEvent, row: TimelineRow): void;
  onKeyDown(event: KeyboardEvent<HTMLDivElement>): void;
}

/** The table's clicks and keys: open, pick (Shift/Ctrl), move (arrows, pages, Home/End), pick all, Escape. */
export function useTableInput(
  rows: TimelineRow[],
  selectedIndex: number,
  ui: TableUi,
  scroller: RefObject<HTMLDivElement | null>,
  { virtualizer, stick }: VirtualRows,
): TableInput {
  const { selected, picked, select, pick, pickAll, clearPicked, closeDetail, picking, compare, setPicking } = ui;
  const open = (row: TimelineRow): void => {
    if (row.group) return;
    if (picking) {
      // picking the exchange to compare the selected one with
      if (!row.pausedId && row.seq !== selected) compare({ kind: 'exchange', seq: row.seq });
      return;
    }
    if (row.pausedId) usePanels.getState().openBreakpoints(row.pausedId);
    select(rowId(row), true);
  };

  const onRowClick = (event: MouseEvent, row: TimelineRow): void => {
    const mode = pickMode(event);
    if (mode === 'only' || picking || row.group || row.pausedId) return open(row);
    pick(rowId(row), mode, rows);
  };

  /** moves the selection to row `next` (Shift: the range from the anchor grows with it) */
  const goTo = (next: number, extend: boolean): void => {
    if (next < 0) return;
    const id = rowId(rows[next]);
    if (extend) pick(id, 'range', rows);
    else select(id);
    virtualizer.scrollToIndex(next, { align: 'auto' });
    stick.current = next === rows.length - 1;
  };

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>): void {
    if (event.target !== event.currentTarget) return; // keys of the header's controls are theirs
    const move = movesOf(rows)[event.key];
    if (move) {
      event.preventDefault();
      if (rows.length === 0) return;
      const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? ROW_HEIGHT * 10) / ROW_HEIGHT) - 2);
      goTo(move(selectedIndex, page), event.shiftKey);
    } else if (event.key === 'Enter' && selectedIndex >= 0) {
      event.preventDefault();
      open(rows[selectedIndex]);
    } else if (event.key === 'a' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      pickAll(rows.filter((r) => !r.group && !r.pausedId).map(rowId));
    } else if (event.key === 'Escape') {
      if (picking) setPicking(false);
      else if (picked.size > 1) clearPicked();
      else closeDetail();
    }
  }
  return { onRowClick, onKeyDown };
}

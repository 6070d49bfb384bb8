import { useEffect, useMemo, useRef, type JSX, type KeyboardEvent, type MouseEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { usePanels } from '../../stores/panels.js';
import { useSettings } from '../../stores/settings.js';
import type { Annotation } from '../../../../shared/api.js';
import { pickMode } from '../../models/selection.js';
import { indexOfRow, rowId, rowKey, type TimelineRow } from './model.js';
import type { SessionInfo } from './sessions.js';
import { useTimelineUi } from '../../stores/timeline-ui.js';
import { renderCell, type CellContext } from './table/cells.js';
import { TableHeader } from './table/TableHeader.js';
import { useColumnSettings, useColumnWidths } from './table/use-columns.js';
import './timeline.css';

const ROW_HEIGHT = 26;

interface Props {
  rows: TimelineRow[];
  proxyName: (id: string) => string;
  marks: Record<number, Annotation>;
  sessions: Map<string, SessionInfo>;
  /** the detail is open beside the table: only the columns of BESIDE_DETAIL */
  besideDetail?: boolean;
}

/** the widest timeline number among the rows, as the # column shows it (a pin adds its star) */
function widestSeq(rows: TimelineRow[]): string {
  let max = 0;
  for (const r of rows) if (r.seq > max) max = r.seq;
  return `★${max}`;
}

/** The row the keys move to from `from` by `step` (group heads skipped), or -1. */
function stepTo(rows: TimelineRow[], from: number, step: number): number {
  const dir = step > 0 ? 1 : -1;
  const next = Math.min(rows.length - 1, Math.max(0, from + step));
  for (let i = next; i >= 0 && i < rows.length; i += dir) if (!rows[i].group) return i;
  for (let i = next; i >= 0 && i < rows.length; i -= dir) if (!rows[i].group) return i;
  return -1;
}

/**
 * The live exchange table: react-virtual for the rows (only the visible ones are in the DOM), columns as the user set
 * them (sorted, resized, hidden, moved: the settings), one row or many picked.
 */
export function ExchangeTable({ rows, proxyName, marks, sessions, besideDetail }: Props): JSX.Element {
  const {
    selected,
    picked,
    select,
    pick,
    pickAll,
    clearPicked,
    closeDetail,
    detailOpen,
    picking,
    compare,
    setPicking,
  } = useTimelineUi();
  const scroller = useRef<HTMLDivElement>(null);
  const measure = useRef<HTMLSpanElement>(null);
  const { settings, cols, save } = useColumnSettings(besideDetail);
  const seqText = useMemo(() => widestSeq(rows), [rows]);
  const widths = useColumnWidths(scroller, measure, cols, settings, save);
  const ctx: CellContext = useMemo(() => ({ proxyName, marks, sessions }), [proxyName, marks, sessions]);
  /** follow the newest row until the user scrolls up (the Settings' auto-scroll); not while sorted by a column */
  const autoScroll = useSettings((s) => s.settings?.autoScroll ?? true) && !settings.sort;
  const stick = useRef(autoScroll);
  useEffect(() => {
    stick.current = autoScroll;
  }, [autoScroll]);
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Virtual: the compiler leaves this component unmemoized, as intended
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();

  useEffect(() => {
    if (stick.current && rows.length > 0) virtualizer.scrollToIndex(rows.length - 1, { align: 'end' });
  }, [rows.length, virtualizer]);

  const selectedIndex = useMemo(() => indexOfRow(rows, selected), [rows, selected]);

  // the selected row stays in view when the detail opens, closes or moves (the table's height changes)
  useEffect(() => {
    if (selectedIndex < 0) return;
    const frame = requestAnimationFrame(() => virtualizer.scrollToIndex(selectedIndex, { align: 'auto' }));
    return () => cancelAnimationFrame(frame);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the layout changes, not on every new row
  }, [detailOpen]);

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

  function onScroll(): void {
    const el = scroller.current;
    if (el) stick.current = el.scrollTop + el.clientHeight >= el.scrollHeight - ROW_HEIGHT;
  }

  /** moves the selection to row `next` (Shift: the range from the anchor grows with it) */
  const goTo = (next: number, extend: boolean): void => {
    if (next < 0) return;
    const id = rowId(rows[next]);
    if (extend) pick(id, 'range', rows);
    else select(id);
    virtualizer.scrollToIndex(next, { align: 'auto' });
    stick.current = next === rows.length - 1;
  };

  const MOVES: Record<string, (from: number, page: number) => number> = {
    ArrowDown: (from) => stepTo(rows, from < 0 ? -1 : from, 1),
    ArrowUp: (from) => stepTo(rows, from < 0 ? rows.length : from, -1),
    PageDown: (from, page) => stepTo(rows, Math.max(from, 0), page),
    PageUp: (from, page) => stepTo(rows, from < 0 ? rows.length - 1 : from, -page),
    Home: () => stepTo(rows, -1, 1),
    End: () => stepTo(rows, rows.length, -1),
  };

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>): void {
    if (event.target !== event.currentTarget) return; // keys of the header's controls are theirs
    const move = MOVES[event.key];
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

  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;
  const tableWidth = widths.px.reduce((a, b) => a + b, 0);

  return (
    <div
      className={`tl-scroll${picking ? ' picking' : ''}`}
      ref={scroller}
      onScroll={onScroll}
      onKeyDown={onKeyDown}
      tabIndex={0}
      data-testid="timeline-scroll"
    >
      <table
        className={besideDetail ? 'grid tl-table beside-detail' : 'grid tl-table'}
        aria-label="Recent exchanges"
        aria-rowcount={rows.length + 1}
        style={{ width: tableWidth }}
      >
        <colgroup>
          {widths.px.map((w, i) => (
            <col key={cols[i].id} style={{ width: w }} />
          ))}
        </colgroup>
        <thead>
          <TableHeader cols={cols} widths={widths} settings={settings} save={save} />
        </thead>
        <tbody>
          {padTop > 0 && (
            <tr aria-hidden className="tl-pad">
              <td colSpan={cols.length} style={{ height: padTop }} />
            </tr>
          )}
          {items.map((v) => {
            const row = rows[v.index];
            if (!row) return null;
            const key = rowKey(row);
            const group = row.group;
            if (group) {
              return (
                <tr
                  key={key}
                  data-index={v.index}
                  aria-rowindex={v.index + 2}
                  className="tl-group"
                  style={{ height: ROW_HEIGHT }}
                >
                  <td colSpan={cols.length}>
                    <strong>{group.label}</strong>{' '}
                    <span className="muted">
                      · {proxyName(row.proxyId)} · {group.count} exchange{group.count === 1 ? '' : 's'}
                    </span>
                  </td>
                </tr>
              );
            }
            const id = rowId(row);
            const isSelected = id === selected;
            const isPicked = picked.has(id);
            return (
              <tr
                key={key}
                data-index={v.index}
                aria-rowindex={v.index + 2}
                aria-selected={isPicked || isSelected}
                className={`tl-row${isSelected ? ' selected' : ''}${isPicked && picked.size > 1 ? ' picked' : ''}${row.pausedId ? ' held' : ''}${marks[row.seq]?.pinned && !row.pausedId ? ' pinned' : ''}`}
                style={{ height: ROW_HEIGHT }}
                onMouseDown={(e) => e.shiftKey && e.preventDefault()} // a Shift-click picks a range, it selects no text
                onClick={(e) => onRowClick(e, row)}
              >
                {cols.map((c) => (
                  <td key={c.id} className={c.num ? 'num' : undefined}>
                    {renderCell(c.id, row, ctx)}
                  </td>
                ))}
              </tr>
            );
          })}
          {padBottom > 0 && (
            <tr aria-hidden className="tl-pad">
              <td colSpan={cols.length} style={{ height: padBottom }} />
            </tr>
          )}
        </tbody>
      </table>
      <span ref={measure} className="tl-measure" aria-hidden="true">
        {seqText}
      </span>
    </div>
  );
}

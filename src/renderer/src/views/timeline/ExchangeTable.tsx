import { useMemo, useRef, type JSX } from 'react';
import { useSettings } from '../../stores/settings.js';
import type { Annotation } from '../../../../shared/api.js';
import { indexOfRow, type TimelineRow } from './model.js';
import type { SessionInfo } from './sessions.js';
import { useTimelineUi } from '../../stores/timeline-ui.js';
import type { CellContext } from './table/cells.js';
import { TableHeader } from './table/TableHeader.js';
import { TableRows } from './table/TableRows.js';
import { useTableInput } from './table/use-table-input.js';
import { useColumnSettings, useColumnWidths } from './table/use-columns.js';
import { useVirtualRows } from './table/use-virtual-rows.js';
import './timeline.css';

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

/**
 * The live exchange table: react-virtual for the rows (only the visible ones are in the DOM), columns as the user set
 * them (sorted, resized, hidden, moved: the settings), one row or many picked.
 */
export function ExchangeTable({ rows, proxyName, marks, sessions, besideDetail }: Props): JSX.Element {
  const ui = useTimelineUi();
  const scroller = useRef<HTMLDivElement>(null);
  const measure = useRef<HTMLSpanElement>(null);
  const { settings, cols, save } = useColumnSettings(besideDetail);
  const seqText = useMemo(() => widestSeq(rows), [rows]);
  const widths = useColumnWidths(scroller, measure, cols, settings, save);
  const ctx: CellContext = useMemo(() => ({ proxyName, marks, sessions }), [proxyName, marks, sessions]);
  /** follow the newest row until the user scrolls up (the Settings' auto-scroll); not while sorted by a column */
  const autoScroll = useSettings((s) => s.settings?.autoScroll ?? true) && !settings.sort;
  const selectedIndex = useMemo(() => indexOfRow(rows, ui.selected), [rows, ui.selected]);
  const virtual = useVirtualRows(scroller, rows.length, autoScroll, ui.detailOpen, selectedIndex);
  const { onRowClick, onKeyDown } = useTableInput(rows, selectedIndex, ui, scroller, virtual);
  const tableWidth = widths.px.reduce((a, b) => a + b, 0);

  return (
    <div
      className={`tl-scroll${ui.picking ? ' picking' : ''}`}
      ref={scroller}
      onScroll={virtual.onScroll}
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
        <TableRows
          rows={rows}
          items={virtual.virtualizer.getVirtualItems()}
          totalSize={virtual.virtualizer.getTotalSize()}
          cols={cols}
          ctx={ctx}
          selected={ui.selected}
          picked={ui.picked}
          onRowClick={onRowClick}
        />
      </table>
      <span ref={measure} className="tl-measure" aria-hidden="true">
        {seqText}
      </span>
    </div>
  );
}

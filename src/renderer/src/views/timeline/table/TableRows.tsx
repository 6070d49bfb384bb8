import type { JSX, MouseEvent } from 'react';
import type { VirtualItem } from '@tanstack/react-virtual';
import type { ColumnDef } from '../../../models/columns.js';
import { rowId, rowKey, type RowId, type TimelineRow } from '../model.js';
import { renderCell, type CellContext } from './cells.js';
import { ROW_HEIGHT } from './use-virtual-rows.js';

/** the height of the rows not in the DOM (above or below the visible ones), so the scrollbar stays true */
function PadRow({ height, span }: { height: number; span: number }): JSX.Element | null {
  if (height <= 0) return null;
  return (
    <tr aria-hidden className="tl-pad">
      <td colSpan={span} style={{ height }} />
    </tr>
  );
}

interface GroupProps {
  group: NonNullable<TimelineRow['group']>;
  proxy: string;
  index: number;
  span: number;
}

/** a session group's head: its label, proxy and count */
function GroupRow({ group, proxy, index, span }: GroupProps): JSX.Element {
  return (
    <tr data-index={index} aria-rowindex={index + 2} className="tl-group" style={{ height: ROW_HEIGHT }}>
      <td colSpan={span}>
        <strong>{group.label}</strong>{' '}
        <span className="muted">
          · {proxy} · {group.count} exchange{group.count === 1 ? '' : 's'}
        </span>
      </td>
    </tr>
  );
}

export interface RowsProps {
  rows: TimelineRow[];
  items: VirtualItem[];
  totalSize: number;
  cols: ColumnDef[];
  ctx: CellContext;
  selected: RowId | undefined;
  picked: ReadonlySet<RowId>;
  onRowClick(event: MouseEvent, row: TimelineRow): void;
}

/** the visible rows (group heads and exchanges) between the pads that stand for the rest */
export function TableRows({ rows, items, totalSize, cols, ctx, selected, picked, onRowClick }: RowsProps): JSX.Element {
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? totalSize - items[items.length - 1].end : 0;
  return (
    <tbody>
      <PadRow height={padTop} span={cols.length} />
      {items.map((v) => {
        const row = rows[v.index];
        if (!row) return null;
        const key = rowKey(row);
        if (row.group) {
          const proxy = ctx.proxyName(row.proxyId);
          return <GroupRow key={key} group={row.group} proxy={proxy} index={v.index} span={cols.length} />;
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
            className={`tl-row${isSelected ? ' selected' : ''}${isPicked && picked.size > 1 ? ' picked' : ''}${row.pausedId ? ' held' : ''}${ctx.marks[row.seq]?.pinned && !row.pausedId ? ' pinned' : ''}`}
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
      <PadRow height={padBottom} span={cols.length} />
    </tbody>
  );
}

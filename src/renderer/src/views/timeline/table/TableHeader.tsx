import { useState, type JSX, type KeyboardEvent, type PointerEvent } from 'react';
import type { TimelineColumns } from '../../../../../shared/settings.js';
import { moveColumn, nextSort, type ColumnDef } from '../../../models/columns.js';
import { useTimelineUi } from '../../../stores/timeline-ui.js';
import type { ColumnWidths } from './use-columns.js';

interface Props {
  cols: ColumnDef[];
  widths: ColumnWidths;
  settings: TimelineColumns;
  save(next: TimelineColumns): void;
}

const ariaSort = (settings: TimelineColumns, id: string): 'ascending' | 'descending' | 'none' =>
  settings.sort?.column === id ? (settings.sort.desc ? 'descending' : 'ascending') : 'none';

/**
 * The table's header: a click sorts by a column (again: the other way, a third time: request order), a drag of a
 * header moves the column, a drag of its right edge resizes it, a right-click opens the column menu. From the
 * keyboard the header is one Tab stop: ←/→ move between the columns, Enter sorts, Alt+←/→ narrows or widens,
 * Ctrl+Shift+←/→ moves the column, Shift+F10 or the context-menu key opens the column menu.
 */
export function TableHeader({ cols, widths, settings, save }: Props): JSX.Element {
  // the header's one Tab stop, by column (it follows the column when the column moves)
  const [focusedId, setFocused] = useState<string>();
  const focused = Math.max(
    0,
    cols.findIndex((c) => c.id === focusedId),
  );
  const openMenu = useTimelineUi((s) => s.openColumnMenu);
  const [dragging, setDragging] = useState<string>();

  const menuAt = (el: HTMLElement, column: string): void => {
    const r = el.getBoundingClientRect();
    openMenu({ x: r.left, y: r.bottom + 2, column });
  };

  function onKeyDown(event: KeyboardEvent<HTMLTableRowElement>, i: number): void {
    const col = cols[i];
    if (!col) return;
    const side = event.key === 'ArrowLeft' ? -1 : event.key === 'ArrowRight' ? 1 : 0;
    if (side && event.ctrlKey && event.shiftKey) save(moveColumn(settings, col.id, { by: side }));
    else if (side && event.altKey) widths.nudge(i, side * 16);
    else if (side) {
      const to = Math.min(cols.length - 1, Math.max(0, i + side));
      setFocused(cols[to].id);
      event.currentTarget.querySelectorAll<HTMLElement>('.th-sort')[to]?.focus();
    } else if (event.key === 'ContextMenu' || (event.key === 'F10' && event.shiftKey))
      menuAt(event.target as HTMLElement, col.id);
    else return;
    event.preventDefault();
    event.stopPropagation();
  }

  const startResize = (event: PointerEvent<HTMLSpanElement>, i: number): void => {
    event.preventDefault();
    event.stopPropagation();
    const handle = event.currentTarget;
    const x0 = event.clientX;
    handle.setPointerCapture(event.pointerId);
    const move = (e: globalThis.PointerEvent): void => widths.resize(i, e.clientX - x0);
    const up = (): void => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
      handle.removeEventListener('pointercancel', up);
      widths.commit();
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
    handle.addEventListener('pointercancel', up);
  };

  return (
    <tr
      onKeyDown={(e) =>
        onKeyDown(
          e,
          cols.findIndex((c) => c.id === (e.target as HTMLElement).closest('th')?.dataset.column),
        )
      }
    >
      {cols.map((c, i) => {
        const sort = ariaSort(settings, c.id);
        return (
          <th
            key={c.id}
            className={`${c.num ? 'num ' : ''}${dragging === c.id ? 'dragging' : ''}`}
            aria-sort={sort}
            data-column={c.id}
            draggable
            onDragStart={(e) => {
              e.dataTransfer.setData('text/x-rewind-column', c.id);
              e.dataTransfer.effectAllowed = 'move';
              setDragging(c.id);
            }}
            onDragEnd={() => setDragging(undefined)}
            onDragOver={(e) => e.dataTransfer.types.includes('text/x-rewind-column') && e.preventDefault()}
            onDrop={(e) => {
              const id = e.dataTransfer.getData('text/x-rewind-column');
              const box = e.currentTarget.getBoundingClientRect();
              const after = e.clientX > box.left + box.width / 2;
              const before = after ? (cols[i + 1]?.id ?? '') : c.id;
              if (id && id !== c.id) save(moveColumn(settings, id, { before }));
              setDragging(undefined);
            }}
            onContextMenu={(e) => {
              e.preventDefault();
              openMenu({ x: e.clientX, y: e.clientY, column: c.id });
            }}
          >
            <button
              type="button"
              className="th-sort"
              tabIndex={i === focused ? 0 : -1}
              title={`${c.title} — click to sort`}
              onFocus={() => setFocused(c.id)}
              onClick={() => save(nextSort(settings, c.id))}
            >
              {c.label}
              <span className="sort-mark" aria-hidden="true">
                {sort === 'ascending' ? ' ▲' : sort === 'descending' ? ' ▼' : ''}
              </span>
            </button>
            {!c.fixed && (
              <span
                className="th-resize"
                aria-hidden="true"
                onPointerDown={(e) => startResize(e, i)}
                onMouseDown={(e) => e.preventDefault()} // a resize, not the header's drag (which moves the column)
                onClick={(e) => e.stopPropagation()}
              />
            )}
          </th>
        );
      })}
    </tr>
  );
}

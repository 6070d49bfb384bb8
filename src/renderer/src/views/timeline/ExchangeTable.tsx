import { useEffect, useMemo, useRef, type JSX, type KeyboardEvent } from 'react'
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table'
import { useVirtualizer } from '@tanstack/react-virtual'
import { usePanels } from '../../stores/panels.js'
import { useSettings } from '../../stores/settings.js'
import { formatTime, indexOfKey, isChanged, rowKey, sourceLabel, statusKind, statusLabel, type TimelineRow } from './model.js'
import { useTimelineUi } from './state.js'
import './timeline.css'

const ROW_HEIGHT = 26
const col = createColumnHelper<TimelineRow>()

function columns(proxyName: (id: string) => string) {
  return [
    col.accessor('startedAt', { header: 'Time', cell: (c) => formatTime(c.getValue()), size: 160 }),
    col.accessor((e) => proxyName(e.proxyId), { id: 'proxy', header: 'Proxy', size: 96 }),
    col.accessor('method', { header: 'Method', cell: (c) => <code>{c.getValue()}</code>, size: 160 }),
    col.accessor((e) => e.tool ?? '', { id: 'tool', header: 'Tool', size: 140 }),
    col.accessor(sourceLabel, { id: 'source', header: 'Source', cell: (c) => <span className={`src src-${c.row.original.source}`}>{c.getValue()}</span>, size: 130 }),
    col.accessor(statusLabel, { id: 'status', header: 'Status', cell: (c) => <span className={`st st-${statusKind(c.row.original).replace(' ', '-')}`}>{c.getValue()}</span>, size: 110 }),
    col.accessor('durationMs', { header: 'ms', cell: (c) => (c.row.original.response ? Math.round(c.getValue()) : ''), size: 70, meta: { num: true } }),
    col.accessor((e) => [...(isChanged(e) ? ['changed'] : []), ...(e.flags ?? [])].join(', '), {
      id: 'flags',
      header: 'Flags',
      cell: (c) => (c.getValue() ? <span className={isChanged(c.row.original) ? 'flag changed' : 'flag'} title={c.getValue()}>{isChanged(c.row.original) ? '✎' : '⚑'} {c.getValue()}</span> : ''),
      size: 150,
    }),
  ]
}

interface Props {
  rows: TimelineRow[]
  proxyName: (id: string) => string
}

/** The live exchange table: react-table for the model, react-virtual for the rows (only the visible ones are in the DOM). */
export function ExchangeTable({ rows, proxyName }: Props): JSX.Element {
  const { selected, select, closeDetail, detailOpen } = useTimelineUi()
  const cols = useMemo(() => columns(proxyName), [proxyName])
  const scroller = useRef<HTMLDivElement>(null)
  /** follow the newest row until the user scrolls up (the Settings' auto-scroll) */
  const autoScroll = useSettings((s) => s.settings?.autoScroll ?? true)
  const stick = useRef(autoScroll)
  useEffect(() => {
    stick.current = autoScroll
  }, [autoScroll])
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 })
  const items = virtualizer.getVirtualItems()
  // react-table gets only the rows in (and around) the viewport: building its row model for 100,000 rows on every
  // live event costs ~0.5 s (every row gets each feature's methods); a window of ~50 rows costs nothing.
  const first = items.length ? items[0].index : 0
  const visible = useMemo(() => rows.slice(first, first + items.length), [rows, first, items.length])
  const table = useReactTable({ data: visible, columns: cols, getCoreRowModel: getCoreRowModel(), getRowId: rowKey })
  const model = table.getRowModel().rows

  useEffect(() => {
    if (stick.current && rows.length > 0) virtualizer.scrollToIndex(rows.length - 1, { align: 'end' })
  }, [rows.length, virtualizer])

  const selectedIndex = useMemo(() => indexOfKey(rows, selected), [rows, selected])

  // the selected row stays in view when the detail opens, closes or moves (the table's height changes)
  useEffect(() => {
    if (selectedIndex < 0) return
    const frame = requestAnimationFrame(() => virtualizer.scrollToIndex(selectedIndex, { align: 'auto' }))
    return () => cancelAnimationFrame(frame)
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the layout changes, not on every new row
  }, [detailOpen])

  const open = (row: TimelineRow): void => {
    if (row.pausedId) usePanels.getState().openBreakpoints(row.pausedId)
    select(rowKey(row), true)
  }

  function onScroll(): void {
    const el = scroller.current
    if (el) stick.current = el.scrollTop + el.clientHeight >= el.scrollHeight - ROW_HEIGHT
  }

  function onKeyDown(event: KeyboardEvent): void {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault()
      if (rows.length === 0) return
      const from = selectedIndex < 0 ? (event.key === 'ArrowDown' ? -1 : rows.length) : selectedIndex
      const next = Math.min(rows.length - 1, Math.max(0, from + (event.key === 'ArrowDown' ? 1 : -1)))
      select(rowKey(rows[next]))
      virtualizer.scrollToIndex(next, { align: 'auto' })
      stick.current = next === rows.length - 1
    } else if (event.key === 'Enter' && selectedIndex >= 0) {
      event.preventDefault()
      open(rows[selectedIndex])
    } else if (event.key === 'Escape') {
      closeDetail()
    }
  }

  const padTop = items.length ? items[0].start : 0
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0
  // column widths as shares of the whole: the table fits its pane (cells cut with an ellipsis) at any split size
  const sizes = table.getFlatHeaders().map((h) => h.getSize())
  const total = sizes.reduce((a, b) => a + b, 0)
  const widths = sizes.map((w) => `${((w / total) * 100).toFixed(2)}%`)

  return (
    <div className="tl-scroll" ref={scroller} onScroll={onScroll} onKeyDown={onKeyDown} tabIndex={0} data-testid="timeline-scroll">
      <table className="grid tl-table" aria-label="Recent exchanges" aria-rowcount={rows.length + 1}>
        <colgroup>
          {widths.map((w, i) => (
            <col key={i} style={{ width: w }} />
          ))}
        </colgroup>
        <thead>
          {table.getHeaderGroups().map((g) => (
            <tr key={g.id}>
              {g.headers.map((h) => (
                <th key={h.id} className={(h.column.columnDef.meta as { num?: boolean } | undefined)?.num ? 'num' : undefined}>
                  {flexRender(h.column.columnDef.header, h.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {padTop > 0 && (
            <tr aria-hidden className="tl-pad">
              <td colSpan={widths.length} style={{ height: padTop }} />
            </tr>
          )}
          {items.map((v) => {
            const row = model[v.index - first]
            if (!row) return null
            const isSelected = row.id === selected
            return (
              <tr
                key={row.id}
                data-index={v.index}
                aria-rowindex={v.index + 2}
                aria-selected={isSelected}
                className={`tl-row${isSelected ? ' selected' : ''}${row.original.pausedId ? ' held' : ''}`}
                style={{ height: ROW_HEIGHT }}
                onClick={() => open(row.original)}
              >
                {row.getVisibleCells().map((cell) => (
                  <td key={cell.id} className={(cell.column.columnDef.meta as { num?: boolean } | undefined)?.num ? 'num' : undefined}>
                    {flexRender(cell.column.columnDef.cell, cell.getContext())}
                  </td>
                ))}
              </tr>
            )
          })}
          {padBottom > 0 && (
            <tr aria-hidden className="tl-pad">
              <td colSpan={widths.length} style={{ height: padBottom }} />
            </tr>
          )}
        </tbody>
      </table>
    </div>
  )
}

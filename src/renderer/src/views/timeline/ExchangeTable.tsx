import { useEffect, useMemo, useRef, type JSX, type KeyboardEvent } from 'react'
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table'
import { useVirtualizer } from '@tanstack/react-virtual'
import { usePanels } from '../../stores/panels.js'
import { useSettings } from '../../stores/settings.js'
import type { Annotation } from '../../../../shared/api.js'
import { formatTime, indexOfRow, isChanged, problemsOf, rowId, rowKey, sourceLabel, statusKind, statusLabel, type TimelineRow } from './model.js'
import { sentByLabel, sessionLabel, shortSession, type SessionInfo } from './sessions.js'
import { useTimelineUi } from './state.js'
import './timeline.css'

const ROW_HEIGHT = 26
const col = createColumnHelper<TimelineRow>()

/** the flags of a row, in words: changed by a rule or breakpoint, sent by the app, the engine's flags, the note */
function flagsOf(e: TimelineRow, mark: Annotation | undefined): string {
  return [
    ...(isChanged(e) ? ['changed'] : []),
    ...(sentByLabel(e.sentBy) ? [sentByLabel(e.sentBy)] : []),
    ...(e.flags ?? []),
    ...(mark?.note ? [`“${mark.note}”`] : []),
  ].join(', ')
}

function columns(proxyName: (id: string) => string, marks: Record<number, Annotation>, sessions: Map<string, SessionInfo>) {
  return [
    col.accessor('seq', {
      id: 'seq',
      header: '#',
      cell: (c) =>
        c.row.original.pausedId ? (
          ''
        ) : (
          <span className={marks[c.getValue()]?.pinned ? 'pinned' : undefined} title={marks[c.getValue()]?.pinned ? 'pinned' : undefined}>
            {marks[c.getValue()]?.pinned ? '★' : ''}
            {c.getValue()}
          </span>
        ),
      size: 48,
      meta: { num: true },
    }),
    col.accessor('startedAt', { header: 'Time', cell: (c) => formatTime(c.getValue()), size: 140 }),
    // the proxy, and the MCP session the exchange belongs to (the app's own sessions say so)
    col.accessor((e) => `${proxyName(e.proxyId)} ${e.sessionId ?? ''}`, {
      id: 'proxy',
      header: 'Proxy',
      cell: (c) => {
        const e = c.row.original
        return (
          <span title={`${proxyName(e.proxyId)} · session ${sessionLabel(sessions.get(e.sessionId ?? ''), e.sessionId)}${e.sentBy ? ' (the app’s own)' : ''}`}>
            {proxyName(e.proxyId)} <span className={e.sentBy ? 'session app' : 'session'}>{e.sentBy ? 'app' : shortSession(e.sessionId).slice(0, 4)}</span>
          </span>
        )
      },
      size: 130,
    }),
    col.accessor('method', { header: 'Method', cell: (c) => <code>{c.getValue()}</code>, size: 145 }),
    col.accessor((e) => e.tool ?? '', { id: 'tool', header: 'Tool', size: 120 }),
    col.accessor(sourceLabel, {
      id: 'source',
      header: 'Source',
      cell: (c) => <span className={`src src-${c.row.original.source}`}>{c.getValue()}</span>,
      size: 105,
    }),
    col.accessor(statusLabel, {
      id: 'status',
      header: 'Status',
      cell: (c) => <span className={`st st-${statusKind(c.row.original).replace(' ', '-')}`}>{c.getValue()}</span>,
      size: 85,
    }),
    col.accessor((e) => problemsOf(e).count, {
      id: 'problems',
      header: () => <span title="Protocol problems and security warnings">⚠</span>,
      cell: (c) => {
        const { count, worst } = problemsOf(c.row.original)
        return count ? (
          <span className={`pb pb-${worst}`} title={`${count} problem${count === 1 ? '' : 's'} (worst: ${worst})`} data-testid="problem-count">
            ⚠{count}
          </span>
        ) : (
          ''
        )
      },
      size: 48,
      meta: { num: true },
    }),
    col.accessor((e) => e.insight?.tokens ?? -1, {
      id: 'tokens',
      header: () => <span title="Tokens this exchange puts in the model's context (o200k_base)">tok</span>,
      cell: (c) => (c.getValue() >= 0 ? c.getValue().toLocaleString('en-US') : ''),
      size: 55,
      meta: { num: true },
    }),
    col.accessor('durationMs', { header: 'ms', cell: (c) => (c.row.original.response ? Math.round(c.getValue()) : ''), size: 55, meta: { num: true } }),
    col.accessor((e) => flagsOf(e, marks[e.seq]), {
      id: 'flags',
      header: 'Flags',
      cell: (c) =>
        c.getValue() ? (
          <span className={isChanged(c.row.original) ? 'flag changed' : c.row.original.sentBy ? 'flag sent' : 'flag'} title={c.getValue()}>
            {isChanged(c.row.original) ? '✎' : c.row.original.sentBy ? '' : '⚑'} {c.getValue()}
          </span>
        ) : (
          ''
        ),
      size: 120,
    }),
  ]
}

interface Props {
  rows: TimelineRow[]
  proxyName: (id: string) => string
  marks: Record<number, Annotation>
  sessions: Map<string, SessionInfo>
}

/** The live exchange table: react-table for the model, react-virtual for the rows (only the visible ones are in the DOM). */
export function ExchangeTable({ rows, proxyName, marks, sessions }: Props): JSX.Element {
  const { selected, select, closeDetail, detailOpen, picking, compare, setPicking } = useTimelineUi()
  const cols = useMemo(() => columns(proxyName, marks, sessions), [proxyName, marks, sessions])
  const scroller = useRef<HTMLDivElement>(null)
  /** follow the newest row until the user scrolls up (the Settings' auto-scroll) */
  const autoScroll = useSettings((s) => s.settings?.autoScroll ?? true)
  const stick = useRef(autoScroll)
  useEffect(() => {
    stick.current = autoScroll
  }, [autoScroll])
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Virtual: the compiler leaves this component unmemoized, as intended
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

  const selectedIndex = useMemo(() => indexOfRow(rows, selected), [rows, selected])

  // the selected row stays in view when the detail opens, closes or moves (the table's height changes)
  useEffect(() => {
    if (selectedIndex < 0) return
    const frame = requestAnimationFrame(() => virtualizer.scrollToIndex(selectedIndex, { align: 'auto' }))
    return () => cancelAnimationFrame(frame)
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the layout changes, not on every new row
  }, [detailOpen])

  const open = (row: TimelineRow): void => {
    if (row.group) return
    if (picking) {
      // picking the exchange to compare the selected one with
      if (!row.pausedId && row.seq !== selected) compare({ kind: 'exchange', seq: row.seq })
      return
    }
    if (row.pausedId) usePanels.getState().openBreakpoints(row.pausedId)
    select(rowId(row), true)
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
      const step = event.key === 'ArrowDown' ? 1 : -1
      let next = Math.min(rows.length - 1, Math.max(0, from + step))
      while (rows[next]?.group && next + step >= 0 && next + step < rows.length) next += step // group heads are not exchanges
      if (rows[next]?.group) return
      select(rowId(rows[next]))
      virtualizer.scrollToIndex(next, { align: 'auto' })
      stick.current = next === rows.length - 1
    } else if (event.key === 'Enter' && selectedIndex >= 0) {
      event.preventDefault()
      open(rows[selectedIndex])
    } else if (event.key === 'Escape') {
      if (picking) setPicking(false)
      else closeDetail()
    }
  }

  const padTop = items.length ? items[0].start : 0
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0
  // column widths as shares of the whole: the table fits its pane (cells cut with an ellipsis) at any split size
  const sizes = table.getFlatHeaders().map((h) => h.getSize())
  const total = sizes.reduce((a, b) => a + b, 0)
  const widths = sizes.map((w) => `${((w / total) * 100).toFixed(2)}%`)

  return (
    <div
      className={`tl-scroll${picking ? ' picking' : ''}`}
      ref={scroller}
      onScroll={onScroll}
      onKeyDown={onKeyDown}
      tabIndex={0}
      data-testid="timeline-scroll"
    >
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
            const group = row.original.group
            if (group) {
              return (
                <tr key={row.id} data-index={v.index} aria-rowindex={v.index + 2} className="tl-group" style={{ height: ROW_HEIGHT }}>
                  <td colSpan={widths.length}>
                    <strong>{group.label}</strong>{' '}
                    <span className="muted">
                      · {proxyName(row.original.proxyId)} · {group.count} exchange{group.count === 1 ? '' : 's'}
                    </span>
                  </td>
                </tr>
              )
            }
            const isSelected = rowId(row.original) === selected
            return (
              <tr
                key={row.id}
                data-index={v.index}
                aria-rowindex={v.index + 2}
                aria-selected={isSelected}
                className={`tl-row${isSelected ? ' selected' : ''}${row.original.pausedId ? ' held' : ''}${marks[row.original.seq]?.pinned && !row.original.pausedId ? ' pinned' : ''}`}
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

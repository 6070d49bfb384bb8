import { useCallback, useEffect, useMemo, type JSX } from 'react'
import { Group, Panel, Separator, type Layout } from 'react-resizable-panels'
import { useBreakpoints } from '../../stores/breakpoints.js'
import { useProxies } from '../../stores/proxies.js'
import { useSettings } from '../../stores/settings.js'
import { useTraffic, type ClearScope } from '../../stores/traffic.js'
import { applyFilter, distinct, heldRows, indexOfKey, isFiltering, rowKey, warmSearch, type TimelineFilter, type TimelineRow } from './model.js'
import { useTimelineUi, type TimelineTab } from './state.js'
import { Filters } from './Filters.js'
import { ExchangeTable } from './ExchangeTable.js'
import { DetailPane } from './DetailPane.js'
import { Waterfall } from './Waterfall.js'
import { Histogram } from './Histogram.js'
import './timeline.css'

const TABS: Array<[TimelineTab, string]> = [
  ['table', 'Table'],
  ['waterfall', 'Waterfall'],
  ['histogram', 'Histogram'],
]

/** What Clear removes: the rows shown under the filter (and proxy), said in words, or everything. */
function clearScope(filter: TimelineFilter, proxyName: (id: string) => string): ClearScope {
  if (!isFiltering(filter)) return { label: 'every exchange' }
  const parts = [
    filter.proxy && `proxy ${proxyName(filter.proxy)}`,
    filter.method && `method ${filter.method}`,
    filter.tool && `tool ${filter.tool}`,
    filter.status && `status ${filter.status}`,
    filter.source && `source ${filter.source}`,
    filter.text.trim() && `“${filter.text.trim()}”`,
  ].filter(Boolean)
  const onlyProxy = filter.proxy && parts.length === 1
  return { label: `the exchanges shown (${parts.join(', ')})`, matches: (e) => applyFilter([e], filter).length === 1, ...(onlyProxy ? { proxyId: filter.proxy } : {}) }
}

function Toolbar({ shown, scope }: { shown: number; scope: ClearScope }): JSX.Element {
  const { exchanges, paused, held, dropped, pause, resume, clear, undoClear, cleared, error } = useTraffic()
  const { tab, setTab } = useTimelineUi()
  return (
    <div className="toolbar tl-toolbar">
      <div className="tl-tabs" role="tablist" aria-label="Timeline views">
        {TABS.map(([id, label]) => (
          <button key={id} type="button" role="tab" aria-selected={tab === id} className={tab === id ? 'active' : undefined} onClick={() => setTab(id)}>
            {label}
          </button>
        ))}
      </div>
      <span className="muted" data-testid="traffic-count">
        {exchanges.length} exchange{exchanges.length === 1 ? '' : 's'}
        {paused && held > 0 ? ` · ${held} held while paused` : ''}
      </span>
      {dropped > 0 && <span className="muted small">({dropped} oldest dropped)</span>}
      <button type="button" onClick={paused ? resume : pause} aria-pressed={paused}>
        {paused ? 'Resume' : 'Pause'}
      </button>
      <button type="button" onClick={() => void clear(scope)} disabled={shown === 0} title={`Clears ${scope.label}; can be undone for 10 s`} aria-label={scope.matches ? `Clear ${shown} shown` : 'Clear all'}>
        {scope.matches ? `Clear ${shown} shown` : 'Clear all'}
      </button>
      {cleared && (
        <span className="toast" aria-live="polite">
          Cleared {cleared.count} ({cleared.label})
          <button type="button" onClick={() => void undoClear()}>
            Undo
          </button>
        </span>
      )}
      {error && (
        <span role="alert" className="error">
          {error}
        </span>
      )}
    </div>
  )
}

/** The split's sizes and orientation live in the settings, so both shells open as the user left them. */
function useSplit(): { split: 'side' | 'bottom'; table: number; save: (layout: Layout) => void; toggle: () => void } {
  const layout = useSettings((s) => s.settings?.timelineLayout) ?? { split: 'side' as const, side: 60, bottom: 60 }
  const update = useSettings((s) => s.update)
  return {
    split: layout.split,
    table: layout.split === 'side' ? layout.side : layout.bottom,
    save: (sizes) => {
      const table = Math.round(Math.min(90, Math.max(10, sizes.table ?? 60)))
      if (table !== (layout.split === 'side' ? layout.side : layout.bottom)) void update({ timelineLayout: { ...layout, [layout.split]: table } }).catch(() => {})
    },
    toggle: () => void update({ timelineLayout: { ...layout, split: layout.split === 'side' ? 'bottom' : 'side' } }).catch(() => {}),
  }
}

/** The live timeline: toolbar, filters, and the filtered exchanges as a table beside its detail, a waterfall or a histogram. */
export function Timeline(): JSX.Element {
  const exchanges = useTraffic((s) => s.exchanges)
  const paused = useBreakpoints((s) => s.paused)
  const proxies = useProxies((s) => s.proxies)
  const { filter, tab, selected, detailOpen, select, closeDetail, resetFilter } = useTimelineUi()
  const names = useMemo(() => new Map(proxies.map((p) => [p.id, p.name])), [proxies])
  const proxyName = useCallback((id: string) => names.get(id) ?? id, [names])
  const filtered = useMemo(() => applyFilter(exchanges, filter), [exchanges, filter])
  // calls held at a breakpoint are pending rows at the end (of their proxy, when the filter names one)
  const rows: TimelineRow[] = useMemo(() => {
    const held = heldRows(paused).filter((r) => !filter.proxy || r.proxyId === filter.proxy)
    return held.length ? [...filtered, ...held] : filtered
  }, [filtered, paused, filter.proxy])
  const { methods, tools } = useMemo(() => distinct(exchanges), [exchanges])
  const split = useSplit()
  useEffect(() => warmSearch(exchanges), [exchanges]) // the first search is as quick as the next
  const scope = clearScope(filter, proxyName)

  // the detail follows the selection; an exchange the filter hides says so (it does not vanish under the reader)
  const detail = useMemo(() => {
    if (!detailOpen || selected === undefined) return undefined
    const inRows = indexOfKey(rows, selected)
    if (inRows >= 0) return { event: rows[inRows], filteredOut: false }
    const all = indexOfKey(exchanges, selected)
    return all >= 0 ? { event: exchanges[all] as TimelineRow, filteredOut: true } : undefined
  }, [detailOpen, selected, rows, exchanges])

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape' && useTimelineUi.getState().detailOpen && !(e.target as HTMLElement | null)?.closest('dialog, .drawer')) closeDetail()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [closeDetail])

  const table = <ExchangeTable rows={rows} proxyName={proxyName} />
  return (
    <section className="traffic" aria-label="Traffic">
      <Toolbar shown={scope.matches ? filtered.length : exchanges.length} scope={scope} />
      <Filters methods={methods} tools={tools} proxies={proxies} shown={filtered.length} total={exchanges.length} />
      <div className="tl-main">
        {exchanges.length === 0 && rows.length === 0 ? (
          <p className="muted tl-empty">No traffic yet. Point an MCP client at a proxy&apos;s endpoint (Copy client config), or press “Run demo”.</p>
        ) : tab !== 'table' ? (
          <div className="tl-chart-pane">{tab === 'waterfall' ? <Waterfall rows={filtered} /> : <Histogram rows={filtered} />}</div>
        ) : (
          // the table keeps its place (and its focus and scroll) whether the detail is open or not
          <Group
            key={split.split}
            className="tl-split"
            orientation={split.split === 'side' ? 'horizontal' : 'vertical'}
            onLayoutChanged={(layout, meta) => meta.isUserInteraction && detail !== undefined && split.save(layout)}
          >
            <Panel id="table" minSize="15%" defaultSize={detail ? `${split.table}%` : '100%'} className="tl-pane">
              {table}
            </Panel>
            {detail && <Separator className={`tl-separator ${split.split}`} aria-label="Resize the table and the detail" />}
            {detail && (
              <Panel id="detail" minSize="15%" defaultSize={`${100 - split.table}%`} className="tl-pane">
                <DetailPane
                  key={rowKey(detail.event)}
                  event={detail.event}
                  proxyName={proxyName(detail.event.proxyId)}
                  onClose={() => select(selected, false)}
                  filteredOut={detail.filteredOut}
                  onReveal={resetFilter}
                />
              </Panel>
            )}
          </Group>
        )}
      </div>
      <div className="tl-foot small muted">
        <span>↑/↓ select · Enter open · Esc close · / search</span>
        <span className="spacer" />
        {detail && (
          <button type="button" className="small" onClick={split.toggle} aria-label={split.split === 'side' ? 'Detail below the table' : 'Detail beside the table'}>
            {split.split === 'side' ? '⬓ Detail below' : '◨ Detail beside'}
          </button>
        )}
      </div>
    </section>
  )
}

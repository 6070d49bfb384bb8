import { useCallback, useEffect, useMemo, type JSX } from 'react'
import { useProxies } from '../../stores/proxies.js'
import { useTraffic } from '../../stores/traffic.js'
import { applyFilter, distinct, rowKey } from './model.js'
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

function Toolbar(): JSX.Element {
  const { exchanges, paused, held, dropped, pause, resume, clear, error } = useTraffic()
  return (
    <div className="toolbar">
      <h2>Traffic</h2>
      <span className="muted" data-testid="traffic-count">
        {exchanges.length} exchange{exchanges.length === 1 ? '' : 's'}
        {paused && held > 0 ? ` · ${held} held while paused` : ''}
      </span>
      {dropped > 0 && <span className="muted small">({dropped} oldest dropped)</span>}
      <button type="button" onClick={paused ? resume : pause} aria-pressed={paused}>
        {paused ? 'Resume' : 'Pause'}
      </button>
      <button type="button" onClick={() => clear({ label: 'every exchange' })}>
        Clear
      </button>
      {error && (
        <span role="alert" className="error">
          {error}
        </span>
      )}
    </div>
  )
}

/** The live timeline: toolbar, filters, and the filtered exchanges as a table (+ detail), a waterfall or a histogram. */
export function Timeline(): JSX.Element {
  const exchanges = useTraffic((s) => s.exchanges)
  const proxies = useProxies((s) => s.proxies)
  const { filter, tab, setTab, selected, detailOpen, select, closeDetail } = useTimelineUi()
  const names = useMemo(() => new Map(proxies.map((p) => [p.id, p.name])), [proxies])
  const proxyName = useCallback((id: string) => names.get(id) ?? id, [names])
  const rows = useMemo(() => applyFilter(exchanges, filter), [exchanges, filter])
  const { methods, tools } = useMemo(() => distinct(exchanges), [exchanges])
  const detail = detailOpen && selected !== undefined ? exchanges.find((e) => rowKey(e) === selected) : undefined

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape' && useTimelineUi.getState().detailOpen) closeDetail()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [closeDetail])

  return (
    <section className="traffic" aria-label="Traffic">
      <Toolbar />
      <Filters methods={methods} tools={tools} proxies={proxies} shown={rows.length} total={exchanges.length} />
      <div className="tl-tabs" role="tablist" aria-label="Timeline views">
        {TABS.map(([id, label]) => (
          <button key={id} type="button" role="tab" aria-selected={tab === id} className={tab === id ? 'active' : undefined} onClick={() => setTab(id)}>
            {label}
          </button>
        ))}
        <span className="muted small tl-keys">↑/↓ select · Enter open · Esc close · / search</span>
      </div>
      {exchanges.length === 0 ? (
        <p className="muted">No traffic yet. Point an MCP client at a proxy's endpoint, or press “Run demo”.</p>
      ) : tab === 'table' ? (
        <div className={detail ? 'tl-split open' : 'tl-split'}>
          <ExchangeTable rows={rows} proxyName={proxyName} />
          {detail && <DetailPane event={detail} proxyName={proxyName(detail.proxyId)} onClose={() => select(selected, false)} />}
        </div>
      ) : tab === 'waterfall' ? (
        <Waterfall rows={rows} />
      ) : (
        <Histogram rows={rows} />
      )}
    </section>
  )
}

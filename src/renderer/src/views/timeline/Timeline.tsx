import { useCallback, useEffect, useMemo, type JSX } from 'react'
import { Group, Panel, Separator, type Layout } from 'react-resizable-panels'
import { useBreakpoints } from '../../stores/breakpoints.js'
import { useProxies } from '../../stores/proxies.js'
import { useSettings } from '../../stores/settings.js'
import type { TrafficEvent } from '../../../../shared/api.js'
import { useTraffic, type ClearScope } from '../../stores/traffic.js'
import { useVerbs } from '../../stores/verbs.js'
import { usePanels } from '../../stores/panels.js'
import { applyFilter, distinct, heldRows, indexOfRow, isFiltering, rowKey, warmSearch, type TimelineFilter, type TimelineRow } from './model.js'
import { groupBySession, sessionLabel, sessionsOf, shortSession } from './sessions.js'
import { SaveDialog } from './verbs/FileDialogs.js'
import { useTimelineUi, type TimelineTab } from './state.js'
import { Filters } from './Filters.js'
import { ExchangeTable } from './ExchangeTable.js'
import { DetailPane } from './DetailPane.js'
import { Waterfall } from './Waterfall.js'
import { Histogram } from './Histogram.js'
import { CostView } from './CostView.js'
import './timeline.css'
import './verbs/verbs.css'

const TABS: Array<[TimelineTab, string]> = [
  ['table', 'Table'],
  ['waterfall', 'Waterfall'],
  ['histogram', 'Histogram'],
  ['cost', 'Cost'],
]

/** What Clear removes: the rows shown under the filter (and proxy), said in words, or everything. */
function clearScope(filter: TimelineFilter, proxyName: (id: string) => string, marked: (seq: number) => boolean): ClearScope {
  const keeps = (e: TrafficEvent): boolean => marked(e.seq)
  if (!isFiltering(filter)) return { label: 'every exchange', keeps }
  const parts = [
    filter.proxy && `proxy ${proxyName(filter.proxy)}`,
    filter.session && `session ${shortSession(filter.session)}`,
    filter.pinned && 'pinned',
    filter.method && `method ${filter.method}`,
    filter.tool && `tool ${filter.tool}`,
    filter.status && `status ${filter.status}`,
    filter.source && `source ${filter.source}`,
    filter.text.trim() && `“${filter.text.trim()}”`,
  ].filter(Boolean)
  const onlyProxy = filter.proxy && parts.length === 1
  return {
    label: `the exchanges shown (${parts.join(', ')})`,
    matches: (e) => applyFilter([e], filter, marked).length === 1,
    keeps,
    ...(onlyProxy ? { proxyId: filter.proxy } : {}),
  }
}

function Toolbar({ shown, scope }: { shown: number; scope: ClearScope }): JSX.Element {
  const { exchanges, paused, held, dropped, pause, resume, clear, undoClear, cleared, error } = useTraffic()
  const { tab, setTab, filter, setFilter, grouped, setGrouped } = useTimelineUi()
  const { setOpenFile, setSave, openCompose } = usePanels()
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
      <button
        type="button"
        onClick={() => void clear(scope)}
        disabled={shown === 0}
        title={`Clears ${scope.label} (pinned exchanges stay); can be undone for 10 s`}
        aria-label={scope.matches ? `Clear ${shown} shown` : 'Clear all'}
      >
        {scope.matches ? `Clear ${shown} shown` : 'Clear all'}
      </button>
      <button
        type="button"
        className={filter.pinned ? 'toggle on' : 'toggle'}
        aria-pressed={filter.pinned}
        onClick={() => setFilter({ pinned: !filter.pinned })}
        title="Only pinned or noted exchanges"
      >
        ★ Pinned only
      </button>
      <button
        type="button"
        className={grouped ? 'toggle on' : 'toggle'}
        aria-pressed={grouped}
        onClick={() => setGrouped(!grouped)}
        title="The table grouped by MCP session"
      >
        Group by session
      </button>
      <span className="spacer" />
      <button type="button" onClick={() => openCompose()} title="Call any tool, prompt or resource of a proxy from a form">
        ✉ Compose
      </button>
      <button
        type="button"
        onClick={() => setOpenFile(true)}
        title="Open a HAR file, a single-file cassette or a cassette folder into the timeline (read-only)"
      >
        Open…
      </button>
      <button type="button" onClick={() => setSave(true)} disabled={exchanges.length === 0} title="Save exchanges as HAR or as a cassette, secrets redacted">
        Save…
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
      if (table !== (layout.split === 'side' ? layout.side : layout.bottom))
        void update({ timelineLayout: { ...layout, [layout.split]: table } }).catch(() => {})
    },
    toggle: () => void update({ timelineLayout: { ...layout, split: layout.split === 'side' ? 'bottom' : 'side' } }).catch(() => {}),
  }
}

/** The live timeline: toolbar, filters, and the filtered exchanges as a table beside its detail, a waterfall or a histogram. */
export function Timeline(): JSX.Element {
  const exchanges = useTraffic((s) => s.exchanges)
  const paused = useBreakpoints((s) => s.paused)
  const proxies = useProxies((s) => s.proxies)
  const sources = useVerbs((s) => s.sources)
  const marks = useVerbs((s) => s.marks)
  const { filter, tab, selected, detailOpen, select, closeDetail, resetFilter, grouped, picking, setPicking } = useTimelineUi()
  const names = useMemo(
    () => new Map([...proxies.map((p): [string, string] => [p.id, p.name]), ...sources.map((s): [string, string] => [s.id, `file ${s.name}`])]),
    [proxies, sources],
  )
  const proxyName = useCallback((id: string) => names.get(id) ?? id, [names])
  const marked = useCallback((seq: number) => marks[seq] !== undefined, [marks])
  const filtered = useMemo(() => applyFilter(exchanges, filter, marked), [exchanges, filter, marked])
  const sessions = useMemo(() => sessionsOf(exchanges), [exchanges])
  // calls held at a breakpoint are pending rows at the end (of their proxy, when the filter names one)
  const rows: TimelineRow[] = useMemo(() => {
    const held = heldRows(paused).filter((r) => !filter.proxy || r.proxyId === filter.proxy)
    const all = held.length ? [...filtered, ...held] : filtered
    return grouped ? groupBySession(all, sessions) : all
  }, [filtered, paused, filter.proxy, grouped, sessions])
  const { methods, tools } = useMemo(() => distinct(exchanges), [exchanges])
  const split = useSplit()
  useEffect(() => warmSearch(exchanges), [exchanges]) // the first search is as quick as the next
  const scope = clearScope(filter, proxyName, marked)

  // the detail follows the selection; an exchange the filter hides says so (it does not vanish under the reader)
  const detail = useMemo(() => {
    if (!detailOpen || selected === undefined) return undefined
    const inRows = indexOfRow(rows, selected)
    if (inRows >= 0) return { event: rows[inRows], filteredOut: false }
    const all = indexOfRow(exchanges, selected)
    return all >= 0 ? { event: exchanges[all] as TimelineRow, filteredOut: true } : undefined
  }, [detailOpen, selected, rows, exchanges])

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape' && useTimelineUi.getState().detailOpen && !(e.target as HTMLElement | null)?.closest('dialog, .drawer')) closeDetail()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [closeDetail])

  const table = <ExchangeTable rows={rows} proxyName={proxyName} marks={marks} sessions={sessions} />
  const base = picking && detail ? detail.event : undefined
  return (
    <section className="traffic" aria-label="Traffic">
      <Toolbar shown={scope.matches ? filtered.length : exchanges.length} scope={scope} />
      <Filters methods={methods} tools={tools} proxies={proxies} sources={sources} sessions={sessions} shown={filtered.length} total={exchanges.length} />
      {base && (
        <p className="picking-banner small" role="status">
          Click the exchange to compare with <strong>#{base.seq}</strong> {base.method} {base.tool ?? ''} (
          {sessionLabel(sessions.get(base.sessionId ?? ''), base.sessionId)})
          <button type="button" className="small" onClick={() => setPicking(false)}>
            Cancel (Esc)
          </button>
        </p>
      )}
      <div className="tl-main">
        {exchanges.length === 0 && rows.length === 0 ? (
          <p className="muted tl-empty">No traffic yet. Point an MCP client at a proxy&apos;s endpoint (Copy client config), or press “Run demo”.</p>
        ) : tab === 'cost' ? (
          <CostView proxies={proxies} sources={sources} sessions={sessions} />
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
                  nameOf={proxyName}
                  onClose={() => select(selected, false)}
                  filteredOut={detail.filteredOut}
                  onReveal={resetFilter}
                />
              </Panel>
            )}
          </Group>
        )}
      </div>
      <SaveDialog all={exchanges} shown={filtered} selected={detail && !detail.event.pausedId ? detail.event : undefined} />
      <div className="tl-foot small muted">
        <span>↑/↓ select · Enter open · Esc close · / search</span>
        <span className="spacer" />
        {detail && (
          <button
            type="button"
            className="small"
            onClick={split.toggle}
            aria-label={split.split === 'side' ? 'Detail below the table' : 'Detail beside the table'}
          >
            {split.split === 'side' ? '⬓ Detail below' : '◨ Detail beside'}
          </button>
        )}
      </div>
    </section>
  )
}

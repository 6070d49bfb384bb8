import { useEffect, useRef, useState, type JSX } from 'react'
import type { ProxyInfo, SourceInfo } from '../../../../shared/api.js'
import { isFiltering, type TimelineFilter } from './model.js'
import { sessionLabel, type SessionInfo } from './sessions.js'
import { useTimelineUi } from './state.js'

const DEBOUNCE_MS = 150

interface Props {
  methods: string[]
  tools: string[]
  proxies: ProxyInfo[]
  /** files opened into the timeline (a proxy filter value too) */
  sources: SourceInfo[]
  sessions: Map<string, SessionInfo>
  shown: number
  total: number
}

/** Filter bar: method, tool, status, source, proxy, free text (debounced); "N of M"; `/` focuses the text. */
export function Filters({ methods, tools, proxies, sources, sessions, shown, total }: Props): JSX.Element {
  const { filter, setFilter, resetFilter } = useTimelineUi()
  const [text, setText] = useState(filter.text)
  const input = useRef<HTMLInputElement>(null)

  /** the text this box last gave the filter: any other is someone else's (a proxy's ⚠ count sets `has:problem`) */
  const pushed = useRef(filter.text)
  useEffect(() => {
    if (text === filter.text) return
    const t = setTimeout(() => {
      pushed.current = text
      setFilter({ text })
    }, DEBOUNCE_MS)
    return () => clearTimeout(t)
  }, [text, filter.text, setFilter])
  useEffect(() => {
    if (filter.text === pushed.current) return
    pushed.current = filter.text
    setText(filter.text) // the filter changed elsewhere: the box follows it
  }, [filter.text])

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const target = e.target as HTMLElement | null
      const typing = target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || target.isContentEditable)
      if (e.key === '/' && !typing) {
        e.preventDefault()
        input.current?.focus()
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])

  const select = (name: Exclude<keyof TimelineFilter, 'pinned'>, label: string, options: Array<[string, string]>): JSX.Element => (
    <label>
      {label}
      <select aria-label={label} value={filter[name]} onChange={(e) => setFilter({ [name]: e.target.value })}>
        <option value="">all</option>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  )

  return (
    <div className="tl-filters fields" role="search" aria-label="Filter exchanges">
      {select(
        'method',
        'Method',
        methods.map((m) => [m, m]),
      )}
      {select(
        'tool',
        'Tool',
        tools.map((t) => [t, t]),
      )}
      {select('status', 'Status', [
        ['ok', 'ok'],
        ['tool error', 'tool error'],
        ['error', 'JSON-RPC error'],
        ['pending', 'pending'],
      ])}
      {select('source', 'Source', [
        ['upstream', 'upstream'],
        ['cache', 'cache'],
        ['proxy', 'proxy'],
        ['rule', 'rule (override / inject)'],
      ])}
      {select('proxy', 'Proxy', [...proxies.map((p): [string, string] => [p.id, p.name]), ...sources.map((s): [string, string] => [s.id, `${s.name} (file)`])])}
      {select(
        'session',
        'Session',
        [...sessions.values()]
          .filter((info) => !filter.proxy || info.proxyId === filter.proxy)
          .map((info) => [info.id, `${sessionLabel(info, info.id)}${info.app ? ' (app)' : ''} · ${info.count}`]),
      )}

      <label className="wide">
        <span className="visually-hidden">Search</span>
        <input
          ref={input}
          aria-label="Search"
          type="search"
          placeholder="method, tool, key, JSON or has:problem — press /"
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') (e.target as HTMLInputElement).blur()
          }}
        />
      </label>
      <span className="tl-count muted" data-testid="filter-count">
        {shown} of {total}
      </span>
      {(isFiltering(filter) || text) && (
        <button
          type="button"
          aria-label="Reset filters"
          title="Reset filters"
          onClick={() => {
            setText('')
            resetFilter()
          }}
        >
          ✕ Reset
        </button>
      )}
    </div>
  )
}

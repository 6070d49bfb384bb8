import type { JSX } from 'react'
import { useProxies } from '../stores/proxies.js'
import { useTraffic } from '../stores/traffic.js'
import { ProxiesPanel } from './ProxiesPanel.js'
import { BreakpointsPanel } from './BreakpointsPanel.js'

const RECENT = 50

function statusOf(response: unknown): string {
  if (!response) return 'pending'
  const r = response as { error?: { code: number }; result?: { isError?: boolean } }
  if (r.error) return `error ${r.error.code}`
  return r.result?.isError ? 'tool error' : 'ok'
}

/** Until the full timeline lands: the traffic counters, pause / clear, and the newest exchanges. */
function TrafficSummary(): JSX.Element {
  const { exchanges, paused, held, pause, resume, clear, error } = useTraffic()
  const names = new Map(useProxies((s) => s.proxies).map((p) => [p.id, p.name]))
  const recent = exchanges.slice(-RECENT).reverse()
  return (
    <section className="traffic" aria-label="Traffic">
      <div className="toolbar">
        <h2>Traffic</h2>
        <span className="muted" data-testid="traffic-count">
          {exchanges.length} exchange{exchanges.length === 1 ? '' : 's'}
          {paused && held > 0 ? ` · ${held} held while paused` : ''}
        </span>
        <button type="button" onClick={paused ? resume : pause} aria-pressed={paused}>
          {paused ? 'Resume' : 'Pause'}
        </button>
        <button type="button" onClick={() => void clear()}>
          Clear
        </button>
        {error && (
          <span role="alert" className="error">
            {error}
          </span>
        )}
      </div>
      {recent.length === 0 ? (
        <p className="muted">No traffic yet. Point an MCP client at a proxy's endpoint.</p>
      ) : (
        <table className="grid" aria-label="Recent exchanges">
          <thead>
            <tr>
              <th>Time</th>
              <th>Proxy</th>
              <th>Method</th>
              <th>Tool</th>
              <th>Source</th>
              <th>Status</th>
              <th className="num">ms</th>
            </tr>
          </thead>
          <tbody>
            {recent.map((e) => (
              <tr key={`${e.proxyId}:${e.seq}`}>
                <td>{new Date(e.startedAt).toLocaleTimeString()}</td>
                <td>{names.get(e.proxyId) ?? e.proxyId}</td>
                <td>
                  <code>{e.method}</code>
                </td>
                <td>{e.tool ?? ''}</td>
                <td>{e.behavior && e.behavior !== 'relay' ? `rule (${e.behavior})` : e.source}</td>
                <td>{statusOf(e.response)}</td>
                <td className="num">{Math.round(e.durationMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}

export function TimelineView(): JSX.Element {
  return (
    <>
      <ProxiesPanel />
      <BreakpointsPanel />
      <TrafficSummary />
    </>
  )
}

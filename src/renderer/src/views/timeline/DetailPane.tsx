import type { JSX } from 'react'
import type { TrafficEvent } from '../../../../shared/api.js'
import { formatTime, sourceLabel, statusLabel } from './model.js'
import { JsonView } from './JsonView.js'

function messageLabel(message: unknown, i: number): string {
  const m = message as { method?: string; id?: unknown; result?: unknown; error?: unknown }
  if (m.method) return `#${i + 1} ${m.method}${m.id !== undefined ? ' (request)' : ''}`
  return `#${i + 1} reply${m.error ? ' (error)' : ''}`
}

/** One exchange in full: the request, the streamed messages in order, the response. */
export function DetailPane({ event, proxyName, onClose }: { event: TrafficEvent; proxyName: string; onClose: () => void }): JSX.Element {
  return (
    <aside className="tl-detail" aria-label="Exchange detail">
      <header className="tl-detail-head">
        <div>
          <strong>
            <code>{event.method}</code> {event.tool && <span>{event.tool}</span>}
          </strong>
          <div className="muted small">
            {formatTime(event.startedAt)} · {proxyName} · {sourceLabel(event)} · {event.cassette} · {statusLabel(event)}
            {event.response ? ` · ${Math.round(event.durationMs)} ms` : ''} · key <code>{event.key}</code>
          </div>
          {event.flags && event.flags.length > 0 && <div className="flag small">⚑ {event.flags.join(', ')}</div>}
        </div>
        <button type="button" onClick={onClose} aria-label="Close detail" title="Close (Esc)">
          ✕
        </button>
      </header>
      <div className="tl-detail-body">
        <JsonView label="Request" value={event.request} />
        <section aria-label="Streamed messages">
          <h4>
            Streamed messages <span className="muted">({event.stream.length})</span>
          </h4>
          {event.stream.length === 0 && <p className="muted small">none</p>}
          {event.stream.map((m, i) => (
            <JsonView key={i} label={messageLabel(m, i)} value={m} />
          ))}
        </section>
        {event.response ? <JsonView label="Response" value={event.response} /> : <p className="muted">Waiting for the response…</p>}
      </div>
    </aside>
  )
}

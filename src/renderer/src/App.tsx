import type { JSX } from 'react'
import { useConnection } from './stores/connection'
import { VIEWS, useNavigation } from './stores/navigation'
import { TimelineView } from './views/TimelineView'

const CLI_USAGE = 'npx mcp-rewind --url <upstream> --cache ./cache'

function shellLabel(): string {
  const bridge = window.rewind
  return bridge ? `Desktop · ${bridge.platform} · v${bridge.version}` : 'Browser'
}

const STATUS_LABELS = { connecting: 'connecting…', open: 'connected', reconnecting: 'reconnecting…', closed: 'disconnected' } as const

function ConnectionStatus(): JSX.Element {
  const status = useConnection((s) => s.status)
  return (
    <div className={`connection ${status}`} role="status">
      {STATUS_LABELS[status]}
    </div>
  )
}

function Nav(): JSX.Element {
  const view = useNavigation((s) => s.view)
  const select = useNavigation((s) => s.select)
  return (
    <nav className="nav" aria-label="Views">
      <div className="brand">mcp-rewind</div>
      <ul>
        {VIEWS.map((v) => (
          <li key={v.id}>
            <button
              type="button"
              className="nav-item"
              aria-current={v.id === view ? 'page' : undefined}
              onClick={() => select(v.id)}
            >
              {v.label}
            </button>
          </li>
        ))}
      </ul>
      <div className="shell">
        <div>{shellLabel()}</div>
        <ConnectionStatus />
      </div>
    </nav>
  )
}

function Placeholder(): JSX.Element {
  return (
    <section className="notice">
      <h2>This view is under construction</h2>
      <p>Until it lands, record and replay MCP traffic from the Timeline view or the command line:</p>
      <pre>
        <code>{CLI_USAGE}</code>
      </pre>
    </section>
  )
}

function Main(): JSX.Element {
  const view = useNavigation((s) => s.view)
  const current = VIEWS.find((v) => v.id === view) ?? VIEWS[0]
  return (
    <main className="panel">
      <h1>{current.label}</h1>
      <p className="summary">{current.summary}</p>
      {current.id === 'timeline' ? <TimelineView /> : <Placeholder />}
    </main>
  )
}

export function App(): JSX.Element {
  return (
    <div className="layout">
      <Nav />
      <Main />
    </div>
  )
}

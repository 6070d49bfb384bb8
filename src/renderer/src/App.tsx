import type { JSX } from 'react'
import { useConnection } from './stores/connection'
import { VIEWS, useNavigation } from './stores/navigation'
import { TimelineView } from './views/TimelineView'
import { RulesView } from './views/RulesView'
import { CassettesView } from './views/CassettesView'
import { ExportView } from './views/ExportView'
import { SettingsView } from './views/SettingsView'
import type { ViewId } from './stores/navigation'

/** One component per view; each view owns its files under views/. */
const VIEW_COMPONENTS: Record<ViewId, () => JSX.Element> = {
  timeline: TimelineView,
  rules: RulesView,
  cassettes: CassettesView,
  export: ExportView,
  settings: SettingsView,
}

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

function Main(): JSX.Element {
  const view = useNavigation((s) => s.view)
  const current = VIEWS.find((v) => v.id === view) ?? VIEWS[0]
  const View = VIEW_COMPONENTS[current.id]
  return (
    <main className="panel">
      <h1>{current.label}</h1>
      <p className="summary">{current.summary}</p>
      <View />
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

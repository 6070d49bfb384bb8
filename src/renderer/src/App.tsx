import type { JSX } from 'react'
import { VIEWS, useNavigation } from './stores/navigation'

const CLI_USAGE = 'npx mcp-rewind --url <upstream> --cache ./cache'

function shellLabel(): string {
  const bridge = window.rewind
  return bridge ? `Desktop · ${bridge.platform} · v${bridge.version}` : 'Browser'
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
      <div className="shell">{shellLabel()}</div>
    </nav>
  )
}

function Placeholder(): JSX.Element {
  const view = useNavigation((s) => s.view)
  const current = VIEWS.find((v) => v.id === view) ?? VIEWS[0]
  return (
    <main className="panel">
      <h1>{current.label}</h1>
      <p className="summary">{current.summary}</p>
      <section className="notice">
        <h2>The desktop UI is under construction</h2>
        <p>Until it lands, record and replay MCP traffic from the command line:</p>
        <pre>
          <code>{CLI_USAGE}</code>
        </pre>
      </section>
    </main>
  )
}

export function App(): JSX.Element {
  return (
    <div className="layout">
      <Nav />
      <Placeholder />
    </div>
  )
}

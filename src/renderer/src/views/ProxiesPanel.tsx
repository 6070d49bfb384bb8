import { useState, type FormEvent, type JSX } from 'react'
import { MODES, type Mode } from '../../../shared/modes.js'
import { useProxies } from '../stores/proxies.js'
import { startDemo } from '../stores/traffic.js'
import { ClientConfig } from './timeline/ClientConfig.js'
import './timeline/timeline.css'

const MODE_HINTS: Record<Mode, string> = {
  record: 'forward to the upstream, store every answer',
  replay: 'answer from the cassette only; no upstream',
  hybrid: 'cassette first, else the upstream (and store)',
  'proxy-only': 'forward only; no cassette',
}

/** Create a proxy (mode, upstream, cassette folder, port) and list the proxies with their state and exchange counts. */
function NewProxyForm(): JSX.Element {
  const create = useProxies((s) => s.create)
  const [mode, setMode] = useState<Mode>('record')
  const [name, setName] = useState('')
  const [upstreamUrl, setUpstreamUrl] = useState('')
  const [upstreamCommand, setUpstreamCommand] = useState('')
  const [cacheDir, setCacheDir] = useState('')
  const [port, setPort] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()

  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      await create({
        mode,
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(upstreamUrl.trim() && mode !== 'replay' ? { upstreamUrl: upstreamUrl.trim() } : {}),
        ...(upstreamCommand.trim() && mode !== 'replay' ? { upstreamCommand: upstreamCommand.trim() } : {}),
        ...(cacheDir.trim() && mode !== 'proxy-only' ? { cacheDir: cacheDir.trim() } : {}),
        ...(port.trim() ? { port: Number(port) } : {}),
      })
      setName('')
    } catch (e) {
      setError((e as Error).message)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form className="card proxy-form" aria-label="New proxy" onSubmit={(e) => void submit(e)}>
      <h2>New proxy</h2>
      <div className="fields">
        <label>
          Mode
          <select value={mode} onChange={(e) => setMode(e.target.value as Mode)}>
            {MODES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <label className="wide">
          Upstream URL
          <input type="url" placeholder="http://127.0.0.1:3000/mcp" value={upstreamUrl} disabled={mode === 'replay'} onChange={(e) => setUpstreamUrl(e.target.value)} />
        </label>
        <label className="wide">
          or stdio command
          <input placeholder="npx -y @modelcontextprotocol/server-everything" value={upstreamCommand} disabled={mode === 'replay'} onChange={(e) => setUpstreamCommand(e.target.value)} />
        </label>
        <label className="wide">
          Cassette folder
          <input placeholder="./cache" value={cacheDir} disabled={mode === 'proxy-only'} onChange={(e) => setCacheDir(e.target.value)} />
        </label>
        <label>
          Name
          <input placeholder="optional" value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Port
          <input inputMode="numeric" placeholder="any" value={port} onChange={(e) => setPort(e.target.value)} />
        </label>
      </div>
      <p className="hint">{MODE_HINTS[mode]}</p>
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Starting…' : 'Create proxy'}
        </button>
        {error && (
          <span role="alert" className="error">
            {error}
          </span>
        )}
      </div>
    </form>
  )
}

function ProxyList(): JSX.Element {
  const { proxies, loaded, error, start, stop, remove } = useProxies()
  const [actionError, setActionError] = useState<string>()
  const run = (action: () => Promise<void>): void => {
    setActionError(undefined)
    action().catch((e: Error) => setActionError(e.message))
  }
  if (!loaded) return <p className="muted">{error ?? 'Loading proxies…'}</p>
  if (proxies.length === 0) return <p className="muted">No proxy yet: create one above, in front of your MCP server.</p>
  return (
    <>
      {actionError && (
        <p role="alert" className="error">
          {actionError}
        </p>
      )}
      <table className="grid" aria-label="Proxies">
        <thead>
          <tr>
            <th>Name</th>
            <th>Mode</th>
            <th>State</th>
            <th>MCP endpoint</th>
            <th className="num">Exchanges</th>
            <th aria-label="Actions" />
          </tr>
        </thead>
        <tbody>
          {proxies.map((p) => (
            <tr key={p.id} data-proxy-id={p.id}>
              <td>{p.name}</td>
              <td>{p.config.mode}</td>
              <td>
                <span className={`badge ${p.state}`} title={p.error}>
                  {p.state}
                </span>
                {p.error && <div className="error small">{p.error}</div>}
              </td>
              <td>
                {p.url ? <code>{p.url}</code> : <span className="muted">—</span>}
                {p.state === 'running' && p.url && <ClientConfig proxy={p} />}
              </td>
              <td className="num" data-testid="exchanges">
                {p.exchanges}
              </td>
              <td className="row-actions">
                {p.state === 'running' ? (
                  <button type="button" onClick={() => run(() => stop(p.id))}>
                    Stop
                  </button>
                ) : (
                  <button type="button" onClick={() => run(() => start(p.id))}>
                    Start
                  </button>
                )}
                <button type="button" onClick={() => run(() => remove(p.id))}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )
}

/** "Run demo": the bundled demo server behind a recording proxy, and a scripted agent — live traffic within seconds. */
function DemoButton(): JSX.Element {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const run = (): void => {
    setBusy(true)
    setError(undefined)
    startDemo()
      .catch((e: Error) => setError(e.message))
      .finally(() => setBusy(false))
  }
  return (
    <div className="actions demo">
      <button type="button" className="primary" onClick={run} disabled={busy}>
        {busy ? 'Starting demo…' : 'Run demo'}
      </button>
      <span className="hint">a demo MCP server, a recording proxy and a scripted agent: live traffic in seconds</span>
      {error && (
        <span role="alert" className="error">
          {error}
        </span>
      )}
    </div>
  )
}

export function ProxiesPanel(): JSX.Element {
  return (
    <section className="proxies" aria-label="Proxies panel">
      <DemoButton />
      <NewProxyForm />
      <ProxyList />
    </section>
  )
}

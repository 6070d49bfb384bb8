import { useEffect, useRef, useState, type FormEvent, type JSX } from 'react'
import type { CommandInput } from '../../../../shared/api.js'
import { MODES, type Mode } from '../../../../shared/modes.js'
import { PROXY_FIELD_LABELS, proxyConfigIssues, type ProxyField, type ProxyIssues } from '../../../../shared/proxy-fields.js'
import { DEFAULT_UPSTREAM_MAX_TIME_S, DEFAULT_UPSTREAM_TIMEOUT_S, UPSTREAM_MAX_TIME_HINT, UPSTREAM_TIMEOUT_HINT } from '../../../../shared/upstream-limits.js'
import { usePanels } from '../../stores/panels.js'
import { useProxies } from '../../stores/proxies.js'
import { useSettings } from '../../stores/settings.js'

const MODE_HINTS: Record<Mode, string> = {
  record: 'forward to the upstream, store every answer in the cassette',
  replay: 'answer from the cassette only; no upstream',
  hybrid: 'cassette first, else the upstream (and store the answer)',
  'proxy-only': 'forward only; no cassette',
}

interface Draft {
  name: string
  mode: Mode
  source: 'url' | 'command'
  upstreamUrl: string
  upstreamCommand: string
  cacheDir: string
  port: string
  replayTiming: string
  /** replay: a miss is an error naming the closest recorded key */
  strict: boolean
  /** origins separated by spaces or commas */
  allowedOrigins: string
  upstreamTimeoutS: string
  upstreamMaxTimeS: string
  /** a client registered with the upstream's authorization server (empty: dynamic registration) */
  oauthClientId: string
}

const EMPTY: Draft = {
  name: '',
  mode: 'record',
  source: 'url',
  upstreamUrl: '',
  upstreamCommand: '',
  cacheDir: '',
  port: '',
  replayTiming: 'none',
  strict: false,
  allowedOrigins: '',
  upstreamTimeoutS: '',
  upstreamMaxTimeS: '',
  oauthClientId: '',
}

/** A seconds field: empty (the default), a number, or a problem for the issues. */
function seconds(text: string): number | undefined | 'bad' {
  const t = text.trim()
  if (!t) return undefined
  return /^\d+(\.\d+)?$/.test(t) ? Number(t) : 'bad'
}

/** The draft as proxies.create input, plus problems the conversion itself finds (a port that is not a number). */
function toConfig(d: Draft): { config: CommandInput<'proxies.create'>; issues: ProxyIssues } {
  const issues: ProxyIssues = {}
  const port = d.port.trim()
  if (port && !/^\d+$/.test(port)) issues.port = 'a whole number from 0 to 65535 (empty or 0: any free port)'
  const live = d.mode !== 'replay'
  const origins = d.allowedOrigins.split(/[\s,]+/).filter(Boolean)
  const limits: Partial<Record<'upstreamTimeoutS' | 'upstreamMaxTimeS', number>> = {}
  for (const key of ['upstreamTimeoutS', 'upstreamMaxTimeS'] as const) {
    const value = live ? seconds(d[key]) : undefined
    if (value === 'bad') issues[key] = 'a number of seconds (0: no limit; empty: the default)'
    else if (value !== undefined) limits[key] = value
  }
  const config: CommandInput<'proxies.create'> = {
    mode: d.mode,
    ...(d.name.trim() ? { name: d.name.trim() } : {}),
    ...(live && d.source === 'url' && d.upstreamUrl.trim() ? { upstreamUrl: d.upstreamUrl.trim() } : {}),
    ...(live && d.source === 'command' && d.upstreamCommand.trim() ? { upstreamCommand: d.upstreamCommand.trim() } : {}),
    ...(d.mode !== 'proxy-only' && d.cacheDir.trim() ? { cacheDir: d.cacheDir.trim() } : {}),
    ...(port && !issues.port ? { port: Number(port) } : {}),
    ...((d.mode === 'replay' || d.mode === 'hybrid') && d.replayTiming.trim() && d.replayTiming.trim() !== 'none'
      ? { replayTiming: d.replayTiming.trim() }
      : {}),
    ...(d.mode === 'replay' && d.strict ? { strict: true } : {}),
    ...(origins.length ? { allowedOrigins: origins } : {}),
    ...limits,
    ...(live && d.source === 'url' && d.oauthClientId.trim() ? { oauth: { clientId: d.oauthClientId.trim() } } : {}),
  }
  const found = { ...proxyConfigIssues(config), ...issues }
  // the form has one source field at a time: a missing upstream is reported under the one shown
  if (found.upstreamUrl && d.source === 'command') {
    found.upstreamCommand = found.upstreamUrl.replace('the upstream server’s URL, or a stdio command', 'the command that starts the server')
    delete found.upstreamUrl
  }
  return { config, issues: found }
}

/** The engine's message ("Upstream URL …: …") to the field it names, so it shows beside that field. */
function fieldOf(message: string): ProxyField | undefined {
  const entries = Object.entries(PROXY_FIELD_LABELS) as Array<[ProxyField, string]>
  return entries.find(([, label]) => message.startsWith(`${label}:`) || message.startsWith(`${label} `))?.[0]
}

/**
 * "New proxy" in a modal dialog (the native <dialog>: focus stays inside, Esc closes). Each field says what is wrong
 * beside it as soon as it was left (or on Create); the engine's own refusal lands beside the field it names.
 */
export function NewProxyDialog(): JSX.Element {
  const open = usePanels((s) => s.newProxy)
  const setOpen = usePanels((s) => s.setNewProxy)
  const create = useProxies((s) => s.create)
  const defaultDir = useSettings((s) => s.settings?.defaultCacheDir)
  const dialog = useRef<HTMLDialogElement>(null)
  const [draft, setDraft] = useState<Draft>(EMPTY)
  const [touched, setTouched] = useState<Partial<Record<ProxyField, boolean>>>({})
  const [submitted, setSubmitted] = useState(false)
  const [busy, setBusy] = useState(false)
  const [engineError, setEngineError] = useState<{ field?: ProxyField; message: string }>()

  useEffect(() => {
    const el = dialog.current
    if (!el) return
    if (open && !el.open) {
      setDraft(EMPTY)
      setTouched({})
      setSubmitted(false)
      setEngineError(undefined)
      el.showModal()
    } else if (!open && el.open) el.close()
  }, [open])

  const { config, issues } = toConfig(draft)
  const shown = (field: ProxyField): string | undefined => {
    if (engineError?.field === field) return engineError.message.replace(/^[^:]*?: /, '')
    return submitted || touched[field] ? issues[field] : undefined
  }
  const set = (patch: Partial<Draft>): void => {
    setDraft((d) => ({ ...d, ...patch }))
    setEngineError(undefined)
  }
  const leave = (field: ProxyField) => () => setTouched((t) => ({ ...t, [field]: true }))

  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault()
    setSubmitted(true)
    if (Object.keys(issues).length > 0) {
      dialog.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus()
      return
    }
    setBusy(true)
    setEngineError(undefined)
    try {
      await create(config) // a proxy that cannot start is created all the same: listed as failed, with the reason
      setOpen(false)
    } catch (e) {
      const message = (e as Error).message
      setEngineError({ field: fieldOf(message), message })
    } finally {
      setBusy(false)
    }
  }

  const field = (id: ProxyField, control: JSX.Element, hint?: string): JSX.Element => {
    const problem = shown(id)
    return (
      <>
        <label htmlFor={`np-${id}`}>{PROXY_FIELD_LABELS[id]}</label>
        <div className="control">
          {control}
          {problem ? (
            <p className="field-error" id={`np-${id}-error`} role="alert">
              {problem}
            </p>
          ) : hint ? (
            <p className="field-hint" id={`np-${id}-hint`}>
              {hint}
            </p>
          ) : null}
        </div>
      </>
    )
  }
  const aria = (id: ProxyField) => ({
    id: `np-${id}`,
    'aria-invalid': shown(id) ? true : undefined,
    'aria-describedby': shown(id) ? `np-${id}-error` : `np-${id}-hint`,
    onBlur: leave(id),
  })
  const live = draft.mode !== 'replay'

  return (
    <dialog ref={dialog} className="modal" aria-labelledby="np-title" onClose={() => setOpen(false)}>
      <form aria-label="New proxy" noValidate onSubmit={(e) => void submit(e)}>
        <h2 id="np-title">New proxy</h2>
        <div className="form-grid">
          {field(
            'mode',
            <select {...aria('mode')} value={draft.mode} onChange={(e) => set({ mode: e.target.value as Mode })}>
              {MODES.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>,
            MODE_HINTS[draft.mode],
          )}
          {live && (
            <>
              <span className="label" id="np-source-label">
                Upstream
              </span>
              <div className="control">
                <div className="segmented" role="radiogroup" aria-labelledby="np-source-label">
                  <label>
                    <input type="radio" name="np-source" checked={draft.source === 'url'} onChange={() => set({ source: 'url' })} />
                    URL (HTTP)
                  </label>
                  <label>
                    <input type="radio" name="np-source" checked={draft.source === 'command'} onChange={() => set({ source: 'command' })} />
                    stdio command
                  </label>
                </div>
              </div>
              {draft.source === 'url'
                ? field(
                    'upstreamUrl',
                    <input
                      {...aria('upstreamUrl')}
                      type="url"
                      placeholder="http://127.0.0.1:3000/mcp"
                      value={draft.upstreamUrl}
                      spellCheck={false}
                      onChange={(e) => set({ upstreamUrl: e.target.value })}
                    />,
                    'Streamable HTTP or legacy HTTP+SSE (detected); checked with an MCP initialize before the proxy runs',
                  )
                : field(
                    'upstreamCommand',
                    <input
                      {...aria('upstreamCommand')}
                      placeholder="npx -y @modelcontextprotocol/server-everything"
                      value={draft.upstreamCommand}
                      spellCheck={false}
                      onChange={(e) => set({ upstreamCommand: e.target.value })}
                    />,
                    'started per client session; words split as in sh, no shell',
                  )}
            </>
          )}
          {live &&
            field(
              'upstreamTimeoutS',
              <input
                {...aria('upstreamTimeoutS')}
                inputMode="decimal"
                placeholder={String(DEFAULT_UPSTREAM_TIMEOUT_S)}
                value={draft.upstreamTimeoutS}
                onChange={(e) => set({ upstreamTimeoutS: e.target.value })}
              />,
              UPSTREAM_TIMEOUT_HINT,
            )}
          {live &&
            field(
              'upstreamMaxTimeS',
              <input
                {...aria('upstreamMaxTimeS')}
                inputMode="decimal"
                placeholder={String(DEFAULT_UPSTREAM_MAX_TIME_S)}
                value={draft.upstreamMaxTimeS}
                onChange={(e) => set({ upstreamMaxTimeS: e.target.value })}
              />,
              UPSTREAM_MAX_TIME_HINT,
            )}
          {draft.mode !== 'proxy-only' &&
            field(
              'cacheDir',
              <input
                {...aria('cacheDir')}
                placeholder={defaultDir ?? './cache'}
                value={draft.cacheDir}
                spellCheck={false}
                onChange={(e) => set({ cacheDir: e.target.value })}
              />,
              draft.mode === 'replay' ? 'must exist: replay never creates a cassette' : `empty: ${defaultDir ?? 'the default folder (Settings)'}`,
            )}
          {(draft.mode === 'replay' || draft.mode === 'hybrid') &&
            field(
              'replayTiming',
              <>
                <input
                  {...aria('replayTiming')}
                  list="np-replay-timings"
                  placeholder="none"
                  value={draft.replayTiming}
                  spellCheck={false}
                  onChange={(e) => set({ replayTiming: e.target.value })}
                />
                <datalist id="np-replay-timings">
                  {['none', 'recorded', 'x2', 'x0.5', 'x10'].map((t) => (
                    <option key={t} value={t} />
                  ))}
                </datalist>
              </>,
              'none: at once; recorded: the recorded latency and spacing of streamed messages; x2 / x0.5: twice / half as fast',
            )}
          {draft.mode === 'replay' &&
            field(
              'strict',
              <input {...aria('strict')} type="checkbox" checked={draft.strict} onChange={(e) => set({ strict: e.target.checked })} />,
              'a miss is an error naming the closest recorded key and what differs (for tests in CI)',
            )}
          {field(
            'name',
            <input
              {...aria('name')}
              placeholder="optional: made from the mode and upstream"
              value={draft.name}
              onChange={(e) => set({ name: e.target.value })}
            />,
          )}
          {field(
            'allowedOrigins',
            <input
              {...aria('allowedOrigins')}
              placeholder="none: only agents and SDK clients (no Origin)"
              value={draft.allowedOrigins}
              spellCheck={false}
              onChange={(e) => set({ allowedOrigins: e.target.value })}
            />,
            'browser pages that may call this proxy, e.g. http://localhost:6274 (separate several with spaces); any other page is refused',
          )}
          {draft.mode !== 'replay' &&
            draft.source === 'url' &&
            field(
              'oauth',
              <input
                {...aria('oauth')}
                placeholder="optional: registered automatically"
                value={draft.oauthClientId}
                spellCheck={false}
                onChange={(e) => set({ oauthClientId: e.target.value })}
              />,
              'for an upstream that asks for an OAuth sign-in: the proxy signs in as this client (else it registers itself); the agent needs no sign-in',
            )}
          {field(
            'port',
            <input {...aria('port')} inputMode="numeric" placeholder="any free port" value={draft.port} onChange={(e) => set({ port: e.target.value })} />,
          )}
        </div>
        {engineError && !engineError.field && (
          <p role="alert" className="error">
            {engineError.message}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={() => setOpen(false)}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Starting…' : 'Create proxy'}
          </button>
        </div>
      </form>
    </dialog>
  )
}

import { useEffect, useRef, useState, type JSX, type KeyboardEvent, type PointerEvent, type RefObject } from 'react';
import type { ProxyInfo, SourceInfo } from '../../../../shared/api.js';
import { Name } from '../../components/Name.js';
import { MODE_TRAITS } from '../../../../shared/modes.js';
import { useBreakpoints } from '../../stores/breakpoints.js';
import { usePanels } from '../../stores/panels.js';
import { useProxies } from '../../stores/proxies.js';
import { useSettings } from '../../stores/settings.js';
import { startDemo } from '../../stores/traffic.js';
import { closeSource, useVerbs } from '../../stores/verbs.js';
import { ClientConfig } from './ClientConfig.js';
import { useTimelineUi } from './state.js';

/** The proxy's problem count; a click shows its exchanges with problems (`has:problem` in the search box). */
function ProblemCount({ proxy }: { proxy: ProxyInfo }): JSX.Element | null {
  const counts = proxy.problems;
  const total = (counts?.error ?? 0) + (counts?.warning ?? 0) + (counts?.info ?? 0);
  if (!counts || total === 0) return null;
  const worst = counts.error ? 'error' : counts.warning ? 'warning' : 'info';
  return (
    <button
      type="button"
      className={`link proxy-problems pb-${worst}`}
      data-testid="proxy-problems"
      title={`${counts.error} errors, ${counts.warning} warnings, ${counts.info} notes: show them`}
      onClick={() => useTimelineUi.getState().setFilter({ proxy: proxy.id, text: 'has:problem' })}
    >
      ⚠ {total}
    </button>
  );
}

const STATE_LABELS: Record<string, string> = {
  starting: 'starting…',
  running: 'running',
  'sign-in-required': 'sign-in required',
  stopped: 'stopped',
  failed: 'failed',
};

/** What a proxy stands in front of: the upstream URL or command, or (replay) its cassette folder. */
function target(p: ProxyInfo): string {
  if (!MODE_TRAITS[p.config.mode].forwards) return p.config.cacheDir ?? '';
  return p.config.upstreamUrl ?? (p.config.upstreamCommand ? `$ ${p.config.upstreamCommand}` : '');
}

function stateLabel(p: ProxyInfo): string {
  // a wrapped server: its MCP client starts it, and its mcp-rewind attaches to the app
  if (p.attached)
    return p.attached.processes
      ? `attached${p.attached.processes > 1 ? ` ×${p.attached.processes}` : ''}`
      : 'not started';
  if (p.state === 'running' && p.upstreamDown) return 'running · upstream unreachable';
  if (p.state !== 'failed') return STATE_LABELS[p.state];
  return p.failure === 'upstream'
    ? 'upstream unreachable'
    : p.failure === 'cassette'
      ? 'cassette missing'
      : p.failure === 'port'
        ? 'port in use'
        : 'failed';
}

function ProxyRow({
  proxy,
  run,
  fresh,
}: {
  proxy: ProxyInfo;
  run: (action: () => Promise<void>) => void;
  fresh?: boolean;
}): JSX.Element {
  const { start, stop, remove } = useProxies.getState();
  const [confirming, setConfirming] = useState(false);
  const p = proxy;
  return (
    <li
      className={`proxy-row state-${p.state}${fresh ? ' fresh' : ''}`}
      data-proxy-id={p.id}
      aria-label={`Proxy ${p.name}`}
    >
      <span className={`badge ${p.state}${p.upstreamDown ? ' degraded' : ''}`} title={p.error ?? p.upstreamDown}>
        {stateLabel(p)}
      </span>
      <strong className="proxy-name" title={p.name}>
        <Name value={p.name} />
      </strong>
      <span className="chip">{p.config.mode}</span>
      <span className="proxy-target muted" title={target(p)}>
        {target(p)}
      </span>
      {p.url ? <code className="proxy-endpoint">{p.url}</code> : <span className="proxy-endpoint muted">—</span>}
      {/* one grid cell: a proxy with problems keeps its row on one line */}
      <span className="proxy-counts">
        <ProblemCount proxy={p} />
        <span className="proxy-count muted" data-testid="exchanges" title="exchanges">
          {p.exchanges}
        </span>
      </span>
      <span className="row-actions">
        {p.state === 'running' && !p.attached && (
          <button
            type="button"
            onClick={() => usePanels.getState().openCompose(p.id)}
            aria-label={`Compose a call through ${p.name}`}
            title="Call any tool, prompt or resource through this proxy"
          >
            Compose
          </button>
        )}
        {p.state === 'running' && p.url && <ClientConfig proxy={p} />}
        <SignInActions proxy={p} run={run} />
        {p.attached ? (
          <span className="muted small" title="started by its MCP client (wrapped in Intercept)">
            {p.attached.clients.join(', ') || 'intercepted'}
          </span>
        ) : p.state === 'running' || p.state === 'starting' || p.state === 'sign-in-required' ? (
          <button type="button" disabled={p.state === 'starting'} onClick={() => run(() => stop(p.id))}>
            Stop
          </button>
        ) : (
          <button type="button" onClick={() => run(() => start(p.id))}>
            {p.state === 'failed' ? 'Retry' : 'Start'}
          </button>
        )}
        {confirming ? (
          <>
            <button type="button" className="danger" onClick={() => run(() => remove(p.id))}>
              Remove {p.name}
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep
            </button>
          </>
        ) : (
          <button type="button" onClick={() => setConfirming(true)} aria-label={`Remove ${p.name}…`}>
            Remove…
          </button>
        )}
      </span>
      {p.state === 'failed' && p.error && (
        <p className="proxy-error error small" role="alert">
          {p.error}
        </p>
      )}
      {p.state === 'sign-in-required' && (
        <p className="proxy-error warning small" role="alert">
          {p.signIn?.state === 'failed'
            ? `Sign-in failed at ${p.signIn.step}: ${p.signIn.error}`
            : `The upstream needs a sign-in${p.signIn?.error ? ` (${p.signIn.error})` : ''}: calls wait for it`}
        </p>
      )}
      {p.state === 'running' && p.upstreamDown && (
        <p className="proxy-error warning small" role="alert">
          {p.upstreamDown}: calls are answered with an error until it is back (Stop and Start to check it now)
        </p>
      )}
    </li>
  );
}

/** Sign in / signed in as … / Sign out, for a proxy that is the OAuth client of its upstream. */
function SignInActions({
  proxy: p,
  run,
}: {
  proxy: ProxyInfo;
  run: (action: () => Promise<void>) => void;
}): JSX.Element | null {
  const { signIn, signOut } = useProxies.getState();
  if (p.state === 'sign-in-required')
    return (
      <button
        type="button"
        className="primary"
        onClick={() => run(() => signIn(p.id))}
        aria-label={`Sign in to the upstream of ${p.name}`}
      >
        Sign in
      </button>
    );
  if (p.state === 'running' && p.signIn?.state === 'client')
    return (
      <span
        className="muted small"
        data-testid="signed-in"
        title="the client sends its own Authorization; the proxy passes it through"
      >
        client's own sign-in
      </span>
    );
  if (p.state !== 'running' || p.signIn?.state !== 'signed-in') return null;
  return (
    <>
      <span className="muted small" data-testid="signed-in">
        {p.signIn.user ? `signed in as ${p.signIn.user}` : 'signed in'}
      </span>
      <button
        type="button"
        onClick={() => run(() => signOut(p.id))}
        aria-label={`Sign out of the upstream of ${p.name}`}
      >
        Sign out
      </button>
    </>
  );
}

/**
 * The proxies as one compact bar above the traffic: a line per proxy (state, name, mode, what it stands in front of,
 * endpoint, exchanges, client config, start/stop/retry), and the workspace's actions: New proxy (a dialog), Run demo,
 * Breakpoints (a drawer). It never grows past a few lines: more proxies scroll inside it.
 */
const KIND_LABELS = { har: 'HAR', folder: 'cassette folder', file: 'single-file cassette' } as const;

/** A file opened into the timeline: read-only, its exchange count, what was skipped, Close. */
function SourceRow({ source, run }: { source: SourceInfo; run: (action: () => Promise<void>) => void }): JSX.Element {
  return (
    <li className="proxy-row source-row" aria-label={`File ${source.name}`}>
      <span className="badge stopped">read-only</span>
      <strong className="proxy-name" title={source.name}>
        <Name value={source.name} />
      </strong>
      <span className="chip">{KIND_LABELS[source.kind]}</span>
      <span className="proxy-target muted" title={source.path}>
        {source.path}
      </span>
      <span className="proxy-endpoint muted" title={source.skipped.join('\n')}>
        {source.skipped.length ? `${source.skipped.length} skipped` : ''}
      </span>
      <span className="proxy-count muted" title="exchanges">
        {source.exchanges}
      </span>
      <span className="row-actions">
        <button type="button" onClick={() => run(() => closeSource(source.id))} aria-label={`Close ${source.name}`}>
          Close
        </button>
      </span>
    </li>
  );
}

/** "9 proxies, 1 failed · 2 files": the bar's line when collapsed */
export function proxiesSummary(proxies: ProxyInfo[], sources: SourceInfo[]): string {
  const failed = proxies.filter((p) => p.state === 'failed').length;
  const running = proxies.filter((p) => p.state === 'running').length;
  const signIn = proxies.filter((p) => p.state === 'sign-in-required').length;
  const parts = [
    `${proxies.length} prox${proxies.length === 1 ? 'y' : 'ies'}`,
    ...(running && running < proxies.length ? [`${running} running`] : []),
    ...(failed ? [`${failed} failed`] : []),
    ...(signIn ? [`${signIn} to sign in`] : []),
  ];
  return `${parts.join(', ')}${sources.length ? ` · ${sources.length} file${sources.length === 1 ? '' : 's'} open` : ''}`;
}

/** failed proxies and those waiting for a sign-in first (they need a look), then in the order they were made */
const needsLook = (p: ProxyInfo): boolean => p.state === 'failed' || p.state === 'sign-in-required';
const failedFirst = (proxies: ProxyInfo[]): ProxyInfo[] => [
  ...proxies.filter(needsLook),
  ...proxies.filter((p) => !needsLook(p)),
];

const MIN_HEIGHT = 40;
const MAX_HEIGHT = 600;

/** The bar's height (a drag of its lower edge, or ↑/↓ on it) and whether it is collapsed: kept in the settings. */
function useBarSize(): {
  height: number;
  collapsed: boolean;
  set(patch: { height?: number; collapsed?: boolean }): void;
} {
  const bar = useSettings((s) => s.settings?.proxiesBar) ?? { height: 120, collapsed: false };
  const update = useSettings((s) => s.update);
  return { ...bar, set: (patch) => void update({ proxiesBar: { ...bar, ...patch } }).catch(() => {}) };
}

/** The lower edge of the bar: drag it (or ↑/↓ when focused) to give the proxies more or less room. */
function BarResizer({
  height,
  onResize,
}: {
  height: number;
  onResize(height: number, done: boolean): void;
}): JSX.Element {
  const onPointerDown = (event: PointerEvent<HTMLDivElement>): void => {
    event.preventDefault();
    const el = event.currentTarget;
    const y0 = event.clientY;
    el.setPointerCapture(event.pointerId);
    const at = (e: globalThis.PointerEvent): number =>
      Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, height + e.clientY - y0));
    const move = (e: globalThis.PointerEvent): void => onResize(at(e), false);
    const up = (e: globalThis.PointerEvent): void => {
      el.removeEventListener('pointermove', move);
      el.removeEventListener('pointerup', up);
      onResize(at(e), true);
    };
    el.addEventListener('pointermove', move);
    el.addEventListener('pointerup', up);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    const step = event.key === 'ArrowDown' ? 24 : event.key === 'ArrowUp' ? -24 : 0;
    if (!step) return;
    event.preventDefault();
    onResize(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, height + step)), true);
  };
  return (
    <div
      className="proxies-resizer"
      role="separator"
      aria-orientation="horizontal"
      aria-label="Resize the proxies bar"
      aria-valuenow={Math.round(height)}
      aria-valuemin={MIN_HEIGHT}
      aria-valuemax={MAX_HEIGHT}
      tabIndex={0}
      onPointerDown={onPointerDown}
      onKeyDown={onKeyDown}
    />
  );
}

/** Scrolls a proxy that just appeared (New proxy) or just failed into view in the bar, and marks it a while. */
function useRevealNew(proxies: ProxyInfo[], list: RefObject<HTMLUListElement | null>): string | undefined {
  const seen = useRef<Set<string> | undefined>(undefined);
  const [fresh, setFresh] = useState<string>();
  useEffect(() => {
    // a proxy is new to the bar when first listed, and again when it fails
    const ids = new Set(proxies.map((p) => `${p.id}${p.state === 'failed' ? ' failed' : ''}`));
    const added = seen.current
      ? proxies.find((p) => !seen.current!.has(`${p.id}${p.state === 'failed' ? ' failed' : ''}`))
      : undefined;
    seen.current = ids;
    if (!added) return;
    setFresh(added.id);
    requestAnimationFrame(() =>
      list.current?.querySelector(`[data-proxy-id="${CSS.escape(added.id)}"]`)?.scrollIntoView({ block: 'nearest' }),
    );
    const t = setTimeout(() => setFresh(undefined), 3000);
    return () => clearTimeout(t);
  }, [proxies, list]);
  return fresh;
}

export function ProxiesBar(): JSX.Element {
  const { proxies, loaded, error } = useProxies();
  const sources = useVerbs((s) => s.sources);
  const paused = useBreakpoints((s) => s.paused.length);
  const ruleCount = useBreakpoints((s) => Object.values(s.rules).reduce((n, list) => n + list.length, 0));
  const { setNewProxy, openBreakpoints } = usePanels.getState();
  const [actionError, setActionError] = useState<string>();
  const [demoBusy, setDemoBusy] = useState(false);
  const size = useBarSize();
  const [dragged, setDragged] = useState<number>();
  const list = useRef<HTMLUListElement>(null);
  const fresh = useRevealNew(proxies, list);
  const run = (action: () => Promise<void>): void => {
    setActionError(undefined);
    action().catch((e: Error) => setActionError(e.message));
  };
  const demo = (): void => {
    setDemoBusy(true);
    run(() => startDemo().finally(() => setDemoBusy(false)));
  };
  const height = dragged ?? size.height;
  const any = proxies.length > 0 || sources.length > 0;
  return (
    <section className={`proxies-bar${size.collapsed ? ' collapsed' : ''}`} aria-label="Proxies">
      <div className="proxies-head">
        <h2>
          <button
            type="button"
            className="bar-toggle"
            aria-expanded={!size.collapsed}
            aria-controls={!size.collapsed && loaded && any ? 'proxy-list' : undefined}
            onClick={() => size.set({ collapsed: !size.collapsed })}
            title={size.collapsed ? 'Show the proxies' : 'Collapse the proxies to one line'}
          >
            <span aria-hidden="true">{size.collapsed ? '▸' : '▾'}</span> Proxies
          </button>
        </h2>
        {size.collapsed && loaded && any && (
          <span className="muted small" data-testid="proxies-summary">
            {proxiesSummary(proxies, sources)}
          </span>
        )}
        <button type="button" className="primary" onClick={() => setNewProxy(true)}>
          New proxy
        </button>
        <button
          type="button"
          onClick={demo}
          disabled={demoBusy}
          title="a demo MCP server, a recording proxy and a scripted agent: live traffic in seconds"
        >
          {demoBusy ? 'Starting demo…' : 'Run demo'}
        </button>
        <button type="button" onClick={() => openBreakpoints()} aria-haspopup="dialog">
          Breakpoints{ruleCount > 0 ? ` (${ruleCount})` : ''}
          {paused > 0 && <span className="bp-count">{paused} paused</span>}
        </button>
        {(actionError ?? error) && (
          <span role="alert" className="error small">
            {actionError ?? error}
          </span>
        )}
      </div>
      {size.collapsed ? null : !loaded ? (
        <p className="muted small">{error ?? 'Loading proxies…'}</p>
      ) : !any ? (
        <p className="muted small proxies-empty">
          No proxy yet: New proxy puts one in front of your MCP server; Run demo shows one at work.
        </p>
      ) : (
        <>
          <ul className="proxy-list" id="proxy-list" aria-label="Proxy list" ref={list} style={{ maxHeight: height }}>
            {failedFirst(proxies).map((p) => (
              <ProxyRow key={p.id} proxy={p} run={run} fresh={p.id === fresh} />
            ))}
            {sources.map((s) => (
              <SourceRow key={s.id} source={s} run={run} />
            ))}
          </ul>
          <BarResizer
            height={height}
            onResize={(h, done) => {
              setDragged(done ? undefined : h);
              if (done) size.set({ height: h });
            }}
          />
        </>
      )}
    </section>
  );
}

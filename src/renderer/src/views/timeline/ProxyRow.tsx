import { useState, type JSX } from 'react';
import type { ProxyInfo } from '../../../../shared/api.js';
import { Name } from '../../components/Name.js';
import { MODE_TRAITS } from '../../../../shared/modes.js';
import { usePanels } from '../../stores/panels.js';
import { useProxies } from '../../stores/proxies.js';
import { ClientConfig } from './ClientConfig.js';
import { useTimelineUi } from '../../stores/timeline-ui.js';

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

export function ProxyRow({
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

import { useEffect, useRef, useState, type JSX, type RefObject } from 'react';
import type { ProxyInfo, SourceInfo } from '../../../../shared/api.js';
import { Name } from '../../components/Name.js';
import { useBreakpoints } from '../../stores/breakpoints.js';
import { usePanels } from '../../stores/panels.js';
import { useProxies } from '../../stores/proxies.js';
import { startDemo } from '../../stores/traffic.js';
import { closeSource, useVerbs } from '../../stores/verbs.js';
import { ProxyRow } from './ProxyRow.js';
import { BarResizer, useBarSize, useShownHeight } from './ProxiesBarResizer.js';

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

/**
 * The proxies as one compact bar above the traffic: a line per proxy (state, name, mode, what it stands in front of,
 * endpoint, exchanges, client config, start/stop/retry), and the workspace's actions: New proxy (a dialog), Run demo,
 * Breakpoints (a drawer). It grows with its rows up to a limit (a third of the window, at most 8 lines), then its
 * rows scroll; a drag of its lower edge sets its height instead, kept in the settings.
 */
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
  const any = proxies.length > 0 || sources.length > 0;
  const shown = useShownHeight(list, loaded && any && !size.collapsed);
  // never dragged: the list fits its rows up to the stylesheet's limit, then scrolls; dragged: that height, kept
  const limit = dragged ?? size.height;
  const height = limit ?? shown;
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
          <ul
            className="proxy-list"
            id="proxy-list"
            aria-label="Proxy list"
            ref={list}
            style={limit === null ? undefined : { maxHeight: limit }}
          >
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
            onFit={() => {
              setDragged(undefined);
              size.set({ height: null });
            }}
          />
        </>
      )}
    </section>
  );
}

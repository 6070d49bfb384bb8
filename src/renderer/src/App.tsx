import { useEffect, useRef, useState, type JSX, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { useConnection } from './stores/connection';
import { useSettings } from './stores/settings';
import { VIEWS, followHash, useNavigation } from './stores/navigation';
import { TimelineView } from './views/TimelineView';
import { RulesView } from './views/RulesView';
import { CassettesView } from './views/CassettesView';
import { ExportView } from './views/ExportView';
import { SettingsView } from './views/SettingsView';
import { InterceptView } from './views/InterceptView';
import { BreakpointBanner } from './views/breakpoints/BreakpointBanner';
import { QuestionDialog } from './views/timeline/verbs/QuestionDialog';
import type { ViewId } from './stores/navigation';
import './workspace.css';

/** One component per view; each view owns its files under views/. */
const VIEW_COMPONENTS: Record<ViewId, () => JSX.Element> = {
  timeline: TimelineView,
  rules: RulesView,
  cassettes: CassettesView,
  export: ExportView,
  settings: SettingsView,
  intercept: InterceptView,
};

function shellLabel(): string {
  const bridge = window.rewind;
  return bridge ? `Desktop · ${bridge.platform} · v${bridge.version}` : 'Browser';
}

const STATUS_LABELS: Record<string, string> = {
  connecting: 'connecting…',
  open: 'connected',
  reconnecting: 'reconnecting…',
  closed: 'disconnected',
  unauthorized: 'not signed in',
};

/** The connection as the client reports it (any status it has a label for is shown as the client words it). */
function ConnectionStatus(): JSX.Element {
  const status = useConnection((s) => s.status);
  return (
    <div className={`connection ${status}`} role="status">
      {STATUS_LABELS[status] ?? status}
    </div>
  );
}

/** Ctrl+1…6 (Cmd on macOS) show the views in nav order; the digit keys by position, whatever the layout. */
function shortcutView(event: KeyboardEvent): ViewId | undefined {
  if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return undefined;
  const digit = /^Digit([1-9])$/.exec(event.code)?.[1] ?? (/^[1-9]$/.test(event.key) ? event.key : undefined);
  return digit ? VIEWS[Number(digit) - 1]?.id : undefined;
}

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
const MOD = isMac ? '⌘' : 'Ctrl+';

/** Keyboard navigation: view shortcuts anywhere, and the view named by the URL hash (back/forward). */
function useKeyboardNavigation(): void {
  useEffect(() => followHash(), []);
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      const view = shortcutView(event);
      if (!view) return;
      event.preventDefault();
      useNavigation.getState().select(view);
      // focus the new view's title, so the next Tab starts in that view (the old focus may be gone with the old view)
      requestAnimationFrame(() => document.getElementById('view-title')?.focus({ preventScroll: true }));
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

/**
 * The views as a list with roving focus: one Tab stop (the current view), arrow keys / Home / End move between the
 * items, Enter or Space shows the focused one.
 */
function Nav(): JSX.Element {
  const view = useNavigation((s) => s.view);
  const select = useNavigation((s) => s.select);
  const items = useRef<Array<HTMLButtonElement | null>>([]);
  const [focused, setFocused] = useState<number | null>(null);
  const current = Math.max(
    0,
    VIEWS.findIndex((v) => v.id === view),
  );
  const tabStop = focused ?? current;

  const onKeyDown = (event: ReactKeyboardEvent<HTMLUListElement>): void => {
    const from = focused ?? current;
    const last = VIEWS.length - 1;
    const to =
      event.key === 'ArrowDown' || event.key === 'ArrowRight'
        ? (from + 1) % VIEWS.length
        : event.key === 'ArrowUp' || event.key === 'ArrowLeft'
          ? (from + last) % VIEWS.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : undefined;
    if (to === undefined) return;
    event.preventDefault();
    setFocused(to);
    items.current[to]?.focus();
  };

  return (
    <nav className="nav" aria-label="Views">
      <div className="brand">mcp-rewind</div>
      <ul
        onKeyDown={onKeyDown}
        onBlur={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setFocused(null); // the Tab stop goes back to the current view
        }}
      >
        {VIEWS.map((v, i) => (
          <li key={v.id}>
            <button
              type="button"
              className="nav-item"
              ref={(el) => void (items.current[i] = el)}
              tabIndex={i === tabStop ? 0 : -1}
              aria-current={v.id === view ? 'page' : undefined}
              aria-keyshortcuts={`${isMac ? 'Meta' : 'Control'}+${i + 1}`}
              title={`${v.label} (${MOD}${i + 1})`}
              onFocus={() => setFocused(i)}
              onClick={() => select(v.id)}
            >
              <span>{v.label}</span>
              <kbd aria-hidden="true">
                {MOD}
                {i + 1}
              </kbd>
            </button>
          </li>
        ))}
      </ul>
      <div className="shell">
        <div>{shellLabel()}</div>
        <ConnectionStatus />
      </div>
    </nav>
  );
}

/** The shell refused (or never got) this page's token: say what to do, in one line, instead of spinning forever. */
function SignInNotice(): JSX.Element | null {
  const status = useConnection((s) => s.status);
  if (status !== 'unauthorized') return null;
  return (
    <div className="signin-notice" role="alert" data-testid="signin-notice">
      This page is not signed in: run <code>mcp-rewind ui</code> and open the link it prints (a link works once, within
      a minute).
    </div>
  );
}

/**
 * A change the engine refused to save (a resized split, a column, a toggle: saved without a Save button, so a failure
 * would otherwise pass unseen): said in every view but Settings (which shows its own) until a save succeeds or the
 * user dismisses it.
 */
function UnsavedNotice({ view }: { view: ViewId }): JSX.Element | null {
  const unsaved = useSettings((s) => s.unsaved);
  if (unsaved === undefined || view === 'settings') return null;
  return (
    <div className="signin-notice unsaved-notice" role="alert" aria-label="Settings not saved">
      <span>
        A change was not saved to the settings: <span className="small">{unsaved}</span>
      </span>
      <button type="button" onClick={() => useSettings.setState({ unsaved: undefined })}>
        Dismiss
      </button>
    </div>
  );
}

/**
 * The main column: the view's title bar, the paused-call banner (shown in every view), and the view, which fills the
 * rest of the window and scrolls inside its own panes (the page itself never scrolls).
 */
function Main(): JSX.Element {
  const view = useNavigation((s) => s.view);
  const current = VIEWS.find((v) => v.id === view) ?? VIEWS[0];
  const View = VIEW_COMPONENTS[current.id];
  return (
    <main className="panel" data-view={current.id}>
      <SignInNotice />
      <UnsavedNotice view={current.id} />
      <header className="view-head">
        <h1 id="view-title" tabIndex={-1}>
          {current.label}
        </h1>
        <p className="summary">{current.summary}</p>
      </header>
      <BreakpointBanner />
      <div className={`view-body view-${current.id}`}>
        <View />
      </div>
    </main>
  );
}

/**
 * The first Tab stop: straight to the view's main surface (the Timeline's table, else the view's first control),
 * past the nav, the proxies and the filters. Visible only while focused.
 */
function SkipLink(): JSX.Element {
  const view = useNavigation((s) => s.view);
  const skip = (): void => {
    const main = document.querySelector<HTMLElement>('main.panel');
    const target =
      (view === 'timeline' && document.querySelector<HTMLElement>('[data-testid="timeline-scroll"]')) ||
      main?.querySelector<HTMLElement>(
        '.view-body button, .view-body input, .view-body select, .view-body textarea, .view-body [tabindex="0"]',
      ) ||
      document.getElementById('view-title');
    target?.focus();
  };
  return (
    <button type="button" className="skip-link" onClick={skip}>
      {view === 'timeline' ? 'Skip to the traffic' : 'Skip to the view'}
    </button>
  );
}

export function App(): JSX.Element {
  useKeyboardNavigation();
  return (
    <div className="layout">
      <SkipLink />
      <Nav />
      <Main />
      <QuestionDialog />
    </div>
  );
}

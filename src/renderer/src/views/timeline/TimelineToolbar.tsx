import type { JSX } from 'react';
import type { TrafficEvent } from '../../../../shared/api.js';
import { onTabListKeyDown, tabStop } from '../../components/tabs.js';
import { usePanels } from '../../stores/panels.js';
import { useSettings } from '../../stores/settings.js';
import { useTraffic, type ClearScope } from '../../stores/traffic.js';
import { applyFilter, isFiltering, type FilterContext, type TimelineFilter } from './model.js';
import { shortSession } from './sessions.js';
import { useTimelineUi, type TimelineTab } from '../../stores/timeline-ui.js';

const TABS: Array<[TimelineTab, string]> = [
  ['table', 'Table'],
  ['waterfall', 'Waterfall'],
  ['histogram', 'Histogram'],
  ['cost', 'Cost'],
];

/** What Clear removes: the rows shown under the filter (and proxy), said in words, or everything. */
export function clearScope(filter: TimelineFilter, ctx: FilterContext): ClearScope {
  const keeps = (e: TrafficEvent): boolean => ctx.mark(e.seq) !== undefined;
  if (!isFiltering(filter)) return { label: 'every exchange', keeps };
  const parts = [
    filter.proxy && `proxy ${ctx.proxyName(filter.proxy)}`,
    filter.session && `session ${shortSession(filter.session)}`,
    filter.pinned && 'pinned',
    filter.method && `method ${filter.method}`,
    filter.tool && `tool ${filter.tool}`,
    filter.status && `status ${filter.status}`,
    filter.source && `source ${filter.source}`,
    filter.text.trim() && `“${filter.text.trim()}”`,
  ].filter(Boolean);
  const onlyProxy = filter.proxy && parts.length === 1;
  return {
    label: `the exchanges shown (${parts.join(', ')})`,
    matches: (e) => applyFilter([e], filter, ctx).length === 1,
    keeps,
    ...(onlyProxy ? { proxyId: filter.proxy } : {}),
  };
}

export function Toolbar({ shown, scope }: { shown: number; scope: ClearScope }): JSX.Element {
  const { exchanges, paused, held, dropped, pause, resume, clear, undoClear, cleared, error, loading } = useTraffic();
  const { tab, setTab, filter, setFilter, grouped, setGrouped } = useTimelineUi();
  const { setOpenFile, setSave, openCompose } = usePanels();
  return (
    <div className="toolbar tl-toolbar">
      <div
        className="tl-tabs"
        role="tablist"
        aria-label="Timeline views"
        onKeyDown={(e) => onTabListKeyDown(e, (i) => setTab(TABS[i][0]))}
      >
        {TABS.map(([id, label]) => (
          <button
            key={id}
            type="button"
            role="tab"
            aria-selected={tab === id}
            tabIndex={tabStop(tab === id)}
            className={tab === id ? 'active' : undefined}
            onClick={() => setTab(id)}
          >
            {label}
          </button>
        ))}
      </div>
      <span className="muted" data-testid="traffic-count">
        {exchanges.length} exchange{exchanges.length === 1 ? '' : 's'}
        {paused && held > 0 ? ` · ${held} held while paused` : ''}
      </span>
      {dropped > 0 && <span className="muted small">({dropped} oldest dropped)</span>}
      {loading && (
        <span className="muted small" role="status" data-testid="traffic-loading">
          Loading exchanges… {loading.received.toLocaleString('en')} of {loading.total.toLocaleString('en')}
        </span>
      )}
      <button type="button" onClick={paused ? resume : pause} aria-pressed={paused}>
        {paused ? 'Resume' : 'Pause'}
      </button>
      <button
        type="button"
        onClick={() => void clear(scope)}
        disabled={shown === 0}
        title={`Clears ${scope.label} (pinned exchanges stay); can be undone for 10 s`}
        aria-label={scope.matches ? `Clear ${shown} shown` : 'Clear all'}
      >
        {scope.matches ? `Clear ${shown} shown` : 'Clear all'}
      </button>
      <button
        type="button"
        className={filter.pinned ? 'toggle on' : 'toggle'}
        aria-pressed={filter.pinned}
        onClick={() => setFilter({ pinned: !filter.pinned })}
        title="Only pinned or noted exchanges"
      >
        ★ Pinned only
      </button>
      <button
        type="button"
        className={grouped ? 'toggle on' : 'toggle'}
        aria-pressed={grouped}
        onClick={() => setGrouped(!grouped)}
        title="The table grouped by MCP session"
      >
        Group by session
      </button>
      <span className="spacer" />
      <button
        type="button"
        onClick={() => openCompose()}
        title="Call any tool, prompt or resource of a proxy from a form"
      >
        ✉ Compose
      </button>
      <button
        type="button"
        onClick={() => setOpenFile(true)}
        title="Open a HAR file, a single-file cassette or a cassette folder into the timeline (read-only)"
      >
        Open…
      </button>
      <button
        type="button"
        onClick={() => setSave(true)}
        disabled={exchanges.length === 0}
        title="Save exchanges as HAR or as a cassette, secrets redacted"
      >
        Save…
      </button>
      {cleared && (
        <span className="toast" aria-live="polite">
          Cleared {cleared.count} ({cleared.label})
          <button type="button" onClick={() => void undoClear()}>
            Undo
          </button>
        </span>
      )}
      {error && (
        <span role="alert" className="error">
          {error}
        </span>
      )}
    </div>
  );
}

/** The view's options beside the footer: hide the app's own traffic, keep the timeline across restarts. */
export function ViewOptions(): JSX.Element {
  const hideApp = useSettings((s) => s.settings?.hideAppTraffic ?? true);
  const preserve = useSettings((s) => s.settings?.preserveLog ?? false);
  const update = useSettings((s) => s.update);
  return (
    <>
      <label
        className="tl-check"
        title="Hide the app's own traffic: its session's setup and the lists Compose asks for (what you resend or compose stays)"
      >
        <input
          type="checkbox"
          checked={hideApp}
          onChange={() => void update({ hideAppTraffic: !hideApp }).catch(() => {})}
        />{' '}
        Hide app traffic
      </label>
      <label
        className="tl-check"
        title="Keep the timeline across restarts (within its byte cap), not only the pinned exchanges"
      >
        <input
          type="checkbox"
          checked={preserve}
          onChange={() => void update({ preserveLog: !preserve }).catch(() => {})}
        />{' '}
        Preserve log
      </label>
    </>
  );
}

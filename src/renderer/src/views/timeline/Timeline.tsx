import { useCallback, useEffect, useMemo, type JSX } from 'react';
import { Group, Panel, Separator, type Layout } from 'react-resizable-panels';
import type { TrafficEvent } from '../../../../shared/api.js';
import { focusTable } from '../../components/focus.js';
import { sortRows } from '../../models/columns.js';
import { useBreakpoints } from '../../stores/breakpoints.js';
import { useProxies } from '../../stores/proxies.js';
import { useSettings } from '../../stores/settings.js';
import { useTraffic } from '../../stores/traffic.js';
import { useVerbs } from '../../stores/verbs.js';
import { BulkBar } from './BulkBar.js';
import {
  applyFilter,
  distinct,
  heldRows,
  indexOfRow,
  rowKey,
  warmSearch,
  type FilterContext,
  type TimelineRow,
} from './model.js';
import { groupBySession, sessionLabel, sessionsOf, type SessionInfo } from './sessions.js';
import { flagsOf } from './table/cells.js';
import { ColumnMenu } from './table/ColumnMenu.js';
import { useColumnSettings } from './table/use-columns.js';
import { clearScope, Toolbar, ViewOptions } from './TimelineToolbar.js';
import { useFilterInUrl } from './use-filter-url.js';
import { CostView } from './CostView.js';
import { SaveDialog } from './verbs/FileDialogs.js';
import { useTimelineUi } from '../../stores/timeline-ui.js';
import { Filters } from './Filters.js';
import { ExchangeTable } from './ExchangeTable.js';
import { DetailPane } from './DetailPane.js';
import { Waterfall } from './Waterfall.js';
import { Histogram } from './Histogram.js';
import './timeline.css';
import './inspector.css';
import './verbs/verbs.css';

/** The split's sizes and orientation live in the settings, so both shells open as the user left them. */
function useSplit(): { split: 'side' | 'bottom'; table: number; save: (layout: Layout) => void; toggle: () => void } {
  const layout = useSettings((s) => s.settings?.timelineLayout) ?? { split: 'side' as const, side: 50, bottom: 60 };
  const update = useSettings((s) => s.update);
  return {
    split: layout.split,
    table: layout.split === 'side' ? layout.side : layout.bottom,
    save: (sizes) => {
      const table = Math.round(Math.min(90, Math.max(10, sizes.table ?? 60)));
      if (table !== (layout.split === 'side' ? layout.side : layout.bottom))
        void update({ timelineLayout: { ...layout, [layout.split]: table } }).catch(() => {});
    },
    toggle: () =>
      void update({ timelineLayout: { ...layout, split: layout.split === 'side' ? 'bottom' : 'side' } }).catch(
        () => {},
      ),
  };
}

/** What filtering and sorting need: pins and notes, names of proxies and files, sessions, the app's traffic hidden. */
function useFilterContext(): {
  ctx: FilterContext;
  proxyName: (id: string) => string;
  sessions: Map<string, SessionInfo>;
} {
  const exchanges = useTraffic((s) => s.exchanges);
  const proxies = useProxies((s) => s.proxies);
  const sources = useVerbs((s) => s.sources);
  const marks = useVerbs((s) => s.marks);
  const hideApp = useSettings((s) => s.settings?.hideAppTraffic ?? true);
  const names = useMemo(
    () =>
      new Map([
        ...proxies.map((p): [string, string] => [p.id, p.name]),
        ...sources.map((s): [string, string] => [s.id, `file ${s.name}`]),
      ]),
    [proxies, sources],
  );
  const proxyName = useCallback((id: string) => names.get(id) ?? id, [names]);
  // the filter language names a file by its own name (proxy:traffic.har)
  const plain = useMemo(
    () =>
      new Map([
        ...proxies.map((p): [string, string] => [p.id, p.name]),
        ...sources.map((s): [string, string] => [s.id, s.name]),
      ]),
    [proxies, sources],
  );
  const sessions = useMemo(() => sessionsOf(exchanges), [exchanges]);
  const ctx = useMemo<FilterContext>(
    () => ({
      mark: (seq) => marks[seq],
      proxyName: (id) => plain.get(id) ?? id,
      session: (id) => sessions.get(id),
      hideApp,
    }),
    [marks, plain, sessions, hideApp],
  );
  return { ctx, proxyName, sessions };
}

/** The rows of the table: the filtered exchanges in the column sort's order, held calls last, grouped when asked. */
function useRows(
  filtered: TrafficEvent[],
  ctx: FilterContext,
  sessions: Map<string, SessionInfo>,
  proxyName: (id: string) => string,
): TimelineRow[] {
  const paused = useBreakpoints((s) => s.paused);
  const { filter, grouped } = useTimelineUi();
  const marks = useVerbs((s) => s.marks);
  const sort = useSettings((s) => s.settings?.timelineColumns.sort ?? null);
  const sorted = useMemo(
    () => sortRows(filtered, sort, { proxyName, flags: (e) => flagsOf(e, marks[e.seq]) }),
    [filtered, sort, proxyName, marks],
  );
  // calls held at a breakpoint are pending rows at the end (of their proxy, when the filter names one)
  return useMemo(() => {
    const held = heldRows(paused).filter((r) => !filter.proxy || r.proxyId === filter.proxy);
    const all = held.length ? [...sorted, ...held] : sorted;
    return grouped ? groupBySession(all, sessions) : all;
  }, [sorted, paused, filter.proxy, grouped, sessions]);
}

/** The detail follows the selection; an exchange the filter hides says so (it does not vanish under the reader). */
function useDetail(
  rows: TimelineRow[],
  exchanges: TrafficEvent[],
  detailOpen: boolean,
  selected: ReturnType<typeof useTimelineUi.getState>['selected'],
): { event: TimelineRow; filteredOut: boolean } | undefined {
  return useMemo(() => {
    if (!detailOpen || selected === undefined) return undefined;
    const inRows = indexOfRow(rows, selected);
    if (inRows >= 0) return { event: rows[inRows], filteredOut: false };
    const all = indexOfRow(exchanges, selected);
    return all >= 0 ? { event: exchanges[all] as TimelineRow, filteredOut: true } : undefined;
  }, [detailOpen, selected, rows, exchanges]);
}

/** Esc closes the detail from anywhere in it; the focus goes back to the table (never to <body>). */
function useEscClosesDetail(closeDetail: () => void): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key !== 'Escape' || e.defaultPrevented || !useTimelineUi.getState().detailOpen) return;
      const target = e.target as HTMLElement | null;
      if (target?.closest('dialog, .drawer, [role="menu"], .tl-query')) return;
      closeDetail();
      focusTable();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [closeDetail]);
}

/** While picking a second exchange to compare with: which one is the base, and a way out. */
function PickingBanner(props: {
  base: TimelineRow;
  sessions: Map<string, SessionInfo>;
  onCancel: () => void;
}): JSX.Element {
  const { base, sessions } = props;
  return (
    <p className="picking-banner small" role="status">
      Click the exchange to compare with <strong>#{base.seq}</strong> {base.method} {base.tool ?? ''} (
      {sessionLabel(sessions.get(base.sessionId ?? ''), base.sessionId)})
      <button type="button" className="small" onClick={props.onCancel}>
        Cancel (Esc)
      </button>
    </p>
  );
}

/** The footer: key hints, view options, the column menu's button and the split's orientation. */
function TimelineFoot(props: {
  showColumns: boolean;
  hasDetail: boolean;
  split: ReturnType<typeof useSplit>;
  onColumns: (at: { x: number; y: number; up: boolean }) => void;
}): JSX.Element {
  const { split } = props;
  return (
    <div className="tl-foot small muted">
      <span className="tl-keys-hint">↑/↓ select · Shift/Ctrl to pick more · Enter open · Esc close · / search</span>
      <span className="spacer" />
      <ViewOptions />
      {props.showColumns && (
        <button
          type="button"
          className="small"
          aria-haspopup="menu"
          onClick={(e) => {
            const r = e.currentTarget.getBoundingClientRect();
            props.onColumns({ x: r.left, y: r.top, up: true });
          }}
          title="Show, hide, sort and move the table's columns (or right-click a header)"
        >
          Columns ▾
        </button>
      )}
      {props.hasDetail && (
        <button
          type="button"
          className="small"
          onClick={split.toggle}
          aria-label={split.split === 'side' ? 'Detail below the table' : 'Detail beside the table'}
        >
          {split.split === 'side' ? '⬓ Detail below' : '◨ Detail beside'}
        </button>
      )}
    </div>
  );
}

/** The live timeline: toolbar, filters, and the filtered exchanges as a table beside its detail, a waterfall or a histogram. */
export function Timeline(): JSX.Element {
  const exchanges = useTraffic((s) => s.exchanges);
  const proxies = useProxies((s) => s.proxies);
  const sources = useVerbs((s) => s.sources);
  const marks = useVerbs((s) => s.marks);
  const {
    filter,
    tab,
    selected,
    picked,
    detailOpen,
    select,
    closeDetail,
    resetFilter,
    picking,
    setPicking,
    openColumnMenu,
  } = useTimelineUi();
  const { ctx, proxyName, sessions } = useFilterContext();
  const filtered = useMemo(() => applyFilter(exchanges, filter, ctx), [exchanges, filter, ctx]);
  const rows = useRows(filtered, ctx, sessions, proxyName);
  const { methods, tools, revisions } = useMemo(() => distinct(exchanges), [exchanges]);
  const split = useSplit();
  const columns = useColumnSettings();
  useFilterInUrl();
  useEffect(() => warmSearch(exchanges), [exchanges]); // the first search is as quick as the next
  const scope = clearScope(filter, ctx);

  const detail = useDetail(rows, exchanges, detailOpen, selected);
  useEscClosesDetail(closeDetail);
  const pickedRows = useMemo(
    () => (picked.size > 1 ? exchanges.filter((e) => picked.has(e.seq)) : []),
    [picked, exchanges],
  );
  const base = picking && detail ? detail.event : undefined;
  return (
    <section className="traffic" aria-label="Traffic">
      <Toolbar shown={scope.matches ? filtered.length : exchanges.length} scope={scope} />
      <Filters
        methods={methods}
        tools={tools}
        revisions={revisions}
        proxies={proxies}
        sources={sources}
        sessions={sessions}
        shown={filtered.length}
        total={exchanges.length}
      />
      {pickedRows.length > 1 && <BulkBar rows={pickedRows} />}
      {base && <PickingBanner base={base} sessions={sessions} onCancel={() => setPicking(false)} />}
      <div className="tl-main">
        {exchanges.length === 0 && rows.length === 0 ? (
          <p className="muted tl-empty">
            No traffic yet. Point an MCP client at a proxy&apos;s endpoint (Copy client config), or press “Run demo”.
          </p>
        ) : tab === 'cost' ? (
          <CostView proxies={proxies} sources={sources} sessions={sessions} />
        ) : tab !== 'table' ? (
          <div className="tl-chart-pane">
            {tab === 'waterfall' ? <Waterfall rows={filtered} /> : <Histogram rows={filtered} />}
          </div>
        ) : (
          // the table keeps its place (and its focus and scroll) whether the detail is open or not
          <Group
            key={split.split}
            className="tl-split"
            orientation={split.split === 'side' ? 'horizontal' : 'vertical'}
            onLayoutChanged={(layout, meta) => meta.isUserInteraction && detail !== undefined && split.save(layout)}
          >
            <Panel id="table" minSize="15%" defaultSize={detail ? `${split.table}%` : '100%'} className="tl-pane">
              <ExchangeTable
                rows={rows}
                proxyName={proxyName}
                marks={marks}
                sessions={sessions}
                besideDetail={detail !== undefined && split.split === 'side'}
              />
            </Panel>
            {detail && (
              <Separator className={`tl-separator ${split.split}`} aria-label="Resize the table and the detail" />
            )}
            {detail && (
              <Panel id="detail" minSize="15%" defaultSize={`${100 - split.table}%`} className="tl-pane">
                <DetailPane
                  key={rowKey(detail.event)}
                  event={detail.event}
                  proxyName={proxyName(detail.event.proxyId)}
                  nameOf={proxyName}
                  onClose={() => {
                    select(selected, false);
                    focusTable();
                  }}
                  filteredOut={detail.filteredOut}
                  onReveal={resetFilter}
                />
              </Panel>
            )}
          </Group>
        )}
      </div>
      <ColumnMenu
        settings={columns.settings}
        save={columns.save}
        besideDetail={detail !== undefined && split.split === 'side'}
      />
      <SaveDialog
        all={exchanges}
        shown={filtered}
        selected={pickedRows.length > 1 ? pickedRows : detail && !detail.event.pausedId ? [detail.event] : []}
      />
      <TimelineFoot
        showColumns={tab === 'table'}
        hasDetail={detail !== undefined}
        split={split}
        onColumns={openColumnMenu}
      />
    </section>
  );
}

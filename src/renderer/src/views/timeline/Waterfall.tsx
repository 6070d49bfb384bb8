import { useMemo, useRef, useState, type JSX, type PointerEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { TrafficEvent } from '../../../../shared/api.js';
import { Name } from '../../components/Name.js';
import { timeTerm, withTerms } from '../../models/filter-query.js';
import { overviewBins, timeSpan } from './chart-model.js';
import { rowId, rowKey, statusLabel } from './model.js';
import { useTimelineUi } from '../../stores/timeline-ui.js';

const ROW = 18;
const BINS = 160;

/** The span dragged (or the bin clicked) on the overview, as the after:/before: terms of the filter. */
function useSpanFilter(t0: number, t1: number): (from: number, to: number) => void {
  const setFilter = useTimelineUi((s) => s.setFilter);
  return (from, to) => {
    const a = t0 + Math.min(from, to) * (t1 - t0);
    const b = t0 + Math.max(from, to) * (t1 - t0);
    const withDate = new Date(t0).toDateString() !== new Date(t1).toDateString();
    const text = useTimelineUi.getState().filter.text;
    setFilter({
      text: withTerms(
        text,
        ['after', 'before'],
        [`after:${timeTerm(Math.floor(a), withDate)}`, `before:${timeTerm(Math.ceil(b) + 1, withDate)}`],
      ),
    });
  };
}

/** How many exchanges started in each slice of the time span: a strip to drag a span on (it filters to it). */
function Overview({ rows, t0, t1 }: { rows: TrafficEvent[]; t0: number; t1: number }): JSX.Element {
  const bins = useMemo(() => overviewBins(rows, t0, t1, BINS), [rows, t0, t1]);
  const max = Math.max(1, ...bins);
  const strip = useRef<SVGSVGElement>(null);
  const [drag, setDrag] = useState<{ from: number; to: number }>();
  const filterTo = useSpanFilter(t0, t1);
  const at = (e: PointerEvent): number => {
    const r = strip.current?.getBoundingClientRect();
    return r ? Math.min(1, Math.max(0, (e.clientX - r.left) / r.width)) : 0;
  };
  return (
    <svg
      ref={strip}
      className="tl-overview"
      viewBox={`0 0 ${BINS} 40`}
      preserveAspectRatio="none"
      width="100%"
      height={40}
      role="img"
      aria-label="Exchanges over time: drag a span, or click a slice, to filter to it"
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId);
        setDrag({ from: at(e), to: at(e) });
      }}
      onPointerMove={(e) => drag && setDrag({ ...drag, to: at(e) })}
      onPointerUp={(e) => {
        if (!drag) return;
        const to = at(e);
        // a click is one slice; a drag is what it covered
        if (Math.abs(to - drag.from) < 1 / BINS)
          filterTo(Math.floor(to * BINS) / BINS, Math.min(1, (Math.floor(to * BINS) + 1) / BINS));
        else filterTo(drag.from, to);
        setDrag(undefined);
      }}
    >
      {bins.map((n, i) => (
        <rect
          key={i}
          className="tl-obin"
          x={i}
          width={1}
          y={40 - (n / max) * 38}
          height={(n / max) * 38}
          data-testid="overview-bin"
          data-count={n}
        />
      ))}
      {drag && (
        <rect
          className="tl-ospan"
          x={Math.min(drag.from, drag.to) * BINS}
          width={Math.abs(drag.to - drag.from) * BINS}
          y={0}
          height={40}
        />
      )}
    </svg>
  );
}

/**
 * Every exchange on one line, in table order, with its bar from its start to its end on the time axis of the whole
 * set (colour = source); only the lines in view are in the DOM, so it covers all exchanges. A click on a bar opens
 * the exchange; the overview strip above filters to a span.
 */
export function Waterfall({ rows }: { rows: TrafficEvent[] }): JSX.Element {
  const select = useTimelineUi((s) => s.select);
  const setTab = useTimelineUi((s) => s.setTab);
  // an exchange still open is drawn up to the time of drawing
  const { t0, t1, lanes } = useMemo(() => timeSpan(rows, Date.now()), [rows]);
  const scroller = useRef<HTMLDivElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- TanStack Virtual: the compiler leaves this component unmemoized, as intended
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW,
    overscan: 10,
  });
  if (rows.length === 0) return <p className="muted">No exchange to draw.</p>;
  const span = Math.max(1, Math.round(t1 - t0));
  const pct = (t: number): number => ((t - t0) / span) * 100;
  const now = Date.now();
  return (
    <figure className="tl-chart tl-waterfall-chart" aria-label="Waterfall">
      <figcaption className="muted small">
        {rows.length} exchange{rows.length === 1 ? '' : 's'} over {span} ms, at most {lanes} at once
        <span className="tl-legend">
          <i className="src-upstream" /> upstream <i className="src-cache" /> cache <i className="src-proxy" /> proxy
        </span>
      </figcaption>
      <Overview rows={rows} t0={t0} t1={t1} />
      <div className="tl-axis muted small">
        <span>0 ms</span>
        <span>{Math.round(span / 2)} ms</span>
        <span>{span} ms</span>
      </div>
      <div className="tl-wf-scroll" ref={scroller} data-testid="waterfall-scroll">
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((v) => {
            const e = rows[v.index];
            const end = e.response ? e.startedAt + Math.max(0, e.durationMs) : Math.max(e.startedAt, now);
            const label = `#${e.seq} ${e.method}${e.tool ? ` ${e.tool}` : ''} — ${e.source}, ${statusLabel(e)}, ${Math.round(end - e.startedAt)} ms`;
            return (
              <div key={rowKey(e)} className="tl-wf-row" style={{ transform: `translateY(${v.start}px)`, height: ROW }}>
                <span className="tl-wf-label">
                  #{e.seq} <Name value={e.tool ?? e.method} />
                </span>
                <span className="tl-wf-track">
                  <button
                    type="button"
                    data-testid="waterfall-bar"
                    className={`tl-bar src-${e.source}${e.response ? '' : ' pending'}`}
                    style={{ left: `${pct(e.startedAt)}%`, width: `max(2px, ${pct(end) - pct(e.startedAt)}%)` }}
                    title={label}
                    aria-label={label}
                    onClick={() => {
                      select(rowId(e), true);
                      setTab('table');
                    }}
                  />
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </figure>
  );
}

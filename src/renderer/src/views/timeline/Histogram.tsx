import { useMemo, type JSX } from 'react';
import type { TrafficEvent } from '../../../../shared/api.js';
import { withTerms } from '../../models/filter-query.js';
import { formatMs, histogram, type Bucket } from './model.js';
import { useTimelineUi } from '../../stores/timeline-ui.js';

/** the duration terms of a bucket: `duration>=100 duration<200` (the first has no lower edge, the last no upper) */
export function bucketTerms(b: Bucket): string[] {
  return [...(b.from > 0 ? [`duration>=${b.from}`] : []), ...(Number.isFinite(b.to) ? [`duration<${b.to}`] : [])];
}

const BAR_W = 56;
const H = 180;
const LABEL_H = 34;

/** Latency histogram with log buckets (1-2-5 per decade) of the answered exchanges; a bucket's click filters to it. */
export function Histogram({ rows }: { rows: TrafficEvent[] }): JSX.Element {
  const buckets = useMemo(() => histogram(rows), [rows]);
  const setFilter = useTimelineUi((s) => s.setFilter);
  const filterTo = (b: Bucket): void =>
    setFilter({ text: withTerms(useTimelineUi.getState().filter.text, ['duration'], bucketTerms(b)) });
  if (buckets.length === 0) return <p className="muted">No answered exchange yet.</p>;
  const max = Math.max(...buckets.map((b) => b.count));
  const answered = buckets.reduce((n, b) => n + b.count, 0);
  const width = buckets.length * BAR_W;
  return (
    <figure className="tl-chart" aria-label="Latency histogram">
      <figcaption className="muted small">
        Latency of {answered} answered exchange{answered === 1 ? '' : 's'}
        {rows.length > answered ? ` (${rows.length - answered} pending left out)` : ''}, log buckets — click one to
        filter to it
      </figcaption>
      <svg
        className="tl-histogram"
        viewBox={`0 0 ${width} ${H + LABEL_H}`}
        width={Math.min(width, 1100)}
        role="group"
        aria-label="Latency buckets"
      >
        {buckets.map((b, i) => {
          const h = b.count === 0 ? 0 : Math.max(2, (b.count / max) * (H - 18));
          const label = `${formatMs(b.from)}–${formatMs(b.to)}`;
          return (
            <g
              key={b.from}
              data-testid="histogram-bucket"
              data-count={b.count}
              data-from={b.from}
              className="tl-hbucket"
              onClick={() => filterTo(b)}
            >
              <rect className="tl-hbar" x={i * BAR_W + 6} y={H - h} width={BAR_W - 12} height={h} />
              <text x={i * BAR_W + BAR_W / 2} y={H - h - 4} textAnchor="middle" className="tl-hcount">
                {b.count || ''}
              </text>
              <text x={i * BAR_W + BAR_W / 2} y={H + 14} textAnchor="middle" className="tl-hlabel">
                {b.from === 0 ? '<1 ms' : `≥${formatMs(b.from)}`}
              </text>
              {/* the bucket as a button (no text inside it: its name is its label) */}
              <rect
                className="tl-hhit"
                x={i * BAR_W}
                y={0}
                width={BAR_W}
                height={H + LABEL_H}
                role="button"
                tabIndex={0}
                aria-label={`${label}: ${b.count} exchange${b.count === 1 ? '' : 's'} — filter to them`}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' || e.key === ' ') {
                    e.preventDefault();
                    filterTo(b);
                  }
                }}
              />
            </g>
          );
        })}
        <line x1={0} x2={width} y1={H} y2={H} className="tl-baseline" />
      </svg>
    </figure>
  );
}

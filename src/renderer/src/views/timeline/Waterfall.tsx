import { useMemo, type JSX } from 'react'
import type { TrafficEvent } from '../../../../shared/api.js'
import { assignLanes, rowId, rowKey, statusLabel } from './model.js'
import { useTimelineUi } from './state.js'

/** at most this many (the newest) exchanges are drawn: an SVG element each */
export const WATERFALL_MAX_BARS = 2000
const W = 1000
const LANE = 14
const GAP = 3

/** Lanes over time: each exchange a bar from its start to its end, on the first free lane; colour = source. */
export function Waterfall({ rows }: { rows: TrafficEvent[] }): JSX.Element {
  const select = useTimelineUi((s) => s.select)
  const setTab = useTimelineUi((s) => s.setTab)
  const shown = rows.length > WATERFALL_MAX_BARS ? rows.slice(-WATERFALL_MAX_BARS) : rows
  // eslint-disable-next-line react-hooks/purity -- an exchange still open is drawn up to the time of drawing
  const { bars, lanes, t0, t1 } = useMemo(() => assignLanes(shown, Date.now()), [shown])
  if (bars.length === 0) return <p className="muted">No exchange to draw.</p>
  const span = Math.max(1, Math.round(t1 - t0))
  const x = (t: number): number => ((t - t0) / span) * W
  const height = lanes * (LANE + GAP) + GAP
  return (
    <figure className="tl-chart" aria-label="Waterfall">
      <figcaption className="muted small">
        {bars.length} exchange{bars.length === 1 ? '' : 's'} on {lanes} lane{lanes === 1 ? '' : 's'} (max concurrency) over {span} ms
        {rows.length > shown.length ? ` — the newest ${WATERFALL_MAX_BARS} of ${rows.length}` : ''}
        <span className="tl-legend">
          <i className="src-upstream" /> upstream <i className="src-cache" /> cache <i className="src-proxy" /> proxy
        </span>
      </figcaption>
      <svg
        className="tl-waterfall"
        viewBox={`0 0 ${W} ${height}`}
        preserveAspectRatio="none"
        width="100%"
        height={height}
        role="img"
        aria-label="Exchanges on lanes over time"
      >
        {Array.from({ length: lanes }, (_, i) => (
          <rect key={`lane${i}`} className="tl-lane" x={0} y={GAP + i * (LANE + GAP)} width={W} height={LANE} />
        ))}
        {bars.map((b) => (
          <rect
            key={rowKey(b.event)}
            data-testid="waterfall-bar"
            className={`tl-bar src-${b.event.source}${b.event.response ? '' : ' pending'}`}
            x={x(b.start)}
            y={GAP + b.lane * (LANE + GAP)}
            width={Math.max(1.5, x(b.end) - x(b.start))}
            height={LANE}
            onClick={() => {
              select(rowId(b.event), true)
              setTab('table')
            }}
          >
            <title>{`${b.event.method}${b.event.tool ? ` ${b.event.tool}` : ''} — ${b.event.source}, ${statusLabel(b.event)}, ${Math.round(b.end - b.start)} ms`}</title>
          </rect>
        ))}
      </svg>
      <div className="tl-axis muted small">
        <span>0 ms</span>
        <span>{Math.round(span / 2)} ms</span>
        <span>{span} ms</span>
      </div>
    </figure>
  )
}

import type { TrafficEvent } from '../../../../shared/api.js';

/** Pure helpers of the Timeline's charts: the time span of a set of exchanges, its concurrency, the overview's bins. */

/** when an exchange ended (one still open: now) */
const endOf = (e: TrafficEvent, now: number): number =>
  e.response ? e.startedAt + Math.max(0, e.durationMs) : Math.max(e.startedAt, now);

/** The first start and the last end of the exchanges, and how many were open at once at most. */
export function timeSpan(list: TrafficEvent[], now: number): { t0: number; t1: number; lanes: number } {
  if (list.length === 0) return { t0: 0, t1: 0, lanes: 0 };
  const starts = new Float64Array(list.length);
  const ends = new Float64Array(list.length);
  let t0 = Infinity;
  let t1 = -Infinity;
  list.forEach((e, i) => {
    starts[i] = e.startedAt;
    ends[i] = endOf(e, now);
    if (starts[i] < t0) t0 = starts[i];
    if (ends[i] > t1) t1 = ends[i];
  });
  starts.sort();
  ends.sort();
  // a sweep over the starts: the exchanges that ended before it are closed (one ending just as another starts counts)
  let open = 0;
  let lanes = 0;
  for (let i = 0, j = 0; i < starts.length; i++) {
    while (j < ends.length && ends[j] < starts[i]) {
      j++;
      open--;
    }
    open++;
    if (open > lanes) lanes = open;
  }
  return { t0, t1, lanes };
}

/** How many exchanges started in each of `bins` equal slices of [t0, t1]. */
export function overviewBins(list: TrafficEvent[], t0: number, t1: number, bins: number): number[] {
  const out = new Array<number>(bins).fill(0);
  const span = Math.max(1, t1 - t0);
  for (const e of list) out[Math.min(bins - 1, Math.max(0, Math.floor(((e.startedAt - t0) / span) * bins)))]++;
  return out;
}

import type { TrafficEvent } from '../../../../shared/api.js';
import type { PausedCall } from '../../../../shared/breakpoints.js';
import { problemsSummary, worstSeverity } from '../../../../shared/insight/findings.js';
import { statusKind, type StatusKind } from '../../models/exchange-facts.js';
import { matchQuery, parseQuery, type ParsedQuery, type QueryContext } from '../../models/filter-query.js';

export {
  haystack,
  isChanged,
  sourceKind,
  sourceLabel,
  statusKind,
  statusLabel,
  warmSearch,
  type StatusKind,
} from '../../models/exchange-facts.js';

/** Pure helpers of the Timeline view: labels, filtering, lanes and histogram buckets. No React, no I/O. */

/**
 * A row of the table: an exchange, a call held at a breakpoint (not an exchange yet: it has no answer), or the head
 * of a session's group (when grouped by session).
 */
export type TimelineRow = TrafficEvent & {
  pausedId?: string;
  group?: { sessionId: string; label: string; count: number };
};

/**
 * What the renderer names a row by (the selection, a comparison): an exchange by its `seq` — the timeline's own
 * number, unique across proxies, sources and restarts — and a call held at a breakpoint (no exchange yet) by its id.
 * A group's head is never selected.
 */
export type RowId = number | string;

export const rowId = (row: TimelineRow): RowId => row.pausedId ?? row.seq;

/** A row's React key (and the table's row id): unique among the rows, never read back. */
export const rowKey = (row: TimelineRow): string =>
  row.group ? `group ${row.group.sessionId}` : row.pausedId ? `held ${row.pausedId}` : String(row.seq);

/** The index of the row with this id (the newest first: cheap on 100,000 rows), or -1. */
export function indexOfRow(rows: TimelineRow[], id: RowId | undefined): number {
  if (typeof id === 'string') return rows.findIndex((r) => r.pausedId === id);
  for (let i = rows.length - 1; i >= 0; i--) if (rows[i].seq === id && !rows[i].pausedId && !rows[i].group) return i;
  return -1;
}

/** The calls held at breakpoints as pending rows of the table (newest last, after the exchanges). */
export function heldRows(paused: PausedCall[]): TimelineRow[] {
  return paused.map((call, i) => ({
    pausedId: call.id,
    proxyId: call.proxyId ?? '',
    seq: -1 - i,
    sessionId: call.sessionId,
    method: call.method ?? 'tools/call',
    ...(call.method ? {} : { tool: call.tool }),
    key: '',
    source: 'upstream',
    cassette: 'none',
    request: {
      jsonrpc: '2.0',
      id: `held-${call.id}`,
      method: call.method ?? 'tools/call',
      params: call.method ? (call.params ?? {}) : { name: call.tool, arguments: call.arguments ?? {} },
    },
    stream: [],
    flags: [
      `held at a breakpoint (${call.stage === 'request' ? 'before request' : 'before response'})`,
      ...(call.matched ? [`held by ${call.matched}`] : []),
    ],
    startedAt: call.since,
    durationMs: 0,
  }));
}

export interface TimelineFilter {
  method: string;
  tool: string;
  status: '' | StatusKind;
  source: '' | TrafficEvent['source'] | 'rule';
  proxy: string;
  /** an MCP session id ('' for every session) */
  session: string;
  /** only pinned or noted exchanges */
  pinned: boolean;
  text: string;
}

export const EMPTY_FILTER: TimelineFilter = {
  method: '',
  tool: '',
  status: '',
  source: '',
  proxy: '',
  session: '',
  pinned: false,
  text: '',
};

export function isFiltering(f: TimelineFilter): boolean {
  return Boolean(f.method || f.tool || f.status || f.source || f.proxy || f.session || f.pinned || f.text.trim());
}

/** What filtering needs besides the filter: pins and notes, names, sessions, and whether the app's own traffic shows. */
export interface FilterContext extends QueryContext {
  /** hide the app's own traffic (its session's setup, the lists Compose asks for) */
  hideApp?: boolean;
}

/** a context with nothing pinned and ids for names (tests, and callers that need no more) */
export const plainContext = (marked: (seq: number) => boolean = () => false): FilterContext => ({
  mark: (seq) => (marked(seq) ? { pinned: true } : undefined),
  proxyName: (id) => id,
  session: () => undefined,
});

let lastQuery: { text: string; parsed: ParsedQuery } | undefined;
/** the filter's text compiled (the last one is kept: the same text is not parsed twice) */
export function queryOf(text: string): ParsedQuery {
  if (lastQuery?.text !== text) lastQuery = { text, parsed: parseQuery(text) };
  return lastQuery.parsed;
}

/** The exchanges the filter (its menus and its query) lets through, the app's own left out when `hideApp`. */
export function applyFilter(
  list: TrafficEvent[],
  f: TimelineFilter,
  ctx: FilterContext = plainContext(),
): TrafficEvent[] {
  const hideApp = ctx.hideApp === true;
  if (!isFiltering(f) && !hideApp) return list;
  const query = queryOf(f.text);
  return list.filter(
    (e) =>
      !(hideApp && e.sentBy?.kind === 'app') &&
      (!f.method || e.method === f.method) &&
      (!f.session || e.sessionId === f.session) &&
      (!f.pinned || ctx.mark(e.seq) !== undefined) &&
      (!f.tool || e.tool === f.tool) &&
      (!f.proxy || e.proxyId === f.proxy) &&
      (!f.status || statusKind(e) === f.status) &&
      (!f.source || (f.source === 'rule' ? Boolean(e.behavior && e.behavior !== 'relay') : e.source === f.source)) &&
      matchQuery(query, e, ctx),
  );
}

/** The ⚠ column: how many findings, and the worst severity ('' when none). */
export function problemsOf(e: TrafficEvent): { count: number; worst: string; summary: string } {
  const problems = e.insight?.problems ?? [];
  return {
    count: problems.length,
    worst: worstSeverity(problems) ?? '',
    summary: problems.length ? problemsSummary(problems) : '',
  };
}

/** the distinct methods, tools and protocol revisions seen, for the filter menus and the search's completion */
export function distinct(list: TrafficEvent[]): { methods: string[]; tools: string[]; revisions: string[] } {
  const methods = new Set<string>();
  const tools = new Set<string>();
  const revisions = new Set<string>();
  for (const e of list) {
    methods.add(e.method);
    if (e.tool) tools.add(e.tool);
    if (e.protocolVersion) revisions.add(e.protocolVersion);
  }
  return { methods: [...methods].sort(), tools: [...tools].sort(), revisions: [...revisions].sort() };
}

/** Log bucket edges in ms: 1-2-5 per decade, from 1 ms to 100 s; below 1 ms is the first bucket. */
export const BUCKET_EDGES: number[] = (() => {
  const edges: number[] = [];
  for (let decade = 1; decade <= 100_000; decade *= 10) for (const m of [1, 2, 5]) edges.push(m * decade);
  return edges;
})();

export interface Bucket {
  /** inclusive lower edge (ms) */
  from: number;
  /** exclusive upper edge (ms); Infinity for the last */
  to: number;
  count: number;
}

/** Latency histogram of the answered exchanges, trimmed to the range from the first to the last non-empty bucket. */
export function histogram(list: TrafficEvent[]): Bucket[] {
  const buckets: Bucket[] = [{ from: 0, to: BUCKET_EDGES[0], count: 0 }];
  BUCKET_EDGES.forEach((from, i) => buckets.push({ from, to: BUCKET_EDGES[i + 1] ?? Infinity, count: 0 }));
  for (const e of list) {
    if (!e.response) continue;
    const d = Math.max(0, e.durationMs);
    let i = 0;
    while (i < BUCKET_EDGES.length && d >= BUCKET_EDGES[i]) i++;
    buckets[i].count++;
  }
  const first = buckets.findIndex((b) => b.count > 0);
  if (first < 0) return [];
  let last = buckets.length - 1;
  while (buckets[last].count === 0) last--;
  return buckets.slice(first, last + 1);
}

export function formatMs(ms: number): string {
  if (ms === Infinity) return '∞';
  if (ms >= 1000) return `${ms / 1000} s`;
  return `${ms} ms`;
}

export function formatTime(at: number): string {
  const d = new Date(at);
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

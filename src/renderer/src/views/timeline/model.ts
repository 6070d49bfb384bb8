import type { TrafficEvent } from '../../../../shared/api.js'
import type { PausedCall } from '../../../../shared/breakpoints.js'
import { finalLabel, finalOf } from '../../../../shared/traffic.js'
import { hasProblem, takeHasProblem, worstSeverity } from '../../../../shared/insight/findings.js'

/** Pure helpers of the Timeline view: labels, filtering, lanes and histogram buckets. No React, no I/O. */

export type StatusKind = 'ok' | 'tool error' | 'error' | 'pending' | 'held'

/**
 * A row of the table: an exchange, a call held at a breakpoint (not an exchange yet: it has no answer), or the head
 * of a session's group (when grouped by session).
 */
export type TimelineRow = TrafficEvent & { pausedId?: string; group?: { sessionId: string; label: string; count: number } }

/**
 * What the renderer names a row by (the selection, a comparison): an exchange by its `seq` — the timeline's own
 * number, unique across proxies, sources and restarts — and a call held at a breakpoint (no exchange yet) by its id.
 * A group's head is never selected.
 */
export type RowId = number | string

export const rowId = (row: TimelineRow): RowId => row.pausedId ?? row.seq

/** A row's React key (and the table's row id): unique among the rows, never read back. */
export const rowKey = (row: TimelineRow): string => (row.group ? `group ${row.group.sessionId}` : row.pausedId ? `held ${row.pausedId}` : String(row.seq))

/** The index of the row with this id (the newest first: cheap on 100,000 rows), or -1. */
export function indexOfRow(rows: TimelineRow[], id: RowId | undefined): number {
  if (typeof id === 'string') return rows.findIndex((r) => r.pausedId === id)
  for (let i = rows.length - 1; i >= 0; i--) if (rows[i].seq === id && !rows[i].pausedId && !rows[i].group) return i
  return -1
}

/** The calls held at breakpoints as pending rows of the table (newest last, after the exchanges). */
export function heldRows(paused: PausedCall[]): TimelineRow[] {
  return paused.map((call, i) => ({
    pausedId: call.id,
    proxyId: call.proxyId ?? '',
    seq: -1 - i,
    sessionId: call.sessionId,
    method: 'tools/call',
    tool: call.tool,
    key: '',
    source: 'upstream',
    cassette: 'none',
    request: { jsonrpc: '2.0', id: `held-${call.id}`, method: 'tools/call', params: { name: call.tool, arguments: call.arguments ?? {} } },
    stream: [],
    flags: [`held at a breakpoint (${call.stage === 'request' ? 'before request' : 'before response'})`],
    startedAt: call.since,
    durationMs: 0,
  }))
}

export function statusKind(e: TimelineRow): StatusKind {
  if (e.pausedId) return 'held'
  const r = e.response as { error?: { code: number }; result?: { isError?: boolean } } | undefined
  // ended without an answer the client took: refused, cancelled, the client gone, cut by a limit
  if (finalLabel(e) !== undefined) return 'error'
  if (!r) return finalOf(e) ? 'error' : 'pending'
  if (r.error) return 'error'
  return r.result?.isError ? 'tool error' : 'ok'
}

/** ok / tool error / error <JSON-RPC code> / HTTP 404, cancelled, client gone, timed out / pending */
export function statusLabel(e: TimelineRow): string {
  const kind = statusKind(e)
  if (kind === 'held') return '‖ held'
  if (kind !== 'error') return kind
  const ended = finalLabel(e)
  if (ended !== undefined || !e.response) return ended ?? 'error'
  return `error ${(e.response as { error: { code: number } }).error.code}`
}

/** upstream / cache / proxy, and the rule that changed the answer: "upstream · inject" */
export function sourceLabel(e: TrafficEvent): string {
  return e.behavior && e.behavior !== 'relay' ? `${e.source} · ${e.behavior}` : e.source
}

/** Who answered, in the words of the detail's overview: upstream, cassette, rule (override / inject), breakpoint, proxy. */
export function sourceKind(e: TrafficEvent): string {
  const at = e.source === 'cache' ? 'cassette' : e.source
  if (e.flags?.some((f) => f.includes('at a breakpoint'))) return `${at} · edited at a breakpoint`
  if (e.behavior === 'override') return 'rule (override)'
  if (e.behavior === 'inject') return `${at} · rule (inject)`
  return at
}

/** A rule or a breakpoint changed what the client sent or got. */
export const isChanged = (e: TrafficEvent): boolean => e.original !== undefined || e.behavior === 'override' || e.behavior === 'inject'

export interface TimelineFilter {
  method: string
  tool: string
  status: '' | StatusKind
  source: '' | TrafficEvent['source'] | 'rule'
  proxy: string
  /** an MCP session id ('' for every session) */
  session: string
  /** only pinned or noted exchanges */
  pinned: boolean
  text: string
}

export const EMPTY_FILTER: TimelineFilter = { method: '', tool: '', status: '', source: '', proxy: '', session: '', pinned: false, text: '' }

/** request + response + stream as lower-case JSON, computed once per exchange (events are immutable) */
const haystacks = new WeakMap<TrafficEvent, string>()
function haystack(e: TrafficEvent): string {
  let text = haystacks.get(e)
  if (text === undefined) {
    text =
      `${e.method}\n${e.tool ?? ''}\n${e.key}\n${JSON.stringify(e.request)}\n${JSON.stringify(e.response ?? null)}\n${JSON.stringify(e.stream)}`.toLowerCase()
    haystacks.set(e, text)
  }
  return text
}

/**
 * Builds the search text of the exchanges ahead of time, in idle slices, so that the first search over 100,000 of
 * them costs what a second one does (a few ms per 2,000 exchanges, never a long task). Call it with the current list
 * whenever it changes; a newer list replaces the one being warmed.
 */
let warming: { list: TrafficEvent[]; at: number } | undefined
export function warmSearch(list: TrafficEvent[]): void {
  const idle = (globalThis as { requestIdleCallback?: (cb: (deadline: { timeRemaining(): number }) => void) => number }).requestIdleCallback
  const running = warming !== undefined
  warming = { list, at: warming?.list === list ? warming.at : 0 }
  if (running || !idle) return
  const slice = (deadline: { timeRemaining(): number }): void => {
    const job = warming
    if (!job) return
    while (job.at < job.list.length && deadline.timeRemaining() > 2) {
      const end = Math.min(job.list.length, job.at + 500)
      for (; job.at < end; job.at++) haystack(job.list[job.at])
    }
    if (job.at < job.list.length) idle(slice)
    else warming = undefined
  }
  idle(slice)
}

export function isFiltering(f: TimelineFilter): boolean {
  return Boolean(f.method || f.tool || f.status || f.source || f.proxy || f.session || f.pinned || f.text.trim())
}

/** The exchanges the filter lets through; `marked` tells a pinned or noted exchange (for the Pinned filter). */
export function applyFilter(list: TrafficEvent[], f: TimelineFilter, marked: (seq: number) => boolean = () => false): TrafficEvent[] {
  if (!isFiltering(f)) return list
  // `has:problem` in the search box: exchanges the insight checks found something in (the search language takes it over)
  const { hasProblem: problemsOnly, rest } = takeHasProblem(f.text)
  const text = rest.trim().toLowerCase()
  return list.filter(
    (e) =>
      (!f.method || e.method === f.method) &&
      (!f.session || e.sessionId === f.session) &&
      (!f.pinned || marked(e.seq)) &&
      (!f.tool || e.tool === f.tool) &&
      (!f.proxy || e.proxyId === f.proxy) &&
      (!f.status || statusKind(e) === f.status) &&
      (!f.source || (f.source === 'rule' ? Boolean(e.behavior && e.behavior !== 'relay') : e.source === f.source)) &&
      (!problemsOnly || hasProblem(e)) &&
      (!text || haystack(e).includes(text)),
  )
}

/** The ⚠ column: how many findings, and the worst severity ('' when none). */
export function problemsOf(e: TrafficEvent): { count: number; worst: string } {
  const problems = e.insight?.problems ?? []
  return { count: problems.length, worst: worstSeverity(problems) ?? '' }
}

/** the distinct methods and tools seen, for the filter menus */
export function distinct(list: TrafficEvent[]): { methods: string[]; tools: string[] } {
  const methods = new Set<string>()
  const tools = new Set<string>()
  for (const e of list) {
    methods.add(e.method)
    if (e.tool) tools.add(e.tool)
  }
  return { methods: [...methods].sort(), tools: [...tools].sort() }
}

export interface LaneBar {
  event: TrafficEvent
  lane: number
  start: number
  end: number
}

/** Greedy lane assignment: each exchange goes on the first lane free at its start (concurrency = lane count). */
export function assignLanes(list: TrafficEvent[], now: number): { bars: LaneBar[]; lanes: number; t0: number; t1: number } {
  const sorted = [...list].sort((a, b) => a.startedAt - b.startedAt)
  const laneEnds: number[] = []
  const bars: LaneBar[] = []
  let t0 = Infinity
  let t1 = -Infinity
  for (const event of sorted) {
    const start = event.startedAt
    const end = event.response ? start + Math.max(0, event.durationMs) : Math.max(start, now)
    let lane = laneEnds.findIndex((free) => free <= start)
    if (lane < 0) lane = laneEnds.push(end) - 1
    else laneEnds[lane] = end
    bars.push({ event, lane, start, end })
    t0 = Math.min(t0, start)
    t1 = Math.max(t1, end)
  }
  return { bars, lanes: laneEnds.length, t0: Number.isFinite(t0) ? t0 : 0, t1: Number.isFinite(t1) ? t1 : 0 }
}

/** Log bucket edges in ms: 1-2-5 per decade, from 1 ms to 100 s; below 1 ms is the first bucket. */
export const BUCKET_EDGES: number[] = (() => {
  const edges: number[] = []
  for (let decade = 1; decade <= 100_000; decade *= 10) for (const m of [1, 2, 5]) edges.push(m * decade)
  return edges
})()

export interface Bucket {
  /** inclusive lower edge (ms) */
  from: number
  /** exclusive upper edge (ms); Infinity for the last */
  to: number
  count: number
}

/** Latency histogram of the answered exchanges, trimmed to the range from the first to the last non-empty bucket. */
export function histogram(list: TrafficEvent[]): Bucket[] {
  const buckets: Bucket[] = [{ from: 0, to: BUCKET_EDGES[0], count: 0 }]
  BUCKET_EDGES.forEach((from, i) => buckets.push({ from, to: BUCKET_EDGES[i + 1] ?? Infinity, count: 0 }))
  for (const e of list) {
    if (!e.response) continue
    const d = Math.max(0, e.durationMs)
    let i = 0
    while (i < BUCKET_EDGES.length && d >= BUCKET_EDGES[i]) i++
    buckets[i].count++
  }
  const first = buckets.findIndex((b) => b.count > 0)
  if (first < 0) return []
  let last = buckets.length - 1
  while (buckets[last].count === 0) last--
  return buckets.slice(first, last + 1)
}

export function formatMs(ms: number): string {
  if (ms === Infinity) return '∞'
  if (ms >= 1000) return `${ms / 1000} s`
  return `${ms} ms`
}

export function formatTime(at: number): string {
  const d = new Date(at)
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0')
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
}

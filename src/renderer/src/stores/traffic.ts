import { create } from 'zustand'
import type { RewindApi, TrafficEvent } from '../../../shared/api.js'

/** The timeline's exchanges, newest last, at most CAPACITY (the oldest are dropped, as in the engine's buffer). */
export const TRAFFIC_CAPACITY = 100_000
/** events are applied in batches: one array copy per batch, not per event, keeps 100k rows cheap */
const FLUSH_MS = 50

interface TrafficState {
  exchanges: TrafficEvent[]
  /** paused: new exchanges are held back (not lost) until resume */
  paused: boolean
  /** how many exchanges arrived while paused */
  held: number
  /** exchanges dropped from the front because of the cap */
  dropped: number
  error?: string
  pause(): void
  resume(): void
  /** clears the engine's traffic buffer and the view */
  clear(): Promise<void>
}

const key = (e: TrafficEvent): string => `${e.proxyId}\u0000${e.seq}`

let api: RewindApi | undefined
let incoming: TrafficEvent[] = []
let heldBack: TrafficEvent[] = []
let timer: ReturnType<typeof setTimeout> | undefined
/** while a snapshot is in flight, events are kept aside and merged after it */
let syncing = false

function append(list: TrafficEvent[], more: TrafficEvent[]): { exchanges: TrafficEvent[]; cut: number } {
  const all = list.concat(more)
  const cut = Math.max(0, all.length - TRAFFIC_CAPACITY)
  return { exchanges: cut ? all.slice(cut) : all, cut }
}

export const useTraffic = create<TrafficState>()((set, get) => ({
  exchanges: [],
  paused: false,
  held: 0,
  dropped: 0,
  pause: () => set({ paused: true }),
  resume() {
    const { exchanges, cut } = append(get().exchanges, heldBack)
    heldBack = []
    set((s) => ({ paused: false, held: 0, exchanges, dropped: s.dropped + cut }))
  },
  async clear() {
    incoming = []
    heldBack = []
    set({ exchanges: [], held: 0, dropped: 0 })
    if (!api) return
    try {
      await api.call('traffic.clear', {})
    } catch (error) {
      set({ error: (error as Error).message })
    }
  },
}))

function flush(): void {
  timer = undefined
  if (syncing || incoming.length === 0) return
  const batch = incoming
  incoming = []
  const state = useTraffic.getState()
  if (state.paused) {
    heldBack = append(heldBack, batch).exchanges
    useTraffic.setState({ held: heldBack.length })
    return
  }
  const { exchanges, cut } = append(state.exchanges, batch)
  useTraffic.setState({ exchanges, dropped: state.dropped + cut })
}

/**
 * Queues exchanges for the next batch, exactly as live `traffic` events are (the api listener calls this).
 * Public so that the benchmark can inject synthetic traffic through the real path.
 */
export function ingestTraffic(events: TrafficEvent[]): void {
  for (const event of events) incoming.push(event)
  timer ??= setTimeout(flush, FLUSH_MS)
}

/** Runs the built-in demo (demo server + recording proxy + scripted agent); traffic follows as events. */
export async function startDemo(): Promise<void> {
  if (!api) throw new Error('mcp-rewind: not connected to the engine yet')
  await api.call('demo.start', {})
}

/** Applies pending events now (tests; the UI waits for the batch timer). */
export function flushTraffic(): void {
  clearTimeout(timer)
  flush()
}

/** Replaces the view with the engine's buffer, keeping the events that arrived during the call. */
export async function syncTraffic(): Promise<void> {
  if (!api) return
  syncing = true
  try {
    const snapshot = await api.call('traffic.snapshot', { limit: TRAFFIC_CAPACITY })
    const seen = new Set(snapshot.map(key))
    incoming = incoming.filter((e) => !seen.has(key(e)))
    heldBack = []
    useTraffic.setState({ exchanges: snapshot, held: 0, dropped: 0, error: undefined })
  } catch (error) {
    useTraffic.setState({ error: (error as Error).message })
  } finally {
    syncing = false
    flushTraffic()
  }
}

/** Feeds the store from the api: a snapshot now, then every traffic event. Returns the detach function. */
export function attachTraffic(client: RewindApi): () => void {
  api = client
  const off = client.on('traffic', (event) => ingestTraffic([event]))
  void syncTraffic()
  return () => {
    off()
    clearTimeout(timer)
    timer = undefined
    incoming = []
    heldBack = []
    if (api === client) api = undefined
  }
}

/**
 * Benchmark hook (bench/ui-timeline.ts): only when the page URL has `?bench` (e.g. `/?token=…&bench`),
 * `window.__rewindDebug` exposes the store's public ingest path. Absent in normal use.
 */
export interface RewindDebug {
  ingest(events: TrafficEvent[]): void
  flush(): void
  reset(): void
  count(): number
}
if (typeof window !== 'undefined' && new URLSearchParams(window.location.search).has('bench')) {
  ;(window as unknown as { __rewindDebug: RewindDebug }).__rewindDebug = {
    ingest: ingestTraffic,
    flush: flushTraffic,
    reset: () => {
      incoming = []
      heldBack = []
      useTraffic.setState({ exchanges: [], held: 0, dropped: 0 })
    },
    count: () => useTraffic.getState().exchanges.length,
  }
}

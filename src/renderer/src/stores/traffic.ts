import { create } from 'zustand';
import { UNDO_CLEAR_MS, type CommandInput, type InsightPatch, type TrafficEvent } from '../../../shared/api.js';
import { api } from '../api/current.js';

/** The engine's default timeline capacity; the one in effect comes from app.info (the Settings value at its start). */
const DEFAULT_CAPACITY = 100_000;
/** The engine's default timeline bytes (events with large bodies truncated); the one in effect comes from app.info. */
const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;
/** what an event without its size (an older engine) is taken to weigh */
const UNSIZED_BYTES = 4096;
/** events are applied in batches: one array copy per batch, not per event, keeps 100k rows cheap */
const FLUSH_MS = 50;

/** What a Clear removes: the rows shown (a proxy, a filter) or everything; `label` says which, in the toolbar. */
export interface ClearScope {
  label: string;
  /** undefined: every exchange */
  matches?: (event: TrafficEvent) => boolean;
  /** the scope is exactly one proxy's exchanges (the engine can clear them without a list) */
  proxyId?: string;
  /** exchanges Clear leaves (pinned or noted: the engine keeps them too) */
  keeps?: (event: TrafficEvent) => boolean;
}

interface TrafficState {
  exchanges: TrafficEvent[];
  /** the newest exchanges kept, as the engine keeps them (app.info) */
  capacity: number;
  /** …and within these bytes (each event says what it weighs) */
  maxBytes: number;
  /** an exchange (by its seq) whose truncated bodies were asked for: loading, in full, or gone (only one is held at a time) */
  full?: { seq: number; event?: TrafficEvent; gone?: string };
  /** paused: new exchanges are held back (not lost) until resume */
  paused: boolean;
  /** how many exchanges arrived while paused */
  held: number;
  /** exchanges dropped from the front because of the cap */
  dropped: number;
  error?: string;
  /** the timeline is being loaded from the engine a page at a time: exchanges received so far, of how many */
  loading?: { received: number; total: number };
  /** the last Clear, undoable (engine's token) until `until` (epoch ms) */
  cleared?: { count: number; label: string; until: number; undo?: string };
  pause(): void;
  resume(): void;
  /** removes the exchanges in scope, from the view and the engine; rejects with the engine's message */
  clear(scope: ClearScope): Promise<void>;
  /** puts back what the last Clear removed (while the engine still can) */
  undoClear(): Promise<void>;
  /** asks the engine for an exchange's bodies the timeline truncated ("Load full body") */
  loadFullBody(event: TrafficEvent): Promise<void>;
}

let incoming: TrafficEvent[] = [];
let heldBack: TrafficEvent[] = [];
/**
 * the checks' findings of exchanges already sent (the `insight` event), applied with the next batch; keyed by the
 * exchange's seq (unique across proxies and sources, as everywhere in the renderer)
 */
let insights = new Map<number, InsightPatch['insight']>();
let timer: ReturnType<typeof setTimeout> | undefined;
/** reloads in flight (they may overlap: a reconnect and a file opened); live events wait in `incoming` until none is */
let syncing = 0;

/**
 * The list with `more` in request order (timeline numbers follow the order requests came in; an exchange is published
 * when it ends, so a slow one arrives after a quicker later one). Almost always a plain append; the few that arrive
 * late are moved back among the newest.
 */
function inOrder(list: TrafficEvent[], more: TrafficEvent[]): TrafficEvent[] {
  if (more.length === 0) return list;
  const batch = more.length > 1 ? [...more].sort((a, b) => a.seq - b.seq) : more;
  if (list.length === 0 || batch[0].seq > list[list.length - 1].seq) return list.concat(batch);
  const out = list.slice();
  for (const event of batch) {
    let at = out.length;
    while (at > 0 && out[at - 1].seq > event.seq) at--;
    out.splice(at, 0, event);
  }
  return out;
}

/** The list with `more` added, the oldest cut beyond the capacity and the bytes. */
function append(list: TrafficEvent[], more: TrafficEvent[]): { exchanges: TrafficEvent[]; cut: number } {
  const all = inOrder(list, more);
  const { capacity, maxBytes } = useTraffic.getState();
  let cut = Math.max(0, all.length - capacity);
  let bytes = 0;
  for (let i = cut; i < all.length; i++) bytes += all[i].bytes ?? UNSIZED_BYTES;
  while (bytes > maxBytes && cut < all.length - 1) bytes -= all[cut++].bytes ?? UNSIZED_BYTES;
  return { exchanges: cut ? all.slice(cut) : all, cut };
}

let undoTimer: ReturnType<typeof setTimeout> | undefined;

export const useTraffic = create<TrafficState>()((set, get) => ({
  exchanges: [],
  capacity: DEFAULT_CAPACITY,
  maxBytes: DEFAULT_MAX_BYTES,
  paused: false,
  held: 0,
  dropped: 0,
  pause: () => set({ paused: true }),
  resume() {
    const { exchanges, cut } = append(get().exchanges, heldBack);
    heldBack = [];
    set((s) => ({ paused: false, held: 0, exchanges, dropped: s.dropped + cut }));
  },
  async clear(scope) {
    flushTraffic();
    const matches = scope.matches;
    const keeps = scope.keeps ?? (() => false);
    const input: CommandInput<'traffic.clear'> = !matches
      ? {}
      : scope.proxyId
        ? { proxyId: scope.proxyId }
        : {
            items: get()
              .exchanges.filter((e) => matches(e) && !keeps(e))
              .map((e) => ({ proxyId: e.proxyId, seq: e.seq })),
          };
    set((s) => ({
      exchanges: s.exchanges.filter((e) => keeps(e) || (matches ? !matches(e) : false)),
      ...(matches ? {} : { held: 0 }),
    }));
    if (!matches) heldBack = [];
    try {
      const answer = await api().call('traffic.clear', input);
      clearTimeout(undoTimer);
      set({
        cleared: { count: answer.cleared, label: scope.label, until: Date.now() + UNDO_CLEAR_MS, undo: answer.undo },
        error: undefined,
      });
      undoTimer = setTimeout(() => set({ cleared: undefined }), UNDO_CLEAR_MS);
    } catch (error) {
      set({ error: (error as Error).message });
      void syncTraffic(); // the view shows what the engine has
    }
  },
  async loadFullBody(event) {
    const { seq } = event;
    set({ full: { seq } });
    try {
      const answer = await api().call('traffic.body', { proxyId: event.proxyId, seq });
      if (get().full?.seq !== seq) return; // another one was asked for meanwhile
      set({ full: answer.held ? { seq, event: answer.event } : { seq, gone: answer.reason } });
    } catch (error) {
      if (get().full?.seq === seq) set({ full: { seq, gone: (error as Error).message } });
    }
  },
  async undoClear() {
    const undo = get().cleared?.undo;
    clearTimeout(undoTimer);
    set({ cleared: undefined });
    if (!undo) return;
    try {
      await api().call('traffic.undoClear', { undo });
    } catch (error) {
      set({ error: (error as Error).message });
    }
    await syncTraffic();
  },
}));

/** The list with the pending findings set on their exchanges (copies: events are immutable), newest first. */
function withInsights(list: TrafficEvent[]): TrafficEvent[] {
  let out = list;
  for (let i = list.length - 1; i >= 0 && insights.size > 0; i--) {
    const found = insights.get(list[i].seq);
    if (!found) continue;
    if (out === list) out = list.slice();
    out[i] = { ...list[i], insight: found };
    insights.delete(list[i].seq);
  }
  return out;
}

function flush(): void {
  timer = undefined;
  if (syncing > 0) return;
  if (insights.size > 0) {
    incoming = withInsights(incoming);
    heldBack = withInsights(heldBack);
    const state = useTraffic.getState();
    const exchanges = withInsights(state.exchanges);
    insights.clear(); // the rest belong to exchanges no longer shown
    if (exchanges !== state.exchanges) useTraffic.setState({ exchanges });
  }
  if (incoming.length === 0) return;
  const batch = incoming;
  incoming = [];
  const state = useTraffic.getState();
  if (state.paused) {
    heldBack = append(heldBack, batch).exchanges;
    useTraffic.setState({ held: heldBack.length });
    return;
  }
  const { exchanges, cut } = append(state.exchanges, batch);
  useTraffic.setState({ exchanges, dropped: state.dropped + cut });
}

/**
 * Queues exchanges for the next batch, exactly as live `traffic` events are (the api listener calls this).
 * Public so that the benchmark can inject synthetic traffic through the real path.
 */
export function ingestTraffic(events: TrafficEvent[]): void {
  for (const event of events) incoming.push(event);
  timer ??= setTimeout(flush, FLUSH_MS);
}

/** Queues the checks' findings of exchanges the store has (or is about to get), applied with the next batch. */
export function ingestInsight(patches: InsightPatch[]): void {
  for (const patch of patches) insights.set(patch.seq, patch.insight);
  timer ??= setTimeout(flush, FLUSH_MS);
}

/** Runs the built-in demo (demo server + recording proxy + scripted agent); traffic follows as events. */
export async function startDemo(): Promise<void> {
  await api().call('demo.start', {});
}

/** Applies pending events now (tests; the UI waits for the batch timer). */
export function flushTraffic(): void {
  clearTimeout(timer);
  flush();
}

/**
 * The engine's exchanges (all, or one proxy's or opened file's), oldest first, read a page at a time: each page is a
 * command of its own, so other commands are answered between them, and the toolbar says how far the load got.
 */
async function loadPages(proxyId?: string): Promise<TrafficEvent[]> {
  const events: TrafficEvent[] = [];
  let after: number | undefined;
  try {
    for (;;) {
      const page = await api().call('traffic.page', { ...(after === undefined ? {} : { after }), proxyId });
      for (const event of page.events) events.push(event);
      if (page.next === undefined) return events;
      after = page.next;
      useTraffic.setState({ loading: { received: events.length, total: Math.max(page.total, events.length) } });
    }
  } finally {
    useTraffic.setState({ loading: undefined });
  }
}

/** Replaces the view with the engine's buffer, keeping the events that arrived during the load. */
export async function syncTraffic(): Promise<void> {
  syncing++;
  const known = [...openSources]; // open before the snapshot was asked for: in it
  try {
    const snapshot = (await loadPages()).slice(-useTraffic.getState().capacity).sort((a, b) => a.seq - b.seq);
    const seen = new Set(snapshot.map((e) => e.seq));
    incoming = incoming.filter((e) => !seen.has(e.seq));
    heldBack = [];
    for (const id of known) loadedSources.add(id); // a full snapshot holds the open files' exchanges
    useTraffic.setState({ exchanges: snapshot, held: 0, dropped: 0, error: undefined });
  } catch (error) {
    useTraffic.setState({ error: (error as Error).message });
  } finally {
    syncing--;
    flushTraffic();
  }
}

/** the opened files whose exchanges the store has (a file opened later is fetched alone), and the files open */
const loadedSources = new Set<string>();
let openSources: string[] = [];

/**
 * Follows the files opened into the timeline (the 'sources' event): a newly opened file's exchanges are fetched on
 * their own — not the whole traffic again —, a closed file's leave the view. Falls back to a full reload when the
 * engine cannot answer one file's exchanges.
 */
export async function followSources(ids: string[]): Promise<void> {
  openSources = ids;
  const now = new Set(ids);
  const gone = new Set([...loadedSources].filter((id) => !now.has(id)));
  if (gone.size) {
    for (const id of gone) loadedSources.delete(id);
    useTraffic.setState((s) => ({ exchanges: s.exchanges.filter((e) => !gone.has(e.proxyId)) }));
  }
  for (const id of ids) {
    if (loadedSources.has(id)) continue;
    loadedSources.add(id);
    try {
      const events = (await loadPages(id)).slice(-useTraffic.getState().capacity);
      const have = new Set(
        useTraffic
          .getState()
          .exchanges.filter((e) => e.proxyId === id)
          .map((e) => e.seq),
      );
      const fresh = events.filter((e) => !have.has(e.seq));
      if (fresh.length === 0) continue;
      const { exchanges, cut } = append(useTraffic.getState().exchanges, fresh);
      useTraffic.setState((s) => ({ exchanges, dropped: s.dropped + cut }));
    } catch {
      loadedSources.delete(id);
      return syncTraffic();
    }
  }
}

/** Feeds the store from the api: a snapshot now, then every traffic event. Returns the detach function. */
export function attachTraffic(): () => void {
  const offTraffic = api().on('traffic', (event) => ingestTraffic([event]));
  const offInsight = api().on('insight', ingestInsight);
  const off = (): void => {
    offTraffic();
    offInsight();
  };
  void api()
    .call('app.info', {})
    .then((info) =>
      useTraffic.setState({ capacity: info.trafficCapacity, maxBytes: info.trafficBytes ?? DEFAULT_MAX_BYTES }),
    )
    .catch(() => {}) // an older engine: the default capacity
    .finally(() => void syncTraffic());
  return () => {
    off();
    clearTimeout(undoTimer);
    clearTimeout(timer);
    timer = undefined;
    incoming = [];
    heldBack = [];
    loadedSources.clear();
    insights = new Map();
  };
}

/**
 * Benchmark hook (bench/ui-timeline.ts): only when the page URL has `?bench` (e.g. `/?code=…&bench`),
 * `window.__rewindDebug` exposes the store's public ingest path. Absent in normal use.
 */
export interface RewindDebug {
  ingest(events: TrafficEvent[]): void;
  flush(): void;
  reset(): void;
  count(): number;
}
if (typeof window !== 'undefined' && new URLSearchParams(window.location.search).has('bench')) {
  (window as unknown as { __rewindDebug: RewindDebug }).__rewindDebug = {
    ingest: ingestTraffic,
    flush: flushTraffic,
    reset: () => {
      incoming = [];
      heldBack = [];
      useTraffic.setState({ exchanges: [], held: 0, dropped: 0 });
    },
    count: () => useTraffic.getState().exchanges.length,
  };
}

import { create } from 'zustand'
import type { CassetteEntrySummary, RewindApi } from '../../../shared/api.js'
import { createApi } from '../api/client.js'

/** how many recently opened folders are remembered (in localStorage) */
const RECENT_MAX = 8
const RECENT_KEY = 'mcp-rewind.cassettes.recent'

interface CassettesState {
  /** the open folder, as the engine resolved it */
  dir?: string
  entries: CassetteEntrySummary[]
  /** recently opened folders, newest first */
  recent: string[]
  loading: boolean
  error?: string
  /** the selected entry's file and its text as last read or saved */
  selected?: string
  text?: string
  /** opens a folder (and remembers it); rejects with the engine's message */
  open(dir: string): Promise<void>
  /** lists the open folder again (hits change as proxies replay) */
  refresh(): Promise<void>
  select(file: string | undefined): Promise<void>
  /** writes the selected entry; rejects with the engine's validation message */
  save(text: string): Promise<void>
  duplicate(file: string): Promise<CassetteEntrySummary>
  remove(file: string): Promise<void>
  rename(file: string, key: string): Promise<CassetteEntrySummary>
}

let api: RewindApi | undefined

/** The api the stores were attached with; until connection.ts attaches this store, a client of its own. */
export function cassettesApi(): RewindApi {
  api ??= createApi()
  return api
}

/** Lets connectStores share its client with this store (see attachProxies / attachTraffic). */
export function attachCassettes(next: RewindApi): () => void {
  api = next
  return () => {
    if (api === next) api = undefined
  }
}

function loadRecent(): string[] {
  try {
    const list = JSON.parse(globalThis.localStorage?.getItem(RECENT_KEY) ?? '[]') as unknown
    return Array.isArray(list) ? list.filter((d): d is string => typeof d === 'string').slice(0, RECENT_MAX) : []
  } catch {
    return []
  }
}

function saveRecent(recent: string[]): void {
  try {
    globalThis.localStorage?.setItem(RECENT_KEY, JSON.stringify(recent))
  } catch {
    // private mode or storage full: the list lives for this session only
  }
}

const upsert = (list: CassetteEntrySummary[], entry: CassetteEntrySummary): CassetteEntrySummary[] => {
  const next = list.filter((e) => e.file !== entry.file)
  next.push(entry)
  return next.sort((a, b) => a.n - b.n || a.file.localeCompare(b.file))
}

export const useCassettes = create<CassettesState>()((set, get) => {
  const folder = (): string => {
    const dir = get().dir
    if (!dir) throw new Error('open a cassette folder first')
    return dir
  }
  return {
    entries: [],
    recent: loadRecent(),
    loading: false,
    async open(input) {
      const wanted = input.trim()
      if (!wanted) throw new Error('give a cassette folder')
      set({ loading: true, error: undefined })
      try {
        const { dir, entries } = await cassettesApi().call('cassettes.list', { dir: wanted })
        const recent = [dir, ...get().recent.filter((d) => d !== dir)].slice(0, RECENT_MAX)
        saveRecent(recent)
        const keep = get().dir === dir ? get().selected : undefined
        set({ dir, entries, recent, loading: false, ...(keep ? {} : { selected: undefined, text: undefined }) })
      } catch (error) {
        set({ loading: false, error: (error as Error).message })
        throw error
      }
    },
    async refresh() {
      const dir = get().dir
      if (!dir) return
      try {
        const { entries } = await cassettesApi().call('cassettes.list', { dir })
        if (get().dir === dir) set({ entries, error: undefined })
      } catch (error) {
        set({ error: (error as Error).message })
      }
    },
    async select(file) {
      if (!file) return set({ selected: undefined, text: undefined })
      set({ selected: file, text: undefined })
      try {
        const { text } = await cassettesApi().call('cassettes.read', { dir: folder(), file })
        if (get().selected === file) set({ text })
      } catch (error) {
        set({ error: (error as Error).message })
      }
    },
    async save(text) {
      const file = get().selected
      if (!file) throw new Error('select an entry first')
      const { entry } = await cassettesApi().call('cassettes.write', { dir: folder(), file, text })
      set((s) => ({ entries: upsert(s.entries, entry), text }))
    },
    async duplicate(file) {
      const { entry } = await cassettesApi().call('cassettes.duplicate', { dir: folder(), file })
      set((s) => ({ entries: upsert(s.entries, entry) }))
      return entry
    },
    async remove(file) {
      await cassettesApi().call('cassettes.delete', { dir: folder(), file })
      set((s) => ({ entries: s.entries.filter((e) => e.file !== file), ...(s.selected === file ? { selected: undefined, text: undefined } : {}) }))
    },
    async rename(file, key) {
      const { entry } = await cassettesApi().call('cassettes.rename', { dir: folder(), file, key })
      set((s) => ({
        entries: upsert(
          s.entries.filter((e) => e.file !== file),
          entry,
        ),
        ...(s.selected === file ? { selected: entry.file } : {}),
      }))
      return entry
    },
  }
})

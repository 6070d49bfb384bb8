import { create } from 'zustand'

/** The views of the desktop UI, in nav order. */
export const VIEWS = [
  { id: 'timeline', label: 'Timeline', summary: 'Every exchange between client and server, live or replayed.' },
  { id: 'rules', label: 'Rules', summary: 'Relay, override or inject per tool, on top of any source.' },
  { id: 'cassettes', label: 'Cassettes', summary: 'Recorded exchanges on disk: browse, edit, replay.' },
  { id: 'export', label: 'Export', summary: 'Share a cassette or turn a session into a test fixture.' },
  { id: 'settings', label: 'Settings', summary: 'Upstream, mode, listen address and tokens.' },
] as const

export type ViewId = (typeof VIEWS)[number]['id']

interface NavigationState {
  view: ViewId
  select: (view: ViewId) => void
}

export const useNavigation = create<NavigationState>()((set) => ({
  view: 'timeline',
  select: (view) => set({ view }),
}))

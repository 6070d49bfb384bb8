import { create } from 'zustand'

/** Which of the workspace's drawers and dialogs are open (UI state only; nothing here reaches the engine). */
interface PanelsState {
  /** the Breakpoints drawer beside the traffic */
  breakpoints: boolean
  /** a paused call to show first in the drawer (Open on the banner) */
  focusPaused?: string
  /** the New proxy dialog */
  newProxy: boolean
  openBreakpoints(focusPaused?: string): void
  closeBreakpoints(): void
  setNewProxy(open: boolean): void
}

export const usePanels = create<PanelsState>()((set) => ({
  breakpoints: false,
  newProxy: false,
  openBreakpoints: (focusPaused) => set({ breakpoints: true, focusPaused }),
  closeBreakpoints: () => set({ breakpoints: false, focusPaused: undefined }),
  setNewProxy: (newProxy) => set({ newProxy }),
}))

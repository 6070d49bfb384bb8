import { create } from 'zustand';

/** Which of the workspace's drawers and dialogs are open (UI state only; nothing here reaches the engine). */
interface PanelsState {
  /** the Breakpoints drawer beside the traffic */
  breakpoints: boolean;
  /** a paused call to show first in the drawer (Open on the banner) */
  focusPaused?: string;
  /** the New proxy dialog */
  newProxy: boolean;
  /** the Compose drawer, and the proxy it opened for */
  compose: boolean;
  composeProxy?: string;
  /** the Open… (a file into the timeline) and Save… dialogs */
  openFile: boolean;
  save: boolean;
  openBreakpoints(focusPaused?: string): void;
  closeBreakpoints(): void;
  setNewProxy(open: boolean): void;
  openCompose(proxyId?: string): void;
  closeCompose(): void;
  setOpenFile(open: boolean): void;
  setSave(open: boolean): void;
}

export const usePanels = create<PanelsState>()((set) => ({
  breakpoints: false,
  newProxy: false,
  compose: false,
  openFile: false,
  save: false,
  // one drawer at a time: they take the same place beside the traffic
  openBreakpoints: (focusPaused) => set({ breakpoints: true, focusPaused, compose: false }),
  closeBreakpoints: () => set({ breakpoints: false, focusPaused: undefined }),
  setNewProxy: (newProxy) => set({ newProxy }),
  openCompose: (composeProxy) => set({ compose: true, composeProxy, breakpoints: false }),
  closeCompose: () => set({ compose: false }),
  setOpenFile: (openFile) => set({ openFile }),
  setSave: (save) => set({ save }),
}));

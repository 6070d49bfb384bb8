import { create } from 'zustand';

/** The views of the desktop UI, in nav order (Ctrl/Cmd+1…6 follow this order). */
export const VIEWS = [
  { id: 'timeline', label: 'Timeline', summary: 'Every exchange between client and server, live or replayed.' },
  { id: 'rules', label: 'Rules', summary: 'Relay, override or inject per tool, on top of any source.' },
  { id: 'cassettes', label: 'Cassettes', summary: 'Recorded exchanges on disk: browse, edit, replay.' },
  { id: 'export', label: 'Export', summary: 'Share a cassette or turn a session into a test fixture.' },
  { id: 'settings', label: 'Settings', summary: 'Theme, defaults and timeline, saved in the user data folder.' },
  {
    id: 'intercept',
    label: 'Intercept',
    summary: "Your MCP clients' servers: route one through mcp-rewind, and back.",
  },
] as const;

export type ViewId = (typeof VIEWS)[number]['id'];

const DEFAULT_VIEW: ViewId = 'timeline';

/** The view a URL hash names (`#/cassettes`, also `#cassettes`), or undefined. */
export function viewFromHash(hash: string): ViewId | undefined {
  const name = hash.replace(/^#\/?/, '').split(/[/?]/)[0].toLowerCase();
  return VIEWS.find((v) => v.id === name)?.id;
}

export const hashOf = (view: ViewId): string => `#/${view}`;

interface NavigationState {
  view: ViewId;
  /** shows a view; its name goes into the URL hash (a history entry, so back/forward work) */
  select: (view: ViewId) => void;
}

const hasLocation = typeof window !== 'undefined' && typeof window.location !== 'undefined';

export const useNavigation = create<NavigationState>()((set) => ({
  view: (hasLocation && viewFromHash(window.location.hash)) || DEFAULT_VIEW,
  select: (view) => {
    set({ view });
    if (hasLocation && viewFromHash(window.location.hash) !== view) window.location.hash = hashOf(view);
  },
}));

/**
 * Follows the URL hash: back/forward and a typed `#/rules` show that view. Without a (known) view name the hash is
 * set to the current view in place (no history entry). Returns the unsubscribe function.
 */
export function followHash(): () => void {
  if (!hasLocation) return () => {};
  const sync = (): void => {
    const view = viewFromHash(window.location.hash);
    if (view) {
      if (useNavigation.getState().view !== view) useNavigation.setState({ view });
      return;
    }
    const { pathname, search } = window.location;
    window.history.replaceState(
      window.history.state,
      '',
      `${pathname}${search}${hashOf(useNavigation.getState().view)}`,
    );
  };
  sync();
  window.addEventListener('hashchange', sync);
  return () => window.removeEventListener('hashchange', sync);
}

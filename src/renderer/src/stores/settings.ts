import { create } from 'zustand';
import type { Settings, SettingsInfo, SettingsPatch, Theme } from '../../../shared/settings.js';
import { api } from '../api/current.js';

/**
 * The app's settings, as the engine keeps them (settings.json in the user data folder; never localStorage): loaded
 * at start and after a reconnect, kept current by the 'settings' event (another window, or the Electron shell saving
 * the window state). The theme is applied to <html data-theme="light|dark">.
 */
interface SettingsState {
  settings?: Settings;
  file?: string;
  /** the settings file could not be read at start (the engine fell back to the defaults) */
  problem?: string;
  loaded: boolean;
  /** the last failed load or save (the engine's message names the field) */
  error?: string;
  /** the last save the engine refused, until a save succeeds or the user dismisses it (shown in every view) */
  unsaved?: string;
  saving: number;
  /** changes the given fields; rejects with the engine's message */
  update(patch: SettingsPatch): Promise<void>;
}

const fromInfo = (info: SettingsInfo): Pick<SettingsState, 'settings' | 'file' | 'problem' | 'loaded'> => ({
  settings: info.settings,
  file: info.file,
  problem: info.problem,
  loaded: true,
});

/** The settings with a patch applied, before the engine has validated it (only well-typed fields are taken). */
function optimistic(settings: Settings, patch: SettingsPatch): Settings {
  const next: Settings = { ...settings };
  for (const [key, value] of Object.entries(patch)) {
    if (key === 'window') {
      if (value === null) delete next.window;
      continue;
    }
    if (key in settings && typeof value === typeof settings[key as keyof Settings])
      Object.assign(next, { [key]: value });
  }
  return next;
}

export const useSettings = create<SettingsState>()((set, get) => ({
  loaded: false,
  saving: 0,
  async update(patch) {
    // shown at once (a radio button or checkbox must not wait for the round trip); undone if the engine refuses it
    const before = get().settings;
    if (before) set({ settings: optimistic(before, patch) });
    set((s) => ({ saving: s.saving + 1 }));
    try {
      const info = await api().call('settings.set', patch);
      set({ ...fromInfo(info), error: undefined, unsaved: undefined });
    } catch (error) {
      set({ error: (error as Error).message, unsaved: (error as Error).message });
      void syncSettings(true);
      throw error;
    } finally {
      set((s) => ({ saving: s.saving - 1 }));
    }
  },
}));

/** Reloads from the engine (at start and after a reconnect). */
export async function syncSettings(keepError = false): Promise<void> {
  try {
    const info = await api().call('settings.get', {});
    useSettings.setState(keepError ? fromInfo(info) : { ...fromInfo(info), error: undefined });
  } catch (error) {
    useSettings.setState({ error: (error as Error).message });
  }
}

// --- theme -------------------------------------------------------------------------------------------------------

const darkQuery = (): MediaQueryList | undefined =>
  typeof window !== 'undefined' && window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : undefined;

/** The theme shown for a setting: 'system' follows the OS (prefers-color-scheme). */
export function resolveTheme(theme: Theme, prefersDark = darkQuery()?.matches ?? false): 'light' | 'dark' {
  return theme === 'system' ? (prefersDark ? 'dark' : 'light') : theme;
}

function applyTheme(theme: Theme): void {
  if (typeof document === 'undefined') return;
  const root = document.documentElement;
  const shown = resolveTheme(theme);
  root.dataset.theme = shown;
  root.dataset.themeSetting = theme;
  root.style.colorScheme = shown; // native controls and scrollbars follow
}

/** Keeps <html data-theme> in step with the setting and, for 'system', with the OS. */
function followTheme(): () => void {
  const current = (): Theme => useSettings.getState().settings?.theme ?? 'system';
  applyTheme(current());
  const offStore = useSettings.subscribe((s, before) => {
    if (s.settings?.theme !== before.settings?.theme) applyTheme(current());
  });
  const query = darkQuery();
  const onOs = (): void => {
    if (current() === 'system') applyTheme('system');
  };
  query?.addEventListener('change', onOs);
  return () => {
    offStore();
    query?.removeEventListener('change', onOs);
  };
}

/** Feeds the store from the api: the settings now, then every 'settings' event; applies the theme. */
export function attachSettings(): () => void {
  const off = api().on('settings', (info) => useSettings.setState(fromInfo(info)));
  const offTheme = followTheme();
  void syncSettings();
  return () => {
    off();
    offTheme();
  };
}

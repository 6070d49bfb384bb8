// The desktop window's bounds and maximized state, remembered in settings.json (src/main/api/files/settings-file.ts):
// restored on start (fitted to the displays attached now), saved on move/resize (debounced), maximize and close.
import { screen, type BrowserWindow, type BrowserWindowConstructorOptions } from 'electron';
import type { WindowState } from '../../shared/settings';
import { fitWindow, type SettingsFile } from '../api/files/settings-file';

const DEFAULT_SIZE = { width: 1200, height: 800 };
const SAVE_DELAY_MS = 500;

/** Position and size for a new window: the saved ones when there are any (kept on a visible display), else the default. */
export function savedWindowOptions(settings: SettingsFile): {
  options: Pick<BrowserWindowConstructorOptions, 'x' | 'y' | 'width' | 'height'>;
  maximized: boolean;
} {
  const saved = settings.get().settings.window;
  if (!saved) return { options: { ...DEFAULT_SIZE }, maximized: false };
  const fitted = fitWindow(
    saved,
    screen.getAllDisplays().map((d) => d.workArea),
  );
  return {
    options: { x: fitted.x, y: fitted.y, width: fitted.width, height: fitted.height },
    maximized: fitted.maximized,
  };
}

function stateOf(win: BrowserWindow): WindowState {
  const b = win.getNormalBounds(); // the unmaximized bounds, also while maximized or minimized
  return {
    x: Math.round(b.x),
    y: Math.round(b.y),
    width: Math.round(b.width),
    height: Math.round(b.height),
    maximized: win.isMaximized(),
  };
}

const same = (a: WindowState | undefined, b: WindowState): boolean =>
  !!a && a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height && a.maximized === b.maximized;

/** Keeps the window's state in the settings; answers `saveNow` (for before-quit, when close may come too late). */
export function rememberWindowState(
  win: BrowserWindow,
  settings: SettingsFile,
  log: (line: string) => void,
): () => void {
  let timer: NodeJS.Timeout | undefined;
  const saveNow = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (win.isDestroyed() || win.isFullScreen()) return;
    const state = stateOf(win);
    if (same(settings.get().settings.window, state)) return;
    settings.set({ window: state }).catch((error: Error) => log(`cannot save the window state: ${error.message}`));
  };
  const later = (): void => {
    clearTimeout(timer);
    timer = setTimeout(saveNow, SAVE_DELAY_MS);
  };
  win.on('resize', later);
  win.on('move', later);
  win.on('maximize', saveNow);
  win.on('unmaximize', saveNow);
  win.on('close', saveNow);
  win.on('closed', () => clearTimeout(timer));
  return saveNow;
}

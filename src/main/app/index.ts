// Electron shell: one window, a menu, and the IPC adapter of the UI↔engine contract. Thin by design: everything the
// app does lives in the engine (src/main/engine, plain Node, never imports electron) behind the handler table of
// src/main/api, which the browser shell (src/main/web) serves over a WebSocket instead.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  app,
  BrowserWindow,
  ipcMain,
  Menu,
  shell,
  type IpcMainInvokeEvent,
  type MenuItemConstructorOptions,
} from 'electron';
import { EVENT_NAMES, type EventName } from '../../shared/api';
import { AppController } from '../api/app-controller';
import { createApiHandlers, toApiError } from '../api/handlers';
import { settingsFile } from '../api/files/settings-file';
import { claimDataDir } from '../web/data-owner';
import { userDataDir } from '../web/user-data';
import { rememberWindowState, savedWindowOptions } from './window-state';
import { guardStdStreams, writeStderr } from '../cli/process-guard';
import { persistentToken } from '../cli/token-file';
import { uiTokenFile } from '../web/ui-link';
import { startWebShell, type WebShell } from '../web/web-shell';

const isMac = process.platform === 'darwin';
const devServerUrl = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL;
const rendererFile = join(import.meta.dirname, '../renderer/index.html');
const preloadFile = join(import.meta.dirname, '../preload/index.cjs');
/** the app icon (resources/, shipped in the npm package and the desktop builds); macOS takes the bundle's icon instead */
const iconFile = join(import.meta.dirname, '../../resources/icons/256x256.png');

function buildMenu(): Menu {
  const template: MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' } as const] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ];
  return Menu.buildFromTemplate(template);
}

/** Only our own renderer may be shown in the window; everything else is refused. The hash names a view (#/rules). */
function isOwnPage(url: string): boolean {
  return devServerUrl ? url.startsWith(devServerUrl) : url.replace(/#.*$/s, '') === pathToFileURL(rendererFile).href;
}

function createWindow(): BrowserWindow {
  const saved = savedWindowOptions(settings); // the last bounds, kept on a display that is attached now
  const win = new BrowserWindow({
    title: 'mcp-rewind',
    icon: iconFile,
    ...saved.options,
    minWidth: 720,
    minHeight: 480,
    show: false,
    webPreferences: {
      preload: preloadFile,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  win.once('ready-to-show', () => {
    if (saved.maximized) win.maximize();
    win.show();
  });
  saveWindowStates.set(win, rememberWindowState(win, settings, warn));
  win.on('closed', () => saveWindowStates.delete(win));
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  win.webContents.on('will-navigate', (event, url) => {
    if (!isOwnPage(url)) event.preventDefault();
  });

  if (devServerUrl) void win.loadURL(devServerUrl);
  else void win.loadFile(rendererFile);
  return win;
}

guardStdStreams(); // started from a terminal that is then closed: writes to stderr must not crash the app
const warn = (line: string): void => writeStderr(`mcp-rewind: ${line}`);
// one app per user: a second start brings the first one's window forward (two would run the same saved proxies)
if (!app.requestSingleInstanceLock()) process.exit(0);
app.on('second-instance', () => {
  const win = BrowserWindow.getAllWindows()[0];
  if (win?.isMinimized()) win.restore();
  win?.focus();
});
const dataDir = userDataDir();
// this process manages the folder's proxies now: a browser UI (`mcp-rewind ui`) started meanwhile says so and stops
let dataClaim = claimDataDir(dataDir, { shell: 'electron' });
// settings.json of the user data folder (theme, window state, timeline capacity…); a bad file falls back to defaults
const settings = settingsFile(dataDir, warn);
const saveWindowStates = new Map<BrowserWindow, () => void>();
// an upstream's sign-in page opens in the system browser, where the user's accounts are (never in an app window)
const openUrl = (url: string): void => void shell.openExternal(url).catch(() => {});
const controller = new AppController({
  dataDir,
  trafficCapacity: settings.get().settings.trafficCapacity,
  version: app.getVersion(),
  openUrl,
});
const handlers = createApiHandlers(controller, { shell: 'electron', version: app.getVersion() }, settings); // package.json's version
const EVENTS: EventName[] = EVENT_NAMES;

// The local API of `mcp-rewind ui` for the owner's own programs (an attached wrapped server: `--stdio --attach`; a
// second `mcp-rewind ui`, which then opens this engine in a browser): loopback, the owner-only ui-token of the data
// folder, its address in owner.json. The same web shell as the browser UI's, over the same handler table.
const localApi: Promise<WebShell | undefined> = startWebShell({
  rendererDir: join(import.meta.dirname, '../renderer'),
  handlers,
  token: persistentToken(uiTokenFile(dataDir)).token,
  onLog: warn,
}).then(
  (shell) => {
    dataClaim.release();
    dataClaim = claimDataDir(dataDir, { shell: 'electron', origin: shell.origin });
    return shell;
  },
  (error: Error) => {
    warn(`no local API (attached servers will not show here): ${error.message}`);
    return undefined;
  },
);

/** Commands only from our own page; every failure becomes { ok: false, error } (as a WebSocket error frame). */
ipcMain.handle('rewind:call', async (event: IpcMainInvokeEvent, command: unknown, input: unknown) => {
  if (!event.senderFrame || !isOwnPage(event.senderFrame.url))
    return { ok: false, error: { message: 'refused: not the mcp-rewind page' } };
  try {
    return { ok: true, output: await handlers.call(String(command), input) };
  } catch (error) {
    return { ok: false, error: toApiError(error) };
  }
});

// every engine event goes to every window (the preload fans it out to the renderer's listeners)
for (const name of EVENTS) {
  handlers.on(name, (payload) => {
    for (const win of BrowserWindow.getAllWindows())
      if (!win.webContents.isDestroyed()) win.webContents.send('rewind:event', name, payload);
  });
}

let quitting = false;
app.on('before-quit', (event) => {
  if (quitting) return;
  quitting = true;
  event.preventDefault(); // stop the proxies first, then quit for real
  for (const save of saveWindowStates.values()) save(); // before-quit comes before the windows' close (Cmd-Q)
  void Promise.allSettled([localApi.then((shell) => shell?.close()), controller.close(), settings.flush()]).finally(
    () => {
      dataClaim.release();
      app.quit();
    },
  );
});

void app.whenReady().then(() => {
  Menu.setApplicationMenu(buildMenu());
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});

app.on('window-all-closed', () => {
  if (!isMac) app.quit();
});

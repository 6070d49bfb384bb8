// Electron shell: one window, a menu, nothing else. Thin by design: everything the app does lives in the engine
// (src/main/engine, plain Node, never imports electron) and reaches the UI through the preload bridge.
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { app, BrowserWindow, Menu, type MenuItemConstructorOptions } from 'electron'

const isMac = process.platform === 'darwin'
const devServerUrl = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL
const rendererFile = join(import.meta.dirname, '../renderer/index.html')
const preloadFile = join(import.meta.dirname, '../preload/index.cjs')

function buildMenu(): Menu {
  const template: MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' } as const] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ]
  return Menu.buildFromTemplate(template)
}

/** Only our own renderer may be shown in the window; everything else is refused. */
function isOwnPage(url: string): boolean {
  return devServerUrl ? url.startsWith(devServerUrl) : url === pathToFileURL(rendererFile).href
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    title: 'mcp-rewind',
    width: 1200,
    height: 800,
    minWidth: 720,
    minHeight: 480,
    show: false,
    webPreferences: {
      preload: preloadFile,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  })
  win.once('ready-to-show', () => win.show())
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }))
  win.webContents.on('will-navigate', (event, url) => {
    if (!isOwnPage(url)) event.preventDefault()
  })

  if (devServerUrl) void win.loadURL(devServerUrl)
  else void win.loadFile(rendererFile)
  return win
}

void app.whenReady().then(() => {
  Menu.setApplicationMenu(buildMenu())
  createWindow()
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow()
  })
})

app.on('window-all-closed', () => {
  if (!isMac) app.quit()
})

// Preload bridge (runs sandboxed, built as CommonJS). Placeholder for the typed api contract of src/shared/api.ts:
// for now it only tells the UI which shell it runs in.
import { contextBridge } from 'electron'

/** Injected at build time from package.json (see electron.vite.config.ts). */
declare const __REWIND_VERSION__: string

export interface RewindBridge {
  readonly version: string
  readonly platform: NodeJS.Platform
}

const bridge: RewindBridge = Object.freeze({
  version: __REWIND_VERSION__,
  platform: process.platform,
})

contextBridge.exposeInMainWorld('rewind', bridge)

// Preload bridge (runs sandboxed, built as CommonJS): exposes the UI↔engine contract (src/shared/api.ts) as
// window.rewind. Thin by design: commands go to ipcMain's 'rewind:call' (the same handler table as the browser
// shell's WebSocket bridge), events come back on 'rewind:event'.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { CallReply, EventName } from '../shared/api';

/** Injected at build time from package.json (see electron.vite.config.ts). */
declare const __REWIND_VERSION__: string;

export interface RewindBridge {
  readonly version: string;
  readonly platform: NodeJS.Platform;
  call(command: string, input: unknown): Promise<CallReply>;
  /** subscribes to an engine event; returns the unsubscribe function */
  on(event: EventName, listener: (payload: unknown) => void): () => void;
}

type Listener = (payload: unknown) => void;
const listeners = new Map<string, Set<Listener>>();

// one IPC listener for all events; the renderer's listeners never see the IpcRendererEvent (it exposes ipcRenderer)
ipcRenderer.on('rewind:event', (_event: IpcRendererEvent, name: string, payload: unknown) => {
  for (const listener of [...(listeners.get(name) ?? [])]) listener(payload);
});

const bridge: RewindBridge = Object.freeze({
  version: __REWIND_VERSION__,
  platform: process.platform,
  call: (command: string, input: unknown) => ipcRenderer.invoke('rewind:call', command, input) as Promise<CallReply>,
  on(event: EventName, listener: Listener) {
    const set = listeners.get(event) ?? new Set<Listener>();
    listeners.set(event, set);
    set.add(listener);
    return () => void set.delete(listener);
  },
});

contextBridge.exposeInMainWorld('rewind', bridge);

import type { RewindBridge } from '../../preload';

declare global {
  interface Window {
    /** Set by the Electron preload; absent when the UI runs in a plain browser (web shell). */
    readonly rewind?: RewindBridge;
  }
}

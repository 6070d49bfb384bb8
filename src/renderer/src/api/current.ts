import type { RewindApi } from '../../../shared/api.js';

/**
 * The one API client of the renderer. main.tsx creates it once (createApi) and connectStores injects it here; every
 * store calls through `api()`. Before it is injected (or after it was taken back) every call fails the same way:
 * with NOT_CONNECTED. While injected but disconnected, the client itself decides (the WebSocket client queues calls
 * for a while, then fails with a message that says so).
 */
export const NOT_CONNECTED = 'mcp-rewind: not connected to the engine yet';

let injected: RewindApi | undefined;

const absent: RewindApi = {
  call: () => Promise.reject(new Error(NOT_CONNECTED)),
  on: () => () => {},
};

/** Injects the client; answers the function that takes it back (only if it is still the injected one). */
export function provideApi(client: RewindApi): () => void {
  injected = client;
  return () => {
    if (injected === client) injected = undefined;
  };
}

/** The injected client, or one whose calls reject with NOT_CONNECTED. */
export function api(): RewindApi {
  return injected ?? absent;
}

import { create } from 'zustand';
import type { ConnectionStatus, RewindClient } from '../api/client.js';
import { provideApi } from '../api/current.js';
import { attachProxies, syncProxies } from './proxies.js';
import { attachTraffic, syncTraffic } from './traffic.js';
import { attachSettings, syncSettings } from './settings.js';
import { attachBreakpoints, syncBreakpoints } from './breakpoints.js';
import { attachVerbs, syncVerbs } from './verbs.js';

interface ConnectionState {
  transport?: RewindClient['transport'];
  status: ConnectionStatus;
}

export const useConnection = create<ConnectionState>()(() => ({ status: 'connecting' }));

/**
 * Injects the one client (api/current.ts) and wires every store to it; after a reconnect the stores reload (events
 * were missed meanwhile). Answers the function that undoes all of it.
 */
export function connectStores(client: RewindClient): () => void {
  const takeBack = provideApi(client);
  useConnection.setState({ transport: client.transport, status: client.status() });
  // the first load is queued by attach* until the connection opens; every later 'open' is a reconnect
  let opened = client.status() === 'open';
  const offStatus = client.onStatus((status) => {
    useConnection.setState({ status });
    if (status !== 'open') return;
    if (opened) {
      void syncProxies();
      void syncTraffic();
      void syncSettings();
      void syncBreakpoints();
      void syncVerbs();
    }
    opened = true;
  });
  const detach = [attachProxies(), attachTraffic(), attachSettings(), attachBreakpoints(), attachVerbs()];
  return () => {
    offStatus();
    for (const off of detach) off();
    takeBack();
  };
}

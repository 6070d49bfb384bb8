import { create } from 'zustand';
import type { CommandInput, ProxyInfo } from '../../../shared/api.js';
import { api } from '../api/current.js';

interface ProxiesState {
  proxies: ProxyInfo[];
  loaded: boolean;
  error?: string;
  /** creates and starts a proxy; rejects with the engine's message (it names the bad field) */
  create(config: CommandInput<'proxies.create'>): Promise<ProxyInfo>;
  start(id: string): Promise<void>;
  stop(id: string): Promise<void>;
  remove(id: string): Promise<void>;
  /** starts the sign-in of a proxy's upstream and opens its page (the desktop app opens the system browser itself) */
  signIn(id: string): Promise<void>;
  signOut(id: string): Promise<void>;
}

function upsert(list: ProxyInfo[], proxy: ProxyInfo): ProxyInfo[] {
  const at = list.findIndex((p) => p.id === proxy.id);
  return at < 0 ? [...list, proxy] : list.map((p, i) => (i === at ? proxy : p));
}

export const useProxies = create<ProxiesState>()((set) => {
  /** runs a command whose answer is the proxy's new state */
  const update = async (command: 'proxies.start' | 'proxies.stop', id: string): Promise<void> => {
    const proxy = await api().call(command, { id });
    set((s) => ({ proxies: upsert(s.proxies, proxy) }));
  };
  return {
    proxies: [],
    loaded: false,
    async create(config) {
      const proxy = await api().call('proxies.create', config);
      set((s) => ({ proxies: upsert(s.proxies, proxy) }));
      return proxy;
    },
    start: (id) => update('proxies.start', id),
    stop: (id) => update('proxies.stop', id),
    async signIn(id) {
      // the tab opens at once, inside the click (browsers block pop-ups opened later); the page follows when known
      const desktop = typeof (globalThis as { rewind?: { call?: unknown } }).rewind?.call === 'function';
      const tab = desktop ? null : window.open('about:blank', '_blank');
      if (tab) tab.opener = null; // the sign-in page gets no handle on this one
      try {
        const { url, opened } = await api().call('proxies.signIn', { id });
        if (tab && url && !opened) tab.location.href = url;
        else tab?.close();
      } catch (error) {
        tab?.close();
        throw error;
      }
    },
    async signOut(id) {
      const proxy = await api().call('proxies.signOut', { id });
      set((s) => ({ proxies: upsert(s.proxies, proxy) }));
    },
    async remove(id) {
      await api().call('proxies.remove', { id });
      set((s) => ({ proxies: s.proxies.filter((p) => p.id !== id) }));
    },
  };
});

/** Reloads the list from the engine (at start and after a reconnect). */
export async function syncProxies(): Promise<void> {
  try {
    const proxies = await api().call('proxies.list', {});
    useProxies.setState({ proxies, loaded: true, error: undefined });
  } catch (error) {
    useProxies.setState({ error: (error as Error).message });
  }
}

/** Feeds the store from the api: the list now, then every `proxies` event (the whole list). */
export function attachProxies(): () => void {
  const off = api().on('proxies', (proxies) => useProxies.setState({ proxies, loaded: true }));
  void syncProxies();
  return off;
}

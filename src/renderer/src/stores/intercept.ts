import { create } from 'zustand';
import type { CommandOutputs, ProxyInfo } from '../../../shared/api.js';
import type {
  InterceptClient,
  InterceptFolder,
  InterceptList,
  InterceptResult,
  InterceptSelection,
  InterceptServer,
} from '../../../shared/intercept.js';
import { api } from '../api/current.js';
import { useProxies } from './proxies.js';

/** A server as the view lists it: where it was found, with its file's key. */
export interface ListedServer extends InterceptServer {
  file: string;
  key: string;
}

type Plan = CommandOutputs['intercept.plan'];

interface InterceptState {
  list?: InterceptList;
  loading: boolean;
  error?: string;
  /** `key` of the selected server */
  selected?: string;
  /** what a Wrap or Unwrap would write, waiting for the user's go */
  plan?: Plan;
  /** what the last write did */
  result?: InterceptResult;
  busy: boolean;
  load(): Promise<void>;
  /** lists again when a proxy starts, stops or a process attaches (not for every exchange count); returns the unsubscribe */
  followProxies(): () => void;
  select(key: string | undefined): void;
  /** computes the diff of a wrap or unwrap (nothing is written) */
  propose(selection: InterceptSelection): Promise<void>;
  /** writes the plan shown */
  write(): Promise<void>;
  cancel(): void;
  /** looks in one more folder (a project, another home): kept by the app; rejects with the engine's reason */
  addFolder(folder: InterceptFolder): Promise<void>;
  removeFolder(path: string): Promise<void>;
}

/** what makes a server's state change: a proxy starting or stopping, a process attaching or leaving */
const states = (proxies: ProxyInfo[]): string =>
  proxies.map((p) => `${p.id}:${p.state}:${p.attached?.processes ?? ''}`).join();

export const serverKey = (file: string, name: string): string => `${file}\u0000${name}`;

/** Every server of the list, with its file. */
export function listedServers(client: InterceptClient): ListedServer[] {
  return client.files.flatMap((f) => f.servers.map((s) => ({ ...s, file: f.path, key: serverKey(f.path, s.name) })));
}

export function findServer(
  list: InterceptList | undefined,
  key: string | undefined,
): { client: InterceptClient; server: ListedServer } | undefined {
  for (const client of list?.clients ?? []) {
    const server = listedServers(client).find((s) => s.key === key);
    if (server) return { client, server };
  }
  return undefined;
}

export const useIntercept = create<InterceptState>()((set, get) => ({
  loading: false,
  busy: false,
  async load() {
    set({ loading: true });
    try {
      set({ list: await api().call('intercept.list', {}), error: undefined, loading: false });
    } catch (error) {
      set({ error: (error as Error).message, loading: false });
    }
  },
  followProxies() {
    let seen = states(useProxies.getState().proxies);
    return api().on('proxies', (proxies) => {
      const now = states(proxies);
      if (now !== seen) void get().load();
      seen = now;
    });
  },
  select: (selected) => set({ selected, plan: undefined, result: undefined }),
  async propose(selection) {
    set({ busy: true, result: undefined, error: undefined });
    try {
      set({ plan: await api().call('intercept.plan', selection), busy: false });
    } catch (error) {
      set({ error: (error as Error).message, busy: false });
    }
  },
  async write() {
    const plan = get().plan;
    if (!plan) return;
    set({ busy: true });
    try {
      const result = await api().call('intercept.apply', { planId: plan.planId });
      set({ result, plan: undefined, busy: false });
    } catch (error) {
      set({ error: (error as Error).message, busy: false });
    }
    await get().load();
  },
  cancel: () => set({ plan: undefined }),
  async addFolder(folder) {
    set({ list: await api().call('intercept.addFolder', folder) });
  },
  async removeFolder(path) {
    set({ list: await api().call('intercept.removeFolder', { path }) });
  },
}));

import type { ProxyConfig, ProxyInfo } from '../../shared/api.js';
import type { RewindClient } from '../../shared/api-client.js';
import { WorkspaceFile } from '../api/files/workspace-file.js';
import { liveOwner } from '../web/data-owner.js';
import { connectRunningUi } from '../web/ui-link.js';
import type { ProxyHost } from './apply.js';

/** The app proxy of a wrapped HTTP server: on the port its config now names, recording when asked. */
export function interceptProxyConfig(input: Parameters<ProxyHost['ensure']>[0]): ProxyConfig {
  return {
    name: input.target.slice(0, 100),
    mode: input.record ? 'record' : 'proxy-only',
    upstreamUrl: input.upstreamUrl,
    port: input.port,
    ...(input.record ? { cacheDir: input.record } : {}),
  };
}

/** Proxies through an API of the app (the app's own controller, or the running UI's API). */
export function apiProxyHost(call: {
  create(config: ProxyConfig): Promise<ProxyInfo>;
  remove(id: string): Promise<unknown>;
}): ProxyHost {
  return {
    ensure: async (input) => ({ id: (await call.create(interceptProxyConfig(input))).id }),
    remove: async ({ id }) => void (id && (await call.remove(id))),
  };
}

/**
 * For `mcp-rewind intercept` (no app of its own): the running UI makes the proxy; with no app running, it is added to
 * the data folder's workspace, so the app starts it on that port when it next starts.
 */
export function cliProxyHost(dataDir: string): ProxyHost {
  const withUi = async <T>(use: (client: RewindClient) => Promise<T>, offline: () => Promise<T>): Promise<T> => {
    const owner = await liveOwner(dataDir);
    if (!owner) return offline();
    const client = await connectRunningUi(dataDir);
    try {
      return await use(client);
    } finally {
      client.close();
    }
  };
  const workspace = new WorkspaceFile(dataDir, () => {});
  return {
    ensure: (input) =>
      withUi(
        async (client) => ({ id: (await client.call('proxies.create', interceptProxyConfig(input))).id }),
        async () => {
          const saved = workspace.load();
          const id = `p${Math.max(0, ...saved.map((p) => Number(/^p(\d+)$/.exec(p.id)?.[1] ?? 0))) + 1}`;
          workspace.save([
            ...saved,
            {
              id,
              name: input.target.slice(0, 100),
              config: interceptProxyConfig(input),
              running: true,
              breakpoints: [],
            },
          ]);
          await workspace.flush();
          return { id };
        },
      ),
    remove: (proxy) =>
      withUi(
        async (client) =>
          void (proxy.id && (await client.call('proxies.remove', { id: proxy.id }).catch(() => undefined))),
        async () => {
          workspace.save(workspace.load().filter((p) => p.id !== proxy.id && p.config.port !== proxy.port));
          await workspace.flush();
        },
      ),
  };
}

import { useEffect, type JSX } from 'react';
import { api } from '../api/current.js';
import type { ProxyInfo } from '../../../shared/api.js';
import { listedServers, useIntercept } from '../stores/intercept.js';
import { useProxies } from '../stores/proxies.js';
import { ClientList } from './intercept/ClientList';
import { FolderList } from './intercept/FolderList';
import { PlanPane } from './intercept/PlanPane';
import { ResultPane } from './intercept/ResultPane';
import { ServerDetail } from './intercept/ServerDetail';
import './intercept/intercept.css';

/** what makes a server's state change: a proxy starting or stopping, a process attaching or leaving */
const states = (proxies: ProxyInfo[]): string =>
  proxies.map((p) => `${p.id}:${p.state}:${p.attached?.processes ?? ''}`).join();

/**
 * The Intercept view: the MCP clients on this machine and the servers their config files name (left), the selected
 * server or the change a Wrap/Unwrap will write, as a diff (right). The list follows the proxies (an attached
 * process connecting makes its server live).
 */
export function InterceptView(): JSX.Element {
  const { list, loading, error, plan, load } = useIntercept();
  useEffect(() => {
    void load();
    // list again when a proxy starts, stops or a process attaches — not for every exchange count
    let seen = states(useProxies.getState().proxies);
    return api().on('proxies', (proxies) => {
      const now = states(proxies);
      if (now !== seen) void useIntercept.getState().load();
      seen = now;
    });
  }, [load]);
  const servers = list?.clients.flatMap(listedServers) ?? [];
  const through = servers.filter((s) => s.state === 'intercepted').length;
  const live = servers.filter((s) => s.watching).length;
  return (
    <div className="intercept-view">
      <section className="intercept-clients" aria-label="Clients">
        <div className="toolbar">
          <span className="small muted" data-testid="intercept-summary">
            {list
              ? `${list.clients.filter((c) => c.found).length} clients · ${servers.length} servers · ${through} through mcp-rewind · ${live} live`
              : 'looking…'}
          </span>
          <button type="button" disabled={loading} onClick={() => void load()}>
            Refresh
          </button>
        </div>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        <FolderList />
        <ClientList />
      </section>
      <section className="intercept-detail" aria-label={plan ? 'Change' : 'Server'}>
        <ResultPane />
        {plan ? <PlanPane /> : <ServerDetail />}
      </section>
    </div>
  );
}

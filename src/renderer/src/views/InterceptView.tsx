import { useEffect, type JSX } from 'react';
import { listedServers, useIntercept } from '../stores/intercept.js';
import { ClientList } from './intercept/ClientList';
import { FolderList } from './intercept/FolderList';
import { PlanPane } from './intercept/PlanPane';
import { ResultPane } from './intercept/ResultPane';
import { ServerDetail } from './intercept/ServerDetail';
import './intercept/intercept.css';

/**
 * The Intercept view: the MCP clients on this machine and the servers their config files name (left), the selected
 * server or the change a Wrap/Unwrap will write, as a diff (right). The list follows the proxies (an attached
 * process connecting makes its server live).
 */
export function InterceptView(): JSX.Element {
  const { list, loading, error, plan, load, followProxies } = useIntercept();
  useEffect(() => {
    void load();
    return followProxies();
  }, [load, followProxies]);
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

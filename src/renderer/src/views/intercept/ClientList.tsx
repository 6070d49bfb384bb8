import type { JSX } from 'react';
import type { InterceptClient } from '../../../../shared/intercept.js';
import { listedServers, useIntercept } from '../../stores/intercept.js';
import { launchLine, stateClass, stateLabel } from './labels';

/** One client: its files' servers as selectable rows, Wrap all / Unwrap all, and files that cannot be read. */
function ClientBlock({ client }: { client: InterceptClient }): JSX.Element {
  const { selected, select, propose, busy } = useIntercept();
  const servers = listedServers(client);
  const wrapped = servers.filter((s) => s.state === 'intercepted').length;
  return (
    <li className="client-block" aria-label={client.label}>
      <div className="client-head">
        <strong>{client.label}</strong>
        <span className="muted small">
          {servers.length} server{servers.length === 1 ? '' : 's'}
          {wrapped ? ` · ${wrapped} through mcp-rewind` : ''}
        </span>
        <span className="row-actions">
          <button
            type="button"
            className="small"
            disabled={busy || wrapped === servers.length}
            onClick={() => void propose({ action: 'wrap', client: client.id })}
          >
            Wrap all
          </button>
          <button
            type="button"
            className="small"
            disabled={busy || wrapped === 0}
            onClick={() => void propose({ action: 'unwrap', client: client.id })}
          >
            Unwrap all
          </button>
        </span>
      </div>
      <ul className="server-rows">
        {client.files
          .filter((f) => f.error)
          .map((f) => (
            <li key={f.path} className="file-error error small" role="alert">
              <code>{f.path}</code>: {f.error} — left as it is
            </li>
          ))}
        {servers.map((s) => (
          <li key={s.key}>
            <button
              type="button"
              className={`server-row ${stateClass(s)}`}
              aria-pressed={selected === s.key}
              data-target={s.target}
              onClick={() => select(s.key)}
            >
              <span className={`dot ${stateClass(s)}`} aria-hidden="true" />
              <span className="server-name">{s.name}</span>
              <span className="chip">{s.transport.kind}</span>
              <span className="chip scope">{s.scope}</span>
              <span className="launch muted" title={launchLine(s.original ?? s.transport)}>
                {launchLine(s.original ?? s.transport)}
              </span>
              <span className="state small">{stateLabel(s)}</span>
            </button>
          </li>
        ))}
      </ul>
    </li>
  );
}

/** Every client found, then the ones not found (with where they were looked for). */
export function ClientList(): JSX.Element {
  const list = useIntercept((s) => s.list);
  const found = list?.clients.filter((c) => c.found) ?? [];
  const missing = list?.clients.filter((c) => !c.found) ?? [];
  return (
    <>
      <ul className="client-list">
        {found.map((c) => (
          <ClientBlock key={c.id} client={c} />
        ))}
      </ul>
      {missing.length > 0 && (
        <details className="not-found small muted">
          <summary>Not found: {missing.map((c) => c.label).join(', ')}</summary>
          <ul>
            {missing.flatMap((c) =>
              c.searched.map((path) => (
                <li key={path}>
                  {c.label}: <code>{path}</code>
                </li>
              )),
            )}
          </ul>
        </details>
      )}
    </>
  );
}

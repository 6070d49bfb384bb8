import { useState, type JSX } from 'react';
import type { ServerTransport } from '../../../../shared/intercept.js';
import { findServer, useIntercept } from '../../stores/intercept.js';
import { useNavigation } from '../../stores/navigation.js';
import { useTimelineUi } from '../../stores/timeline-ui.js';
import { launchLine, stateClass, stateLabel } from './labels';

/** How a transport is launched or reached (env and header values are not shown: only their names). */
function Launch({ transport, title }: { transport: ServerTransport; title: string }): JSX.Element {
  const names = transport.kind === 'stdio' ? Object.keys(transport.env ?? {}) : Object.keys(transport.headers ?? {});
  return (
    <div className="launch-block">
      <h3>{title}</h3>
      <code className="launch-line">{launchLine(transport)}</code>
      {names.length > 0 && (
        <p className="small muted">
          {transport.kind === 'stdio' ? 'env' : 'headers'}: {names.join(', ')} (values kept as they are)
        </p>
      )}
    </div>
  );
}

function showOnTimeline(proxyId: string): void {
  useTimelineUi.getState().setFilter({ proxy: proxyId });
  useNavigation.getState().select('timeline');
}

/** The selected server: where it is, how it is launched (and, wrapped, what it runs in front of), Wrap or Unwrap. */
export function ServerDetail(): JSX.Element {
  const { list, selected, propose, busy } = useIntercept();
  const [record, setRecord] = useState('');
  const found = findServer(list, selected);
  if (!found)
    return (
      <p className="muted">
        Select a server to see how its client launches it, and route it through mcp-rewind with Wrap.
      </p>
    );
  const { client, server } = found;
  const selection = { client: client.id, server: server.name, file: server.file };
  return (
    <div className="server-detail">
      <header className="toolbar">
        <h2>
          {client.label} · {server.name}
        </h2>
        <span className={`badge ${stateClass(server)}`}>{stateLabel(server)}</span>
      </header>
      <p className="small">
        <code>{server.file}</code>{' '}
        <span className="muted">
          ({server.scope}
          {server.project ? ` · ${server.project}` : ''})
        </span>
      </p>
      {server.state === 'intercepted' && server.original ? (
        <>
          <Launch transport={server.original} title="The server (as it was)" />
          <Launch transport={server.transport} title="What the client runs now" />
        </>
      ) : (
        <Launch
          transport={server.transport}
          title={server.transport.kind === 'stdio' ? 'The client runs' : 'The client connects to'}
        />
      )}
      <div className="actions">
        {server.state === 'direct' ? (
          <>
            <label>
              Record to (optional cassette folder)
              <input value={record} onChange={(e) => setRecord(e.target.value)} placeholder="/path/to/cassette" />
            </label>
            <button
              type="button"
              className="primary"
              disabled={busy}
              onClick={() =>
                void propose({ action: 'wrap', ...selection, ...(record.trim() ? { record: record.trim() } : {}) })
              }
            >
              Wrap…
            </button>
          </>
        ) : (
          <>
            {server.proxyId && (
              <button type="button" onClick={() => showOnTimeline(server.proxyId!)}>
                Show its traffic
              </button>
            )}
            <button type="button" disabled={busy} onClick={() => void propose({ action: 'unwrap', ...selection })}>
              Unwrap…
            </button>
          </>
        )}
      </div>
      <p className="hint small muted">
        {server.transport.kind === 'stdio'
          ? 'Wrapped, the client starts mcp-rewind in front of the same command, args and env: its traffic shows here while the app runs; with no app it passes through.'
          : 'Wrapped, the client connects to a proxy of this app on a fixed port (headers kept): the app must run for the client to reach the server.'}{' '}
        {client.applyHint.charAt(0).toUpperCase() + client.applyHint.slice(1)}.
      </p>
    </div>
  );
}

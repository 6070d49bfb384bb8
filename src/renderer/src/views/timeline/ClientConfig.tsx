import { useState, type JSX } from 'react';
import type { ProxyInfo } from '../../../../shared/api.js';

/** a server name for the client's config: the proxy's name, made safe as a JSON key most clients accept */
function serverName(proxy: ProxyInfo): string {
  return proxy.name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '') || 'mcp-rewind';
}

/** The snippets a client needs to talk to a running proxy: the URL, and ready JSON for Cursor, VS Code, Claude Desktop. */
function clientConfigs(proxy: ProxyInfo): Array<{ id: string; label: string; text: string }> {
  const url = proxy.url ?? '';
  const name = serverName(proxy);
  const pretty = (value: unknown): string => JSON.stringify(value, null, 2);
  return [
    { id: 'url', label: 'URL (Streamable HTTP)', text: url },
    { id: 'cursor', label: 'Cursor (.cursor/mcp.json)', text: pretty({ mcpServers: { [name]: { url } } }) },
    { id: 'vscode', label: 'VS Code (.vscode/mcp.json)', text: pretty({ servers: { [name]: { type: 'http', url } } }) },
    {
      id: 'claude',
      label: 'Claude Desktop (claude_desktop_config.json)',
      text: pretty({ mcpServers: { [name]: { command: 'npx', args: ['-y', 'mcp-remote', url] } } }),
    },
  ];
}

/** "Copy client config" menu of one running proxy; each snippet is shown too (for environments without a clipboard). */
export function ClientConfig({ proxy }: { proxy: ProxyInfo }): JSX.Element {
  const [status, setStatus] = useState<Record<string, string>>({});
  const copy = (id: string, text: string): void => {
    navigator.clipboard
      .writeText(text)
      .then(() => setStatus({ [id]: 'copied' }))
      .catch(() => setStatus({ [id]: 'no clipboard here: select the text below' }));
  };
  return (
    <details className="client-config">
      <summary>Copy client config</summary>
      <div className="cfg-pop">
        {clientConfigs(proxy).map((c) => (
          <div key={c.id} className="cfg" data-config={c.id}>
            <header>
              <strong className="small">{c.label}</strong>
              <button type="button" className="small" onClick={() => copy(c.id, c.text)} aria-label={`Copy ${c.label}`}>
                Copy
              </button>
              {status[c.id] && <span className="muted small">{status[c.id]}</span>}
            </header>
            <pre>{c.text}</pre>
          </div>
        ))}
      </div>
    </details>
  );
}

import { useState, type FormEvent, type JSX } from 'react';
import { MODE_TRAITS } from '../../../../shared/modes.js';
import { useCassettes } from '../../stores/cassettes.js';
import { useProxies } from '../../stores/proxies.js';
import { useSettings } from '../../stores/settings.js';

/** The cassette folders the proxies use (unique, in proxy order). */
export function useProxyFolders(): Array<{ dir: string; proxy: string }> {
  const proxies = useProxies((s) => s.proxies);
  const seen = new Set<string>();
  const out: Array<{ dir: string; proxy: string }> = [];
  for (const p of proxies) {
    const dir = p.config.cacheDir;
    if (!dir || !MODE_TRAITS[p.config.mode].usesCassette || seen.has(dir)) continue;
    seen.add(dir);
    out.push({ dir, proxy: p.name });
  }
  return out;
}

/** Open any folder in mcp-rewind's layout: typed, from the recent list, or a proxy's cassette folder. */
export function FolderPicker(): JSX.Element {
  const { dir, loading, open } = useCassettes();
  const recent = useSettings((s) => s.settings?.recentFolders) ?? [];
  const folders = useProxyFolders();
  const [typed, setTyped] = useState(dir ?? '');
  const [error, setError] = useState<string>();

  async function go(target: string): Promise<void> {
    setTyped(target);
    setError(undefined);
    try {
      await open(target);
    } catch (e) {
      setError((e as Error).message);
    }
  }

  function submit(event: FormEvent): void {
    event.preventDefault();
    void go(typed);
  }

  return (
    <form className="card folder-picker" aria-label="Open cassette folder" onSubmit={submit}>
      <div className="actions">
        <label className="grow">
          Cassette folder
          <input
            value={typed}
            placeholder="/path/to/cache (absolute, or relative to where mcp-rewind runs)"
            spellCheck={false}
            onChange={(e) => setTyped(e.target.value)}
          />
        </label>
        <button type="submit" className="primary" disabled={loading || !typed.trim()}>
          {loading ? 'Opening…' : 'Open'}
        </button>
      </div>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {(folders.length > 0 || recent.length > 0) && (
        <div className="shortcuts">
          {folders.length > 0 && (
            <div>
              <span className="muted small">Proxies</span>
              <ul aria-label="Proxy cassette folders">
                {folders.map((f) => (
                  <li key={f.dir}>
                    <button type="button" className="link" title={f.dir} onClick={() => void go(f.dir)}>
                      {f.proxy}: <code>{f.dir}</code>
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          )}
          {recent.length > 0 && (
            <div>
              <span className="muted small">Recent</span>
              <ul aria-label="Recent folders">
                {recent.map((d) => (
                  <li key={d}>
                    <button type="button" className="link" onClick={() => void go(d)}>
                      <code>{d}</code>
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
      )}
    </form>
  );
}

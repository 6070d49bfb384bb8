import { useEffect, type JSX } from 'react';
import { useCassettes } from '../stores/cassettes.js';
import { useTraffic } from '../stores/traffic.js';
import { EntriesTable } from './cassettes/EntriesTable';
import { EntryEditor } from './cassettes/EntryEditor';
import { FolderPicker } from './cassettes/FolderPicker';
import './cassettes/cassettes.css';

/** how long after the last exchange the entry list (its hit counts) is refreshed */
const REFRESH_MS = 700;

/** The Cassettes view: open a folder, list its entries and their use, hand-edit, duplicate, rename, delete. */
export function CassettesView(): JSX.Element {
  const { dir, entries, selected, error, refresh, select } = useCassettes();
  const exchanges = useTraffic((s) => s.exchanges.length);
  const entry = entries.find((e) => e.file === selected);

  // replayed calls change the hit counts: list again shortly after traffic settles
  useEffect(() => {
    if (!dir) return;
    const timer = setTimeout(() => void refresh(), REFRESH_MS);
    return () => clearTimeout(timer);
  }, [dir, exchanges, refresh]);

  return (
    <div className="cassettes-view">
      <FolderPicker />
      {error && dir && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {dir ? (
        <div className={entry ? 'cassettes-split' : undefined}>
          <section aria-label="Entries">
            <div className="toolbar">
              <h2>
                <code>{dir}</code>
              </h2>
              <button type="button" onClick={() => void refresh()}>
                Refresh
              </button>
            </div>
            <EntriesTable entries={entries} selected={selected} onSelect={(file) => void select(file)} />
          </section>
          {entry && <EntryEditor entry={entry} />}
        </div>
      ) : (
        <p className="muted">
          Open a cassette folder — a proxy&apos;s, a recent one, or any folder recorded by mcp-rewind — to see its
          entries.
        </p>
      )}
    </div>
  );
}

import { Name } from '../../components/Name.js';
import { useState, type JSX } from 'react';
import type { CassetteEntrySummary } from '../../../../shared/api.js';
import { useCassettes } from '../../stores/cassettes.js';
import { JsonEditor } from '../../components/JsonEditor.js';
import { entryProblem } from '../../models/entry-check.js';

/** The selected entry: its distilled JSON in an editor (validated as you type), Save, Duplicate, Rename, Delete. */
export function EntryEditor({ entry }: { entry: CassetteEntrySummary }): JSX.Element {
  const text = useCassettes((s) => s.text);
  const { save, duplicate, remove, rename, select } = useCassettes.getState();
  const [draft, setDraft] = useState(text ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  const [newKey, setNewKey] = useState(entry.key);

  // another entry, or its text reloaded (after a save): the editor starts again from it (state adjusted while
  // rendering, as React advises, rather than in an effect after a render with the old state)
  const [textOf, setTextOf] = useState({ text, file: entry.file });
  if (textOf.text !== text || textOf.file !== entry.file) {
    setTextOf({ text, file: entry.file });
    setDraft(text ?? '');
    setError(undefined);
  }
  const [keyOf, setKeyOf] = useState({ file: entry.file, key: entry.key });
  if (keyOf.file !== entry.file || keyOf.key !== entry.key) {
    setKeyOf({ file: entry.file, key: entry.key });
    setNewKey(entry.key);
    setConfirming(false);
    setStatus(undefined);
  }

  const problem = text === undefined ? undefined : entryProblem(entry.file, entry.key, draft);
  const dirty = text !== undefined && draft !== text;

  async function run(label: string, action: () => Promise<string | undefined>): Promise<void> {
    setBusy(true);
    setError(undefined);
    setStatus(undefined);
    try {
      setStatus(await action());
    } catch (e) {
      setError(`${label}: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card entry-editor" aria-label="Entry editor">
      <div className="toolbar">
        <h2>
          <span className="muted">#{entry.n}</span>{' '}
          <code>
            <Name value={entry.key} />
          </code>
        </h2>
        <span className={`badge ${entry.hits > 0 ? 'used' : 'unused'}`}>
          {entry.hits > 0 ? `used ${entry.hits}×` : 'never matched'}
        </span>
        <button type="button" className="close" aria-label="Close entry" onClick={() => void select(undefined)}>
          ×
        </button>
      </div>
      <p
        className={problem ? 'error small' : 'muted small'}
        role={problem ? 'alert' : undefined}
        data-testid="json-status"
      >
        {problem ?? (dirty ? 'Valid entry · unsaved changes' : 'Valid entry')}
      </p>
      {error && (
        <p role="alert" className="error small">
          {error}
        </p>
      )}
      <div className="editor-frame">
        {text === undefined ? (
          <p className="muted">Loading…</p>
        ) : (
          <JsonEditor label="Entry JSON" value={text} onChange={setDraft} />
        )}
      </div>
      <div className="actions">
        <button
          type="button"
          className="primary"
          disabled={busy || !dirty || problem !== undefined}
          onClick={() => void run('Save', async () => (await save(draft), 'Saved: the next replayed call gets it'))}
        >
          Save
        </button>
        <button type="button" disabled={busy || !dirty} onClick={() => setDraft(text ?? '')}>
          Revert
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() => void run('Duplicate', async () => `Duplicated as ${(await duplicate(entry.file)).file}`)}
        >
          Duplicate
        </button>
        {confirming ? (
          <>
            <button
              type="button"
              className="danger"
              disabled={busy}
              onClick={() => void run('Delete', async () => (await remove(entry.file), undefined))}
            >
              Confirm delete
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </>
        ) : (
          <button type="button" disabled={busy} onClick={() => setConfirming(true)}>
            Delete…
          </button>
        )}
      </div>
      <form
        className="rename"
        aria-label="Rename entry"
        onSubmit={(e) => {
          e.preventDefault();
          void run('Rename', async () => `Renamed to ${(await rename(entry.file, newKey)).file}`);
        }}
      >
        <label>
          Key
          <input value={newKey} onChange={(e) => setNewKey(e.target.value)} spellCheck={false} />
        </label>
        <button type="submit" disabled={busy || !newKey.trim() || newKey === entry.key}>
          Rename
        </button>
        <span className="hint">keeps #{entry.n}; the key decides which request it answers</span>
      </form>
      {status && (
        <p aria-live="polite" className="muted small" data-testid="entry-status">
          {status}
        </p>
      )}
    </section>
  );
}

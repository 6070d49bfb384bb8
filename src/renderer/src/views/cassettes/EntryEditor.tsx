import { Name } from '../../components/Name.js';
import { useState, type JSX } from 'react';
import type { CassetteEntrySummary } from '../../../../shared/api.js';
import { useCassettes } from '../../stores/cassettes.js';
import { JsonEditor } from '../../components/JsonEditor.js';
import { entryProblem } from '../../models/entry-check.js';

type Run = (label: string, action: () => Promise<string | undefined>) => Promise<void>;

interface EntryAction {
  busy: boolean;
  error?: string;
  clearError(): void;
  status?: string;
  clearStatus(): void;
  /** runs an action on the entry: busy meanwhile, then its status line, or the error it met under `label` */
  run: Run;
}

function useEntryAction(): EntryAction {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [status, setStatus] = useState<string>();
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
  const clearError = (): void => setError(undefined);
  const clearStatus = (): void => setStatus(undefined);
  return { busy, error, clearError, status, clearStatus, run };
}

/**
 * The editor's text and the rename's key, started again from another entry or its text reloaded (after a save):
 * state adjusted while rendering, as React advises, rather than in an effect after a render with the old state.
 */
function useEntryDraft(entry: CassetteEntrySummary, text: string | undefined, action: EntryAction) {
  const [draft, setDraft] = useState(text ?? '');
  const [confirming, setConfirming] = useState(false);
  const [newKey, setNewKey] = useState(entry.key);
  const [textOf, setTextOf] = useState({ text, file: entry.file });
  if (textOf.text !== text || textOf.file !== entry.file) {
    setTextOf({ text, file: entry.file });
    setDraft(text ?? '');
    action.clearError();
  }
  const [keyOf, setKeyOf] = useState({ file: entry.file, key: entry.key });
  if (keyOf.file !== entry.file || keyOf.key !== entry.key) {
    setKeyOf({ file: entry.file, key: entry.key });
    setNewKey(entry.key);
    setConfirming(false);
    action.clearStatus();
  }
  return { draft, setDraft, confirming, setConfirming, newKey, setNewKey };
}

/** The selected entry: its distilled JSON in an editor (validated as you type), Save, Duplicate, Rename, Delete. */
export function EntryEditor({ entry }: { entry: CassetteEntrySummary }): JSX.Element {
  const text = useCassettes((s) => s.text);
  const action = useEntryAction();
  const { draft, setDraft, confirming, setConfirming, newKey, setNewKey } = useEntryDraft(entry, text, action);
  const { busy, error, status, run } = action;
  const problem = text === undefined ? undefined : entryProblem(entry.file, entry.key, draft);
  const dirty = text !== undefined && draft !== text;

  return (
    <section className="card entry-editor" aria-label="Entry editor">
      <EntryHead entry={entry} />
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
      <EntryActions
        file={entry.file}
        busy={busy}
        run={run}
        canSave={dirty && problem === undefined}
        dirty={dirty}
        onSave={async () => (await useCassettes.getState().save(draft), 'Saved: the next replayed call gets it')}
        onRevert={() => setDraft(text ?? '')}
        confirming={confirming}
        setConfirming={setConfirming}
      />
      <RenameForm entry={entry} busy={busy} run={run} newKey={newKey} setNewKey={setNewKey} />
      {status && (
        <p aria-live="polite" className="muted small" data-testid="entry-status">
          {status}
        </p>
      )}
    </section>
  );
}

function EntryHead({ entry }: { entry: CassetteEntrySummary }): JSX.Element {
  return (
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
      <button
        type="button"
        className="close"
        aria-label="Close entry"
        onClick={() => void useCassettes.getState().select(undefined)}
      >
        ×
      </button>
    </div>
  );
}

/** Save, Revert, Duplicate and Delete (asked to confirm first). */
function EntryActions(props: {
  file: string;
  busy: boolean;
  run: Run;
  canSave: boolean;
  dirty: boolean;
  onSave(): Promise<string>;
  onRevert(): void;
  confirming: boolean;
  setConfirming(confirming: boolean): void;
}): JSX.Element {
  const { file, busy, run } = props;
  const { duplicate, remove } = useCassettes.getState();
  return (
    <div className="actions">
      <button
        type="button"
        className="primary"
        disabled={busy || !props.canSave}
        onClick={() => void run('Save', props.onSave)}
      >
        Save
      </button>
      <button type="button" disabled={busy || !props.dirty} onClick={props.onRevert}>
        Revert
      </button>
      <button
        type="button"
        disabled={busy}
        onClick={() => void run('Duplicate', async () => `Duplicated as ${(await duplicate(file)).file}`)}
      >
        Duplicate
      </button>
      {props.confirming ? (
        <>
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={() => void run('Delete', async () => (await remove(file), undefined))}
          >
            Confirm delete
          </button>
          <button type="button" onClick={() => props.setConfirming(false)}>
            Cancel
          </button>
        </>
      ) : (
        <button type="button" disabled={busy} onClick={() => props.setConfirming(true)}>
          Delete…
        </button>
      )}
    </div>
  );
}

function RenameForm(props: {
  entry: CassetteEntrySummary;
  busy: boolean;
  run: Run;
  newKey: string;
  setNewKey(key: string): void;
}): JSX.Element {
  const { entry, newKey } = props;
  return (
    <form
      className="rename"
      aria-label="Rename entry"
      onSubmit={(e) => {
        e.preventDefault();
        void props.run(
          'Rename',
          async () => `Renamed to ${(await useCassettes.getState().rename(entry.file, newKey)).file}`,
        );
      }}
    >
      <label>
        Key
        <input value={newKey} onChange={(e) => props.setNewKey(e.target.value)} spellCheck={false} />
      </label>
      <button type="submit" disabled={props.busy || !newKey.trim() || newKey === entry.key}>
        Rename
      </button>
      <span className="hint">keeps #{entry.n}; the key decides which request it answers</span>
    </form>
  );
}

import { useId, useState, type FormEvent, type JSX } from 'react';
import type { InterceptFolder } from '../../../../shared/intercept.js';
import { useIntercept } from '../../stores/intercept.js';

/** the folder's own name (its path can be long: the name stays in view) */
const baseName = (path: string): string => path.split(/[\\/]/).filter(Boolean).pop() ?? path;

const KIND_LABELS: Record<InterceptFolder['kind'], string> = { project: 'project folder', home: 'home folder' };

/**
 * "Look also in": the folders the user added to the Intercept view (a project's own config files, or another home's
 * user files), as `--project` does in the CLI. Kept by the app; each can be removed; a folder that went away says so.
 */
export function FolderList(): JSX.Element {
  const folders = useIntercept((s) => s.list?.folders) ?? []; // (a new [] in the selector would render forever)
  const { addFolder, removeFolder } = useIntercept.getState();
  const [path, setPath] = useState('');
  const [kind, setKind] = useState<InterceptFolder['kind']>('project');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const id = useId();
  const run = (action: () => Promise<void>): void => {
    setBusy(true);
    setError(undefined);
    action()
      .catch((e: Error) => setError(e.message))
      .finally(() => setBusy(false));
  };
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    run(() => addFolder({ path: path.trim(), kind }).then(() => setPath('')));
  };
  return (
    <section className="intercept-folders" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Look also in</h2>
      <p className="muted small">
        A project (its .mcp.json, .cursor/, .vscode/…) or another home (its .claude.json, .cursor/…), besides this app’s
        own. A Wrap changes only the files found.
      </p>
      {folders.length > 0 && (
        <ul className="folder-rows" aria-label="Folders looked in">
          {folders.map((f) => (
            <li key={`${f.kind} ${f.path}`} aria-label={f.path}>
              <span className="folder-path" title={f.path}>
                <strong>{baseName(f.path)}</strong> <code className="muted">{f.path}</code>
              </span>
              <span className="chip">{KIND_LABELS[f.kind]}</span>
              {f.problem && <span className="error small">{f.problem}: not read</span>}
              <button
                type="button"
                className="small"
                disabled={busy}
                aria-label={`Remove ${f.path}`}
                onClick={() => run(() => removeFolder(f.path))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="folder-add" onSubmit={submit} aria-label="Add a folder to look in">
        <label htmlFor={`${id}-path`}>Folder</label>
        <input
          id={`${id}-path`}
          value={path}
          onChange={(e) => setPath(e.target.value)}
          placeholder="/home/me/work/my-project"
          spellCheck={false}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
        />
        <label htmlFor={`${id}-kind`}>as</label>
        <select id={`${id}-kind`} value={kind} onChange={(e) => setKind(e.target.value as InterceptFolder['kind'])}>
          <option value="project">a project folder</option>
          <option value="home">a home folder</option>
        </select>
        <button type="submit" disabled={busy || !path.trim()}>
          Add folder
        </button>
        {error && (
          <p id={`${id}-error`} role="alert" className="error small">
            {error}
          </p>
        )}
      </form>
    </section>
  );
}

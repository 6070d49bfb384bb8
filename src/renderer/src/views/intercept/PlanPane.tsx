import type { JSX } from 'react';
import { useIntercept } from '../../stores/intercept.js';
import { FileDiff } from './FileDiff';

/** What a Wrap or Unwrap will write, file by file, before anything is written; Write or Cancel. */
export function PlanPane(): JSX.Element | null {
  const { plan, busy, write, cancel } = useIntercept();
  if (!plan) return null;
  const verb = plan.action === 'wrap' ? 'Wrap' : 'Unwrap';
  return (
    <div className="plan-pane">
      <header className="toolbar">
        <h2>{verb}: review the change</h2>
        <button
          type="button"
          className="primary"
          disabled={busy || plan.changes.length === 0}
          onClick={() => void write()}
        >
          Write {plan.changes.length === 1 ? 'the change' : `${plan.changes.length} files`}
        </button>
        <button type="button" onClick={cancel}>
          Cancel
        </button>
      </header>
      {plan.changes.length === 0 && <p className="muted">Nothing to change.</p>}
      {plan.skipped.length > 0 && (
        <ul className="skipped small" aria-label="Left as they are">
          {plan.skipped.map((s) => (
            <li key={s}>{s}</li>
          ))}
        </ul>
      )}
      {plan.changes.map((c) => (
        <div key={c.path} className="plan-file">
          <p className="small">
            <code>{c.path}</code> <span className="muted">· {c.target}</span>
          </p>
          <FileDiff path={c.path} before={c.before} after={c.after} />
        </div>
      ))}
      {plan.hints.length > 0 && (
        <p className="hint small">
          Then: {plan.hints.join('; ')}. A backup of each file is kept beside it before its first change; Unwrap puts it
          back byte for byte.
        </p>
      )}
    </div>
  );
}

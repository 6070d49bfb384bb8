import type { JSX } from 'react';
import { useIntercept } from '../../stores/intercept.js';

/** What the last Write did, and what to do for it to apply (restart the client…). */
export function ResultPane(): JSX.Element | null {
  const result = useIntercept((s) => s.result);
  if (!result) return null;
  return (
    <div className="result notice" role="status">
      <ul>
        {result.written.map((w) => (
          <li key={`${w.path}:${w.target}`}>
            {result.action === 'wrap' ? 'Wrapped' : 'Unwrapped'} <strong>{w.target}</strong> in <code>{w.path}</code>
            {w.exact ? ' — restored byte for byte' : ''}
            {w.backup ? <span className="muted"> (backup: {w.backup})</span> : null}
          </li>
        ))}
        {result.skipped.map((s) => (
          <li key={s} className="error">
            Not written: {s}
          </li>
        ))}
      </ul>
      {result.hints.map((h) => (
        <p key={h} className="small">
          <strong>To apply:</strong> {h}
        </p>
      ))}
    </div>
  );
}

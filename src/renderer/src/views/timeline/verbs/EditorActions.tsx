import type { JSX, ReactNode } from 'react';

/** The row under a request editor: its buttons, then what went wrong last (read out as an alert). */
export function EditorActions({ error, children }: { error?: string; children: ReactNode }): JSX.Element {
  return (
    <div className="re-actions">
      {children}
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

import type { JSX } from 'react';
import type { ExportResult as Result } from '../../../../shared/api.js';
import { CommandLine } from './ExportPreview.js';

/** What an export wrote: the files (the first 20), the redactions and the command that replays it. */
export function ExportResult({ result }: { result: Result }): JSX.Element {
  return (
    <section className="card result" aria-label="Export result">
      <h2>Exported</h2>
      <p className="small" data-testid="export-result">
        Wrote {result.written.length} {result.written.length === 1 ? 'file' : 'files'} to <code>{result.out}</code>
        {result.redacted > 0 ? ` (${result.redacted} secret values redacted)` : ''}
      </p>
      <ul>
        {result.written.slice(0, 20).map((w) => (
          <li key={w}>
            <code>{w}</code>
          </li>
        ))}
        {result.written.length > 20 && <li className="muted">… and {result.written.length - 20} more</li>}
      </ul>
      <CommandLine command={result.command} />
    </section>
  );
}

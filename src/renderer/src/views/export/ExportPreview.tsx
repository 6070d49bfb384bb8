import { useState, type JSX } from 'react';
import type { ExportPreview as Preview } from '../../../../shared/api.js';
import { PUBLISHED_ON_NPM } from '../../../../shared/release.js';

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The CLI command, with a copy button. */
export function CommandLine({ command }: { command: string }): JSX.Element {
  const [copied, setCopied] = useState(false);
  return (
    <div className="command">
      <code data-testid="replay-command">{command}</code>
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard?.writeText(command).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}

/** What an export would write: files and sizes, redactions, and the command that replays it in CI. */
export function ExportPreview({ preview, har }: { preview: Preview; har: boolean }): JSX.Element {
  const total = preview.files.reduce((n, f) => n + f.bytes, 0);
  const shown = (path: string): string =>
    path.startsWith(preview.out + '/') || path.startsWith(preview.out + '\\')
      ? path.slice(preview.out.length + 1)
      : path;
  return (
    <section className="card export-preview" aria-label="Export preview">
      <h2>Preview</h2>
      <p className="small">
        <span data-testid="preview-summary">
          {preview.files.length} {preview.files.length === 1 ? 'file' : 'files'}, {formatBytes(total)}
        </span>{' '}
        → <code>{preview.out}</code>
      </p>
      <p className="small" data-testid="redactions">
        {preview.redacted > 0
          ? `${preview.redacted} secret ${preview.redacted === 1 ? 'value' : 'values'} written as "[REDACTED]"`
          : 'No secret in what will be written (0 values redacted)'}
        {preview.skipped.length > 0 && (
          <span className="error">
            {' '}
            · {preview.skipped.length} unreadable entries left out: {preview.skipped.join(', ')}
          </span>
        )}
      </p>
      <div className="table-scroll">
        <table className="grid" aria-label="Files to write">
          <thead>
            <tr>
              <th>File</th>
              <th className="num">Size</th>
            </tr>
          </thead>
          <tbody>
            {preview.files.map((f) => (
              <tr key={f.path}>
                <td>
                  <code>{shown(f.path)}</code>
                </td>
                <td className="num">{formatBytes(f.bytes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>{har ? 'Command that writes this HAR (HAR is for inspection; it does not replay)' : 'Replay it in CI'}</h3>
      <CommandLine command={preview.command} />
      <p className="small muted" data-testid="command-note">
        {PUBLISHED_ON_NPM ? (
          'It runs this version of mcp-rewind from npm, in any folder.'
        ) : (
          <>
            mcp-rewind is not on npm yet, so this command needs the package installed where it runs:{' '}
            <code>npm pack</code> in a checkout of mcp-rewind, keep the tarball with the CI job and run{' '}
            <code>npm install ./mcp-rewind-&lt;version&gt;.tgz</code> first; the command then runs that install.
          </>
        )}
      </p>
    </section>
  );
}

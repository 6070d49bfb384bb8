import { useEffect, useState, type JSX } from 'react';
import type { ExportFormat, ExportPreview as Preview, ExportResult } from '../../../shared/api.js';
import { previewExport, runExport, useCassettes } from '../stores/cassettes.js';
import { useSettings } from '../stores/settings.js';
import { useProxyFolders } from './cassettes/FolderPicker';
import { CommandLine, ExportPreview } from './export/ExportPreview';
import './export/export.css';

const FORMATS: Array<{ id: ExportFormat; label: string; hint: string; suggested: string }> = [
  {
    id: 'folder',
    label: 'Folder of replay files',
    hint: 'only the distilled <n> <key>.json files — commit it as is',
    suggested: 'cassette-ci',
  },
  {
    id: 'file',
    label: 'Single-file cassette',
    hint: 'one JSON file; --cache FILE replays it read-only',
    suggested: 'cassette.json',
  },
  {
    id: 'har',
    label: 'HAR 1.2',
    hint: 'for browser dev tools and HAR viewers; headers redacted',
    suggested: 'cassette.har',
  },
];
const PREVIEW_DELAY_MS = 250;

/** The Export view: a cassette for CI, previewed (files, sizes, redactions, replay command), then written. */
export function ExportView(): JSX.Element {
  const open = useCassettes((s) => s.dir);
  const recent = useSettings((s) => s.settings?.recentFolders) ?? [];
  const proxyFolders = useProxyFolders();
  const [dir, setDir] = useState(open ?? proxyFolders[0]?.dir ?? '');
  const [format, setFormat] = useState<ExportFormat>('file');
  const [out, setOut] = useState('');
  const [overwrite, setOverwrite] = useState(false);
  const [preview, setPreview] = useState<Preview>();
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ExportResult>();
  const sources = [...new Set([...(open ? [open] : []), ...proxyFolders.map((f) => f.dir), ...recent])];

  // new inputs: what was shown for the old ones goes (React's "adjust state on a prop change", not an effect)
  const inputs = JSON.stringify([dir, format, out, overwrite]);
  const [shownFor, setShownFor] = useState(inputs);
  if (shownFor !== inputs) {
    setShownFor(inputs);
    setPreview(undefined);
    setProblem(undefined);
    setResult(undefined);
  }
  useEffect(() => {
    if (!dir.trim() || !out.trim()) return;
    let current = true;
    const timer = setTimeout(() => {
      previewExport({ dir: dir.trim(), format, out: out.trim(), overwrite }).then(
        (p) => current && setPreview(p),
        (e: Error) => current && setProblem(e.message),
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [dir, format, out, overwrite]);

  async function run(): Promise<void> {
    setBusy(true);
    setProblem(undefined);
    try {
      setResult(await runExport({ dir: dir.trim(), format, out: out.trim(), overwrite }));
    } catch (e) {
      setProblem((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="export-view">
      <form
        className="card"
        aria-label="Export cassette"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <div className="fields">
          <label className="wide">
            Source folder
            <input
              list="export-sources"
              value={dir}
              placeholder="a cassette folder"
              spellCheck={false}
              onChange={(e) => setDir(e.target.value)}
            />
            <datalist id="export-sources">
              {sources.map((s) => (
                <option key={s} value={s} />
              ))}
            </datalist>
          </label>
        </div>
        <fieldset className="formats">
          <legend>Format</legend>
          {FORMATS.map((f) => (
            <label key={f.id} title={f.hint}>
              <input
                type="radio"
                name="format"
                value={f.id}
                checked={format === f.id}
                onChange={() => setFormat(f.id)}
              />
              {f.label}
            </label>
          ))}
        </fieldset>
        <p className="hint">{FORMATS.find((f) => f.id === format)?.hint}</p>
        <div className="fields">
          <label className="wide">
            Output path
            <input
              value={out}
              placeholder={`absolute, or relative to where mcp-rewind runs — e.g. ${FORMATS.find((f) => f.id === format)?.suggested}`}
              spellCheck={false}
              onChange={(e) => setOut(e.target.value)}
            />
          </label>
          <label className="check">
            <input type="checkbox" checked={overwrite} onChange={(e) => setOverwrite(e.target.checked)} />
            Overwrite
          </label>
        </div>
        {sources.length > 0 && !dir && <p className="hint">Known folders: {sources.join(', ')}</p>}
        {problem && (
          <p role="alert" className="error">
            {problem}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy || !preview}>
            {busy ? 'Exporting…' : 'Export'}
          </button>
          {!dir.trim() || !out.trim() ? (
            <span className="hint">Pick a source folder and an output path to see what will be written.</span>
          ) : null}
        </div>
      </form>
      {result && (
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
      )}
      {preview && <ExportPreview preview={preview} har={format === 'har'} />}
    </div>
  );
}

import type { JSX } from 'react';
import type { ExportFormat } from '../../../../shared/api.js';
import type { ExportState } from './use-export.js';

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

function SourceField({ exp }: { exp: ExportState }): JSX.Element {
  return (
    <div className="fields">
      <label className="wide">
        Source folder
        <input
          list="export-sources"
          value={exp.dir}
          placeholder="a cassette folder"
          spellCheck={false}
          onChange={(e) => exp.setDir(e.target.value)}
        />
        <datalist id="export-sources">
          {exp.sources.map((s) => (
            <option key={s} value={s} />
          ))}
        </datalist>
      </label>
    </div>
  );
}

function FormatFields({ exp }: { exp: ExportState }): JSX.Element {
  return (
    <>
      <fieldset className="formats">
        <legend>Format</legend>
        {FORMATS.map((f) => (
          <label key={f.id} title={f.hint}>
            <input
              type="radio"
              name="format"
              value={f.id}
              checked={exp.format === f.id}
              onChange={() => exp.setFormat(f.id)}
            />
            {f.label}
          </label>
        ))}
      </fieldset>
      <p className="hint">{FORMATS.find((f) => f.id === exp.format)?.hint}</p>
    </>
  );
}

function OutputFields({ exp }: { exp: ExportState }): JSX.Element {
  return (
    <div className="fields">
      <label className="wide">
        Output path
        <input
          value={exp.out}
          placeholder={`absolute, or relative to where mcp-rewind runs — e.g. ${FORMATS.find((f) => f.id === exp.format)?.suggested}`}
          spellCheck={false}
          onChange={(e) => exp.setOut(e.target.value)}
        />
      </label>
      <label className="check">
        <input type="checkbox" checked={exp.overwrite} onChange={(e) => exp.setOverwrite(e.target.checked)} />
        Overwrite
      </label>
    </div>
  );
}

/** The export's inputs (source, format, output, overwrite), its problem and the Export button. */
export function ExportForm({ exp }: { exp: ExportState }): JSX.Element {
  const { dir, out, sources, problem, busy, preview } = exp;
  return (
    <form
      className="card"
      aria-label="Export cassette"
      onSubmit={(e) => {
        e.preventDefault();
        void exp.run();
      }}
    >
      <SourceField exp={exp} />
      <FormatFields exp={exp} />
      <OutputFields exp={exp} />
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
  );
}

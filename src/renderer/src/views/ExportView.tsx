import type { JSX } from 'react';
import { ExportForm } from './export/ExportForm.js';
import { ExportPreview } from './export/ExportPreview.js';
import { ExportResult } from './export/ExportResult.js';
import { useExport } from './export/use-export.js';
import './export/export.css';

/** The Export view: a cassette for CI, previewed (files, sizes, redactions, replay command), then written. */
export function ExportView(): JSX.Element {
  const exp = useExport();
  return (
    <div className="export-view">
      <ExportForm exp={exp} />
      {exp.result && <ExportResult result={exp.result} />}
      {exp.preview && <ExportPreview preview={exp.preview} har={exp.format === 'har'} />}
    </div>
  );
}

import { useEffect, useState } from 'react';
import type { ExportFormat, ExportPreview, ExportResult } from '../../../../shared/api.js';
import { previewExport, runExport, useCassettes } from '../../stores/cassettes.js';
import { useSettings } from '../../stores/settings.js';
import { useProxyFolders } from '../cassettes/FolderPicker.js';

const PREVIEW_DELAY_MS = 250;

export interface ExportState {
  dir: string;
  setDir(dir: string): void;
  format: ExportFormat;
  setFormat(format: ExportFormat): void;
  out: string;
  setOut(out: string): void;
  overwrite: boolean;
  setOverwrite(overwrite: boolean): void;
  /** the folders to export from: the open one, the proxies' and the recent ones */
  sources: string[];
  preview: ExportPreview | undefined;
  problem: string | undefined;
  busy: boolean;
  result: ExportResult | undefined;
  run(): Promise<void>;
}

/** What is written, previewed a moment after the inputs settle (a preview that comes late for old inputs is dropped). */
function usePreview(
  { dir, format, out, overwrite }: { dir: string; format: ExportFormat; out: string; overwrite: boolean },
  setPreview: (preview: ExportPreview) => void,
  setProblem: (problem: string) => void,
): void {
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
  }, [dir, format, out, overwrite, setPreview, setProblem]);
}

/** The export's inputs, its preview and its run. */
export function useExport(): ExportState {
  const open = useCassettes((s) => s.dir);
  const recent = useSettings((s) => s.settings?.recentFolders) ?? [];
  const proxyFolders = useProxyFolders();
  const [dir, setDir] = useState(open ?? proxyFolders[0]?.dir ?? '');
  const [format, setFormat] = useState<ExportFormat>('file');
  const [out, setOut] = useState('');
  const [overwrite, setOverwrite] = useState(false);
  const [preview, setPreview] = useState<ExportPreview>();
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
  usePreview({ dir, format, out, overwrite }, setPreview, setProblem);

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

  return {
    dir,
    setDir,
    format,
    setFormat,
    out,
    setOut,
    overwrite,
    setOverwrite,
    sources,
    preview,
    problem,
    busy,
    result,
    run,
  };
}

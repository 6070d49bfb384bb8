import { useEffect, useRef, useState, type FormEvent, type JSX, type ReactNode } from 'react';
import type { SaveResult, TrafficEvent } from '../../../../../shared/api.js';
import { usePanels } from '../../../stores/panels.js';
import { openSource, saveTraffic, useVerbs } from '../../../stores/verbs.js';
import { useTimelineUi } from '../../../stores/timeline-ui.js';

/** A native modal <dialog> (focus kept inside, Esc closes) shown while `open`. */
function Modal({
  open,
  onClose,
  title,
  children,
}: {
  open: boolean;
  onClose(): void;
  title: string;
  children: ReactNode;
}): JSX.Element {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (open && !el.open) el.showModal();
    if (!open && el.open) el.close();
  }, [open]);
  return (
    <dialog ref={dialog} className="modal" aria-label={title} onClose={onClose}>
      {open && children}
    </dialog>
  );
}

/** Open…: a HAR file, a single-file cassette or a cassette folder into the timeline, as a read-only source. */
export function OpenFileDialog(): JSX.Element {
  const { openFile, setOpenFile } = usePanels();
  const setFilter = useTimelineUi((s) => s.setFilter);
  const [path, setPath] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const sources = useVerbs((s) => s.sources);

  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const info = await openSource(path);
      setFilter({ proxy: info.id }); // show what was opened
      setOpenFile(false);
      setPath('');
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Modal open={openFile} onClose={() => setOpenFile(false)} title="Open into the timeline">
      <form aria-label="Open into the timeline" onSubmit={(e) => void submit(e)}>
        <h2>Open into the timeline</h2>
        <p className="small muted">
          A HAR file (a browser&apos;s or mcp-rewind&apos;s), a single-file cassette or a cassette folder, on this
          machine. Its exchanges join the timeline read-only: search them, compare them, send them again through a
          running proxy.
        </p>
        <div className="form-grid">
          <label htmlFor="open-path">Path</label>
          <div className="control">
            <input
              id="open-path"
              value={path}
              onChange={(e) => setPath(e.target.value)}
              placeholder="/path/to/traffic.har or a cassette folder"
              spellCheck={false}
              autoFocus
              aria-invalid={error !== undefined}
            />
            {error && (
              <p className="field-error" role="alert">
                {error}
              </p>
            )}
          </div>
        </div>
        {sources.length > 0 && (
          <p className="small muted">
            Open now: {sources.map((s) => s.name).join(', ')} (close them from the proxies bar).
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={() => setOpenFile(false)}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy || path.trim() === ''}>
            {busy ? 'Opening…' : 'Open'}
          </button>
        </div>
      </form>
    </Modal>
  );
}

type Scope = 'all' | 'shown' | 'pinned' | 'selected';
const FORMATS = [
  ['har', 'HAR 1.2', 'what the client got, on the wire (opens in browsers’ network panels, and here)'],
  ['folder', 'Cassette folder', 'replays with mcp-rewind --replay --cache <folder>'],
  ['file', 'Single-file cassette', 'one JSON file; replays with --cache <file>'],
] as const;

type Format = 'har' | 'folder' | 'file';
type ScopeChoice = [Scope, string, TrafficEvent[]];

/** Which exchanges to save, with how many each choice holds; several picked in the table: Save… is about them. */
function useSaveScope(open: boolean, all: TrafficEvent[], shown: TrafficEvent[], selected: TrafficEvent[]) {
  const marks = useVerbs((s) => s.marks);
  const [scope, setScope] = useState<Scope>('all');
  const [offered, setOffered] = useState(false);
  if (open !== offered) {
    setOffered(open);
    if (open && selected.length > 1) setScope('selected');
  }
  const pinned = all.filter((e) => marks[e.seq]);
  const scopes: ScopeChoice[] = [
    ['all', 'Every exchange', all],
    ['shown', 'The ones the filter shows', shown],
    ['pinned', 'Pinned and noted', pinned],
    ['selected', selected.length > 1 ? 'The picked ones' : 'The selected one', selected],
  ];
  const chosen = scopes.find(([s]) => s === scope)?.[2] ?? [];
  return { scope, setScope, scopes, chosen };
}

/** Saving (busy meanwhile), then what was saved or why not. */
function useSaveRun() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [result, setResult] = useState<SaveResult>();
  async function run(request: Parameters<typeof saveTraffic>[0]): Promise<void> {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await saveTraffic(request));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, result, setResult, run };
}

/** Save…: the timeline, what the filter shows, the pinned exchanges or the selected ones, as HAR or a cassette. */
export function SaveDialog({
  all,
  shown,
  selected,
}: {
  all: TrafficEvent[];
  shown: TrafficEvent[];
  selected: TrafficEvent[];
}): JSX.Element {
  const { save, setSave } = usePanels();
  const [format, setFormat] = useState<Format>('har');
  const { scope, setScope, scopes, chosen } = useSaveScope(save, all, shown, selected);
  const [out, setOut] = useState('');
  const [overwrite, setOverwrite] = useState(false);
  const { busy, error, result, setResult, run } = useSaveRun();

  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault();
    await run({ format, out, overwrite, ...(scope === 'all' ? {} : { seqs: chosen.map((e) => e.seq) }) });
  }

  return (
    <Modal open={save} onClose={() => (setSave(false), setResult(undefined))} title="Save exchanges">
      <form aria-label="Save exchanges" onSubmit={(e) => void submit(e)}>
        <h2>Save exchanges</h2>
        <div className="form-grid">
          <span className="label">Format</span>
          <div className="control">
            <FormatChoice format={format} onFormat={setFormat} />
          </div>
          <span className="label">Which</span>
          <div className="control">
            <ScopeChoices scopes={scopes} scope={scope} onScope={setScope} />
          </div>
          <label htmlFor="save-out">{format === 'folder' ? 'Folder' : 'File'}</label>
          <div className="control">
            <input
              id="save-out"
              value={out}
              onChange={(e) => setOut(e.target.value)}
              placeholder={
                format === 'har'
                  ? '/path/to/traffic.har'
                  : format === 'folder'
                    ? '/path/to/cassette'
                    : '/path/to/cassette.json'
              }
              spellCheck={false}
              aria-invalid={error !== undefined}
            />
            <label className="inline small">
              <input type="checkbox" checked={overwrite} onChange={(e) => setOverwrite(e.target.checked)} /> replace
              what is there
            </label>
            {error && (
              <p className="field-error" role="alert">
                {error}
              </p>
            )}
          </div>
        </div>
        <p className="small muted">
          Secrets are redacted (session ids, credential headers and keys). A cassette keeps what the source answered —
          as recording would — and leaves errors out; HAR keeps what the client got.
        </p>
        {result && <SavedLine result={result} />}
        <div className="dialog-actions">
          <button type="button" onClick={() => (setSave(false), setResult(undefined))}>
            {result ? 'Close' : 'Cancel'}
          </button>
          <button type="submit" className="primary" disabled={busy || out.trim() === '' || chosen.length === 0}>
            {busy ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </Modal>
  );
}

function FormatChoice({ format, onFormat }: { format: Format; onFormat(format: Format): void }): JSX.Element {
  return (
    <>
      {FORMATS.map(([id, label, hint]) => (
        <label key={id} className="inline">
          <input type="radio" name="save-format" checked={format === id} onChange={() => onFormat(id)} /> {label}{' '}
          <span className="muted small">— {hint}</span>
        </label>
      ))}
    </>
  );
}

function ScopeChoices(props: { scopes: ScopeChoice[]; scope: Scope; onScope(scope: Scope): void }): JSX.Element {
  return (
    <>
      {props.scopes.map(([id, label, list]) => (
        <label key={id} className="inline">
          <input
            type="radio"
            name="save-scope"
            checked={props.scope === id}
            disabled={list.length === 0}
            onChange={() => props.onScope(id)}
          />{' '}
          {label} ({list.length})
        </label>
      ))}
    </>
  );
}

/** How many were saved where, the secrets redacted and what was left out. */
function SavedLine({ result }: { result: SaveResult }): JSX.Element {
  return (
    <p className="small" role="status">
      Saved {result.exchanges} exchange{result.exchanges === 1 ? '' : 's'} to <code>{result.out}</code>
      {result.redacted ? ` · ${result.redacted} secret value${result.redacted === 1 ? '' : 's'} redacted` : ''}
      {result.skipped.length
        ? ` · left out: ${result.skipped.slice(0, 3).join('; ')}${result.skipped.length > 3 ? ` (+${result.skipped.length - 3})` : ''}`
        : ''}
    </p>
  );
}

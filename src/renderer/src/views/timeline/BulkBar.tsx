import { useState, type JSX } from 'react';
import type { TrafficEvent } from '../../../../shared/api.js';
import { focusTable } from '../../components/focus.js';
import { usePanels } from '../../stores/panels.js';
import { useTraffic } from '../../stores/traffic.js';
import { annotate, useVerbs } from '../../stores/verbs.js';
import { useTimelineUi } from '../../stores/timeline-ui.js';
import { NoteInput } from '../../components/NoteInput.js';

/**
 * The verbs of several picked exchanges (Shift/Ctrl-click, Shift+arrows, Ctrl+A): pin or unpin them, note them, save
 * them (HAR or a cassette), compare two, remove them from the view (undoable, pinned ones stay).
 */
export function BulkBar({ rows }: { rows: TrafficEvent[] }): JSX.Element {
  const marks = useVerbs((s) => s.marks);
  const { clearPicked, select, compare } = useTimelineUi();
  const setSave = usePanels((s) => s.setSave);
  const clear = useTraffic((s) => s.clear);
  const [noting, setNoting] = useState(false);
  const [note, setNote] = useState('');
  const [error, setError] = useState<string>();
  const allPinned = rows.every((e) => marks[e.seq]?.pinned);

  const each = async (patch: { pinned?: boolean; note?: string }): Promise<void> => {
    setError(undefined);
    try {
      for (const e of rows) await annotate(e.seq, patch);
    } catch (err) {
      setError((err as Error).message);
    }
  };

  const remove = (): void => {
    const seqs = new Set(rows.map((e) => e.seq));
    void clear({
      label: `${rows.length} picked`,
      matches: (e) => seqs.has(e.seq),
      keeps: (e) => useVerbs.getState().marks[e.seq] !== undefined,
    }).catch((err: Error) => setError(err.message));
    clearPicked();
    focusTable();
  };

  return (
    <div className="tl-bulk" role="toolbar" aria-label="Picked exchanges">
      <strong data-testid="picked-count">{rows.length} picked</strong>
      <button type="button" className="small" onClick={() => void each({ pinned: !allPinned })}>
        {allPinned ? '☆ Unpin all' : '★ Pin all'}
      </button>
      {noting ? (
        <NoteInput
          label="Note for the picked exchanges"
          placeholder="a note for each (Enter saves)"
          value={note}
          onChange={setNote}
          onSave={() => (setNoting(false), void each({ note: note.trim() }))}
          onCancel={() => setNoting(false)}
          onBlur={() => setNoting(false)}
        />
      ) : (
        <button type="button" className="small" onClick={() => (setNote(''), setNoting(true))}>
          Note…
        </button>
      )}
      <button
        type="button"
        className="small"
        onClick={() => setSave(true)}
        title="Save the picked exchanges as HAR or as a cassette"
      >
        Save…
      </button>
      <button
        type="button"
        className="small"
        disabled={rows.length !== 2}
        title={rows.length === 2 ? 'Diff the two picked exchanges' : 'pick exactly two to compare them'}
        onClick={() => {
          select(rows[0].seq, true);
          compare({ kind: 'exchange', seq: rows[1].seq });
        }}
      >
        ⇄ Compare
      </button>
      <button
        type="button"
        className="small"
        onClick={remove}
        title="Remove them from the timeline (pinned ones stay); undo for 10 s"
      >
        Remove from view
      </button>
      <button type="button" className="small" onClick={() => (clearPicked(), focusTable())} aria-label="Unpick">
        ✕
      </button>
      {error && (
        <span className="error small" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

import { useState, type JSX } from 'react';
import type { TrafficEvent } from '../../../../../shared/api.js';
import { Name } from '../../../components/Name.js';
import { JsonTree } from './JsonTree.js';
import { messageSummary } from './message-summary.js';

/** The messages streamed before the answer, one compact line each with its time from the request; each expands. */
export function StreamList({ event }: { event: TrafficEvent }): JSX.Element {
  const [open, setOpen] = useState<number>();
  if (event.stream.length === 0) return <p className="muted small">Nothing was streamed before the answer.</p>;
  return (
    <ol className="stream-list" aria-label="Streamed messages">
      {event.stream.map((message, i) => {
        const at = event.timing?.stream?.[i];
        const method = (message as { method?: string }).method ?? 'reply';
        return (
          <li key={i} aria-label={`#${i + 1} ${method}`}>
            <button
              type="button"
              className="stream-row"
              aria-expanded={open === i}
              onClick={() => setOpen(open === i ? undefined : i)}
            >
              <span className="stream-at">
                {at === undefined ? '' : `+${at < 10 ? at.toFixed(1) : Math.round(at)} ms`}
              </span>
              <span className="stream-n">#{i + 1}</span>
              <span className="stream-text">
                <Name value={messageSummary(message)} />
              </span>
            </button>
            {open === i && <JsonTree value={message} label={`Message ${i + 1}`} maxHeight={240} />}
          </li>
        );
      })}
    </ol>
  );
}

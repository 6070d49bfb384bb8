import type { JSX } from 'react';
import type { TrafficEvent } from '../../../../shared/api.js';
import { Name } from '../../components/Name.js';
import { isChanged, statusKind, statusLabel } from './model.js';

/** The detail's title line (method, tool, status, duration, changed) and its close button. */
export function DetailHead({ event, onClose }: { event: TrafficEvent; onClose: () => void }): JSX.Element {
  return (
    <header className="tl-detail-head">
      <div className="tl-detail-title">
        <strong>
          <code>
            <Name value={event.method} />
          </code>{' '}
          {event.tool && <Name value={event.tool} />}
        </strong>
        <span className={`st st-${statusKind(event).replace(' ', '-')}`}>{statusLabel(event)}</span>
        {event.response && <span className="muted small">{Math.round(event.durationMs)} ms</span>}
        {isChanged(event) && <span className="changed-flag">✎ changed</span>}
      </div>
      <button type="button" onClick={onClose} aria-label="Close detail" title="Close (Esc)">
        ✕
      </button>
    </header>
  );
}

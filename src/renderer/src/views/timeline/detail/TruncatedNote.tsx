import type { JSX } from 'react';
import type { TrafficEvent } from '../../../../../shared/api.js';
import { useTraffic } from '../../../stores/traffic.js';

const size = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.round(bytes / 1024)} kB`;

/** The exchange in full when its truncated bodies were loaded for it, else the exchange as the timeline keeps it. */
export function useFullExchange(event: TrafficEvent): TrafficEvent {
  return useTraffic((s) => (s.full?.seq === event.seq ? s.full.event : undefined)) ?? event;
}

/** Says which bodies the timeline truncated (to keep its memory bounded) and loads them in full from the engine. */
export function TruncatedNote({ event }: { event: TrafficEvent }): JSX.Element | null {
  const full = useTraffic((s) => (s.full?.seq === event.seq ? s.full : undefined));
  const load = useTraffic((s) => s.loadFullBody);
  const cut = event.truncated;
  if (!cut) return null;
  const parts = (['request', 'response', 'stream', 'original'] as const)
    .filter((p) => cut[p] !== undefined)
    .map((p) => `${p} ${size(cut[p] as number)}`);
  if (full?.event)
    return (
      <p className="filtered-out small" role="note">
        Showing the full exchange ({parts.join(', ')}).
      </p>
    );
  return (
    <p className="filtered-out small" role="note">
      Large body truncated to keep the timeline small: {parts.join(', ')}.{' '}
      {full?.gone ? (
        <span>{full.gone}</span>
      ) : (
        <button type="button" className="link" disabled={full !== undefined} onClick={() => void load(event)}>
          {full ? 'Loading…' : 'Load full body'}
        </button>
      )}
    </p>
  );
}

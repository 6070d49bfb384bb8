import type { JSX } from 'react';
import type { TrafficEvent } from '../../../../../shared/api.js';
import { messageSummary } from './message-summary.js';

const ms = (n: number | undefined): string => (n === undefined ? '—' : `${n < 10 ? n.toFixed(1) : Math.round(n)} ms`);

/** When each step of the exchange happened, then each streamed message, with a bar on the exchange's span. */
export function TimingTable({ event }: { event: TrafficEvent }): JSX.Element {
  const t = event.timing;
  const steps: Array<[string, number | undefined]> = [
    ['received from the client', 0],
    ['sent upstream', t?.sentUpstream],
    ['first byte from upstream', t?.firstByte],
    ['answered', event.response ? event.durationMs : undefined],
  ];
  const span = Math.max(event.durationMs, 1);
  return (
    <table className="grid timing" aria-label="Timing">
      <tbody>
        {steps.map(([name, at]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td className="num">{ms(at)}</td>
            <td className="bar-cell">
              {at !== undefined && <span className="tbar" style={{ width: `${Math.max(1, (at / span) * 100)}%` }} />}
            </td>
          </tr>
        ))}
        {event.stream.map((m, i) => (
          <tr key={`s${i}`} className="muted">
            <th scope="row">↳ {messageSummary(m)}</th>
            <td className="num">{ms(t?.stream?.[i])}</td>
            <td className="bar-cell">
              {t?.stream?.[i] !== undefined && (
                <span className="tbar stream" style={{ width: `${Math.max(1, (t.stream[i] / span) * 100)}%` }} />
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

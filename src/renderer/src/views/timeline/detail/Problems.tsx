import type { JSX } from 'react';
import type { TrafficEvent } from '../../../../../shared/api.js';
import { RULES } from '../../../../../shared/insight/findings.js';

/** The insight checks' findings on an exchange: severity, rule, where (a JSON path), what, and the spec section. */
export function Problems({ event }: { event: TrafficEvent }): JSX.Element {
  const problems = event.insight?.problems;
  if (!event.insight) return <p className="muted">Checking…</p>;
  if (!problems?.length)
    return (
      <p className="muted">
        No problem found: the messages match the protocol’s schemas for {event.protocolVersion ?? 'their revision'}, and
        no security warning.
      </p>
    );
  return (
    <ol className="problems" aria-label="Problems">
      {problems.map((p, i) => (
        <li key={i} className={`problem pb-${p.severity}`}>
          <div className="problem-head">
            <span className={`problem-sev pb-${p.severity}`}>{p.severity}</span>{' '}
            <code className="problem-id">{p.id}</code> <span className="problem-title small">{RULES[p.id]?.title}</span>{' '}
            <a href={p.spec} target="_blank" rel="noreferrer noopener" className="small">
              spec
            </a>
          </div>
          <div className="problem-msg">{p.message}</div>
          <div className="problem-path small muted">
            at <code>{p.path}</code>
          </div>
          {p.detail && <pre className="problem-detail">{p.detail}</pre>}
        </li>
      ))}
    </ol>
  );
}

import { Name } from '../../../components/Name.js';
import type { JSX } from 'react';
import type { TrafficEvent } from '../../../../../shared/api.js';
import { useTraffic } from '../../../stores/traffic.js';
import { useVerbs } from '../../../stores/verbs.js';
import { formatTime, sourceKind, statusLabel } from '../model.js';
import { sentByLabel } from '../sessions.js';
import { useTimelineUi } from '../../../stores/timeline-ui.js';

const ms = (n: number | undefined): string => (n === undefined ? '—' : `${n < 10 ? n.toFixed(1) : Math.round(n)} ms`);

/** A one-line summary of a streamed message: its method and what it says (progress, a log line…). */
export function messageSummary(message: unknown): string {
  const m = message as {
    method?: string;
    id?: unknown;
    params?: Record<string, unknown>;
    result?: unknown;
    error?: { message?: string };
  };
  if (!m.method) return m.error ? `reply (error: ${m.error.message ?? ''})` : 'reply';
  const p = m.params ?? {};
  if (m.method === 'notifications/progress')
    return `progress ${String(p.progress)}${p.total !== undefined ? `/${String(p.total)}` : ''}${p.message ? ` · ${String(p.message)}` : ''}`;
  if (m.method === 'notifications/message')
    return `${String(p.level ?? 'log')}: ${typeof p.data === 'string' ? p.data : JSON.stringify(p.data)}`;
  return `${m.method}${m.id !== undefined ? ' (request)' : ''}`;
}

/** The exchange at a glance: who, what, where from, and when each step happened. */
export function Overview({ event, proxyName }: { event: TrafficEvent; proxyName: string }): JSX.Element {
  const t = event.timing;
  const note = useVerbs((s) => s.marks[event.seq]?.note);
  const { select, compare, setDetailTab } = useTimelineUi();
  const original = event.sentBy?.from;
  const openOriginal = (seq: number): void => {
    if (useTraffic.getState().exchanges.some((e) => e.seq === seq)) select(seq, true);
  };
  const steps: Array<[string, number | undefined]> = [
    ['received from the client', 0],
    ['sent upstream', t?.sentUpstream],
    ['first byte from upstream', t?.firstByte],
    ['answered', event.response ? event.durationMs : undefined],
  ];
  const span = Math.max(event.durationMs, 1);
  return (
    <div className="overview">
      <dl className="kv">
        <dt>Method</dt>
        <dd>
          <code>
            <Name value={event.method} />
          </code>
        </dd>
        {event.tool && (
          <>
            <dt>Tool</dt>
            <dd>
              <code>
                <Name value={event.tool} />
              </code>
            </dd>
          </>
        )}
        <dt>Status</dt>
        <dd>
          {statusLabel(event)}
          {!event.response && event.finalReason ? <span className="muted"> — {event.finalReason}</span> : null}
        </dd>
        <dt>Source</dt>
        <dd>
          {sourceKind(event)}
          {event.cassette !== 'none' ? ` · cassette ${event.cassette}` : ''}
        </dd>
        <dt>Proxy</dt>
        <dd>{proxyName}</dd>
        <dt>Session</dt>
        <dd>{event.sessionId ? <code>{event.sessionId}</code> : '—'}</dd>
        <dt>Protocol version</dt>
        <dd>{event.protocolVersion ?? '—'}</dd>
        <dt>Context cost</dt>
        <dd>
          {event.insight?.tokens !== undefined
            ? `${event.insight.tokens.toLocaleString('en-US')} tokens (o200k_base)`
            : '—'}
        </dd>
        <dt>Problems</dt>
        <dd>
          {!event.insight
            ? 'checking…'
            : event.insight.problems.length
              ? `⚠ ${event.insight.problems.length}: ${[...new Set(event.insight.problems.map((p) => p.id))].join(', ')} (see Problems)`
              : 'none'}
        </dd>
        <dt>Key</dt>
        <dd>
          <code>
            <Name value={event.key} />
          </code>
        </dd>
        <dt>Started</dt>
        <dd>{formatTime(event.startedAt)}</dd>
        {event.sentBy && (
          <>
            <dt>Sent by</dt>
            <dd>
              the app, on its own session: {sentByLabel(event.sentBy)}{' '}
              {original !== undefined && (
                <>
                  <button
                    type="button"
                    className="link"
                    onClick={() => (compare(undefined), setDetailTab('diff'))}
                    title="The original and this one, side by side"
                  >
                    compare with #{original}
                  </button>{' '}
                  ·{' '}
                  <button type="button" className="link" onClick={() => openOriginal(original)}>
                    open #{original}
                  </button>
                </>
              )}
            </dd>
          </>
        )}
        {note && (
          <>
            <dt>Note</dt>
            <dd className="note">{note}</dd>
          </>
        )}
        {event.flags && event.flags.length > 0 && (
          <>
            <dt>Flags</dt>
            <dd className="flag">⚑ {event.flags.join(', ')}</dd>
          </>
        )}
      </dl>
      <h3>Timing</h3>
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
      <h3>HTTP</h3>
      {event.http ? (
        <>
          <p className="small">
            upstream answered <strong>HTTP {event.http.status}</strong>
          </p>
          <dl className="kv headers" aria-label="Response headers">
            {Object.entries(event.http.headers).map(([name, value]) => (
              <div key={name} className="kv-row">
                <dt>{name}</dt>
                <dd>
                  <code>{Array.isArray(value) ? value.join(', ') : value}</code>
                </dd>
              </div>
            ))}
          </dl>
        </>
      ) : (
        <p className="muted small">
          No upstream HTTP exchange: answered by the{' '}
          {event.source === 'cache' ? 'cassette' : 'proxy (a rule, a breakpoint, or no upstream)'}.
        </p>
      )}
    </div>
  );
}

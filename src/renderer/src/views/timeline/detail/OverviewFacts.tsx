import type { JSX } from 'react';
import type { TrafficEvent } from '../../../../../shared/api.js';
import { Name } from '../../../components/Name.js';
import { useVerbs } from '../../../stores/verbs.js';
import { formatTime, sourceKind, statusLabel } from '../model.js';
import { sentByLabel } from '../sessions.js';
import { useSentBy } from './use-sent-by.js';

/** The context cost and the problems the insight found (still checking until it arrives). */
function InsightFacts({ event }: { event: TrafficEvent }): JSX.Element {
  return (
    <>
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
    </>
  );
}

/** An exchange the app sent on its own session: which, and (for a resent one) links to its original. */
function SentByFact({ event }: { event: TrafficEvent }): JSX.Element {
  const { original, compareWithOriginal, openOriginal } = useSentBy(event);
  return (
    <>
      <dt>Sent by</dt>
      <dd>
        the app, on its own session: {sentByLabel(event.sentBy)}{' '}
        {original !== undefined && (
          <>
            <button
              type="button"
              className="link"
              onClick={compareWithOriginal}
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
  );
}

/** The user's note and the exchange's flags, when it has them. */
function NoteAndFlags({ event }: { event: TrafficEvent }): JSX.Element {
  const note = useVerbs((s) => s.marks[event.seq]?.note);
  return (
    <>
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
    </>
  );
}

/** Who, what and where from: the exchange's facts as a description list. */
export function OverviewFacts({ event, proxyName }: { event: TrafficEvent; proxyName: string }): JSX.Element {
  return (
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
      <InsightFacts event={event} />
      <dt>Key</dt>
      <dd>
        <code>
          <Name value={event.key} />
        </code>
      </dd>
      <dt>Started</dt>
      <dd>{formatTime(event.startedAt)}</dd>
      {event.sentBy && <SentByFact event={event} />}
      <NoteAndFlags event={event} />
    </dl>
  );
}

import type { JSX } from 'react';
import type { TrafficEvent } from '../../../../../shared/api.js';
import { OverviewFacts } from './OverviewFacts.js';
import { TimingTable } from './TimingTable.js';

/** The upstream's HTTP status and response headers, or what answered instead. */
function HttpSection({ event }: { event: TrafficEvent }): JSX.Element {
  return event.http ? (
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
  );
}

/** The exchange at a glance: who, what, where from, and when each step happened. */
export function Overview({ event, proxyName }: { event: TrafficEvent; proxyName: string }): JSX.Element {
  return (
    <div className="overview">
      <OverviewFacts event={event} proxyName={proxyName} />
      <h3>Timing</h3>
      <TimingTable event={event} />
      <h3>HTTP</h3>
      <HttpSection event={event} />
    </div>
  );
}

import { Name } from '../../components/Name.js';
import { useEffect, useMemo, useState, type JSX } from 'react';
import type { PausedCall } from '../../../../shared/breakpoints.js';
import { useBreakpoints } from '../../stores/breakpoints.js';
import { useNavigation } from '../../stores/navigation.js';
import { usePanels } from '../../stores/panels.js';
import { useProxies } from '../../stores/proxies.js';

export const STAGE_LABELS = { request: 'before request', response: 'before response' } as const;

/** `echo`, `resources/read file:///a.txt`, `tools/list`: what a held call is, as the banner and the drawer name it */
export const heldTitle = (call: Pick<PausedCall, 'method' | 'tool'>): string =>
  !call.method || call.method === 'tools/call' ? call.tool : `${call.method}${call.tool ? ` ${call.tool}` : ''}`;

/** The current time, ticking every second while `active` (for countdowns). */
export function useNow(active = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}

/**
 * "0:45": the time left before a paused call resumes by itself — never more than its hold: `now` ticks only while a
 * countdown shows, so a new hold's first render may see the time the last countdown stopped at (it read 5:03 for 5:00).
 */
export function timeLeft(call: Pick<PausedCall, 'timeoutAt' | 'since'>, now: number): string {
  const s = Math.max(0, Math.round(Math.min(call.timeoutAt - now, call.timeoutAt - call.since) / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * A paused call, in every view: which call, which proxy, the time left before it resumes unchanged by itself, and
 * Resume / Fail / Open (the editor in the Breakpoints drawer of the Timeline). From the agent's side a paused call is
 * a hang: this banner is what says why.
 */
export function BreakpointBanner(): JSX.Element | null {
  const paused = useBreakpoints((s) => s.paused);
  const resume = useBreakpoints((s) => s.resume);
  const fail = useBreakpoints((s) => s.fail);
  const proxies = useProxies((s) => s.proxies);
  const names = useMemo(() => new Map(proxies.map((p) => [p.id, p.name])), [proxies]);
  const now = useNow(paused.length > 0);
  const [error, setError] = useState<string>();
  if (paused.length === 0) return null;
  const shown = paused.slice(0, 3);
  const act = (action: Promise<void>): void => {
    setError(undefined);
    action.catch((e: Error) => setError(e.message));
  };
  const open = (call: PausedCall): void => {
    useNavigation.getState().select('timeline');
    usePanels.getState().openBreakpoints(call.id);
  };
  return (
    <section className="bp-banner" role="region" aria-label="Paused calls" aria-live="polite">
      {shown.map((call) => (
        <div key={call.id} className="bp-banner-row" data-paused-id={call.id}>
          <span aria-hidden="true" className="pause-mark">
            ‖
          </span>
          <span>
            <strong>
              <code>
                <Name value={heldTitle(call)} />
              </code>
            </strong>{' '}
            held {STAGE_LABELS[call.stage]} on <strong>{names.get(call.proxyId ?? '') ?? call.proxyId}</strong>
          </span>
          <span>
            resumes unchanged in <span className="countdown">{timeLeft(call, now)}</span>
          </span>
          <span className="spacer" />
          <button type="button" onClick={() => act(resume(call.id))} aria-label={`Resume ${heldTitle(call)}`}>
            Resume
          </button>
          <button type="button" onClick={() => act(fail(call.id))} aria-label={`Fail ${heldTitle(call)}`}>
            Fail
          </button>
          <button type="button" onClick={() => open(call)} aria-label={`Open ${heldTitle(call)}`}>
            Open
          </button>
        </div>
      ))}
      {paused.length > shown.length && (
        <div className="small">and {paused.length - shown.length} more paused: open the Breakpoints drawer</div>
      )}
      {error && (
        <div role="alert" className="error small">
          {error}
        </div>
      )}
    </section>
  );
}

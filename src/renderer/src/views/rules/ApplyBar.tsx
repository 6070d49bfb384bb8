import type { JSX } from 'react';
import { useRules } from '../../stores/rules.js';
import type { DraftCheck } from '../../models/rules-form.js';
import './rules.css';

/** Apply sends the draft (only when valid) with rules.set; the engine answers how many clients it notified. */
export function ApplyBar({ check, running }: { check: DraftCheck; running: boolean }): JSX.Element {
  const { apply, applying, dirty, notified, error, proxyId, load } = useRules();
  const invalid = check.rules === undefined;
  return (
    <section className="card rules-apply" aria-label="Apply rules">
      <button
        type="button"
        className="primary"
        disabled={invalid || applying || !dirty}
        onClick={() => check.rules && void apply(check.rules)}
      >
        {applying ? 'Applying…' : 'Apply'}
      </button>
      <button
        type="button"
        disabled={!proxyId || applying}
        onClick={() => proxyId && void load(proxyId)}
        title="reload the merged tool list (keeps an unapplied draft)"
      >
        Refresh
      </button>
      {invalid && (
        <span className="field-error" role="alert" data-testid="rules-invalid">
          Not valid: {check.summary}
        </span>
      )}
      {!invalid && dirty && <span className="muted small">unapplied changes</span>}
      {!dirty && notified !== undefined && (
        <span className="muted" role="status" data-testid="rules-notified">
          Applied: sent tools/list_changed to {notified} client{notified === 1 ? '' : 's'}
          {running ? '' : ' (the proxy is stopped: the rules apply at its next start)'}
        </span>
      )}
      {error && (
        <span className="field-error" role="alert">
          {error}
        </span>
      )}
    </section>
  );
}

import { Name } from '../../components/Name.js';
import { useFocusReturn } from '../../components/focus.js';
import { useEffect, useMemo, useRef, useState, type JSX } from 'react';
import {
  EVERY_PROXY,
  USUAL_CLIENT_TIMEOUT_S,
  breakpointTarget,
  breakpointText,
  type PausedCall,
} from '../../../../shared/breakpoints.js';
import { useBreakpoints } from '../../stores/breakpoints.js';
import { usePanels } from '../../stores/panels.js';
import { useProxies } from '../../stores/proxies.js';
import { JsonEditor } from '../../components/JsonEditor.js';
import { problemText, useSchemaProblems, useToolSchema } from '../../hooks/tool-schema.js';
import { STAGE_LABELS, heldTitle, timeLeft, useNow } from './BreakpointBanner.js';
import { checkEdit } from './validate.js';
import { AddBreakpoint } from './AddBreakpoint.js';
import { conditionText } from '../../../../shared/conditions.js';
import { shortSession } from '../timeline/sessions.js';
import './breakpoints.css';

/** The breakpoints of every proxy, each removable. */
function RuleList({ names }: { names: Map<string, string> }): JSX.Element | null {
  const rules = useBreakpoints((s) => s.rules);
  const remove = useBreakpoints((s) => s.remove);
  const entries = Object.entries(rules).filter(([, list]) => list.length > 0);
  if (entries.length === 0)
    return <p className="muted small">No breakpoints. Add one to pause matching requests or results.</p>;
  return (
    <ul className="bp-rules" aria-label="Breakpoint list">
      {entries.flatMap(([proxyId, list]) =>
        list.map((rule) => (
          <li key={`${proxyId}:${rule.id}`} className="bp-rule">
            <span className="bp-proxy">
              {proxyId === EVERY_PROXY ? 'Every proxy' : (names.get(proxyId) ?? proxyId)}
            </span>
            <code>
              {rule.tool === '*' && !rule.method ? '* (every tool)' : <Name value={breakpointTarget(rule)} />}
            </code>
            <span className="muted">{STAGE_LABELS[rule.when]}</span>
            <button
              type="button"
              className="small"
              aria-label={`Remove breakpoint ${breakpointText(rule)} ${STAGE_LABELS[rule.when]}`}
              onClick={() => void remove(proxyId, rule.id)}
            >
              Remove
            </button>
            {rule.condition && (
              <code className="bp-if">
                if <Name value={conditionText(rule.condition)} />
              </code>
            )}
          </li>
        )),
      )}
    </ul>
  );
}

/** How long a call is held, beside what clients usually wait: a hold past their timeout looks like a failure to them. */
function HoldNote(): JSX.Element | null {
  const holdS = useBreakpoints((s) => s.holdS);
  if (holdS === undefined) return null;
  return (
    <p className={holdS >= USUAL_CLIENT_TIMEOUT_S ? 'warning small' : 'muted small'} data-testid="bp-hold">
      A held call resumes unchanged after {holdS} s (Settings: Breakpoint hold). Most MCP clients give up after{' '}
      {USUAL_CLIENT_TIMEOUT_S} s (the SDK&apos;s default request timeout; a client does not say its own)
      {holdS >= USUAL_CLIENT_TIMEOUT_S ? ': this hold outlasts it.' : '.'} A call the client cancels or leaves is
      released at once.
    </p>
  );
}

/** One paused call: its arguments or result in a JSON editor, Resume (with the edit) or Fail. */
function PausedCard({ call, proxyName, now }: { call: PausedCall; proxyName: string; now: number }): JSX.Element {
  const resume = useBreakpoints((s) => s.resume);
  const fail = useBreakpoints((s) => s.fail);
  const method = call.method ?? 'tools/call';
  const toolCall = method === 'tools/call';
  const original = useMemo(
    () =>
      JSON.stringify(
        call.stage === 'request' ? ((toolCall ? call.arguments : call.params) ?? {}) : (call.result ?? {}),
        null,
        2,
      ),
    [call, toolCall],
  );
  const [text, setText] = useState(original);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const checked = checkEdit(text, call.stage, call.protocolVersion, method);
  const what = call.stage === 'request' ? (toolCall ? 'arguments' : 'params') : 'result';
  const title = heldTitle(call);
  // arguments that break the tool's input schema (as its proxy listed it) are flagged by the engine's check (ajv);
  // the server stays the judge
  const schema = useToolSchema(
    call.stage === 'request' && toolCall ? call.tool : undefined,
    [call.proxyId],
    call.proxyId,
  );
  const schemaProblems = useSchemaProblems(
    schema,
    checked.ok ? checked.value : undefined,
    checked.ok && call.stage === 'request',
  ).map(problemText);

  async function run(action: () => Promise<void>): Promise<void> {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  }

  const onResume = (): Promise<void> =>
    run(() => {
      if (!checked.ok) throw new Error(checked.message);
      const edited = text !== original;
      if (!edited) return resume(call.id);
      if (call.stage === 'response') return resume(call.id, { result: checked.value });
      return resume(call.id, toolCall ? { arguments: checked.value } : { params: checked.value });
    });

  return (
    <article className="bp-paused" aria-label={`Paused ${title} ${STAGE_LABELS[call.stage]}`} data-paused-id={call.id}>
      <header>
        <span className="bp-badge">
          {call.reply ? 'client reply held' : call.stage === 'request' ? 'request held' : 'result held'}
        </span>
        <code className="bp-tool">
          <Name value={title} />
        </code>
        <span className="muted">
          {proxyName}
          {call.sessionId ? ` · session ${shortSession(call.sessionId)}` : ''} · paused{' '}
          {new Date(call.since).toLocaleTimeString()} · resumes unchanged in {timeLeft(call, now)}
        </span>
        {call.matched && (
          <span className="bp-matched small" data-testid="bp-matched">
            held by <Name value={call.matched} />
          </span>
        )}
      </header>
      <JsonEditor
        value={original}
        onChange={setText}
        label={`${title} ${what}`}
        maxHeight="260px"
        className="bp-editor"
      />
      <div className="bp-actions">
        {checked.ok && schemaProblems.length > 0 ? (
          <span className="warning small" role="alert">
            against the tool&apos;s input schema: {schemaProblems.join('; ')}
          </span>
        ) : checked.ok ? (
          <span className="muted small">{text === original ? `${what} unchanged` : `edited ${what}: valid`}</span>
        ) : (
          <span className="error small" role="alert">
            {checked.message}
          </span>
        )}
        <span className="bp-spacer" />
        <input
          aria-label="Failure message"
          className="bp-message"
          placeholder="failure message (optional)"
          value={message}
          onChange={(e) => setMessage(e.target.value)}
        />
        <button
          type="button"
          disabled={busy}
          onClick={() => void run(() => fail(call.id, message.trim() || undefined))}
        >
          Fail
        </button>
        <button type="button" className="primary" disabled={busy || !checked.ok} onClick={() => void onResume()}>
          Resume
        </button>
      </div>
      {error && (
        <p role="alert" className="error small">
          {error}
        </p>
      )}
    </article>
  );
}

/**
 * The Breakpoints drawer beside the traffic: add and remove tools/call breakpoints per proxy, and edit, resume or
 * fail the calls paused now (the one opened from the banner first).
 */
export function BreakpointsDrawer(): JSX.Element | null {
  const open = usePanels((s) => s.breakpoints);
  const focus = usePanels((s) => s.focusPaused);
  const close = usePanels((s) => s.closeBreakpoints);
  const proxies = useProxies((s) => s.proxies);
  const paused = useBreakpoints((s) => s.paused);
  const error = useBreakpoints((s) => s.error);
  const names = useMemo(() => new Map(proxies.map((p) => [p.id, p.name])), [proxies]);
  const now = useNow(open && paused.length > 0);
  const body = useRef<HTMLDivElement>(null);
  // Esc or ✕ gives the focus back to what opened the drawer (the Breakpoints button, a banner's Open, a held row)
  useFocusReturn(open, () => document.querySelector<HTMLElement>('.proxies-head [aria-haspopup="dialog"]'));

  useEffect(() => {
    if (!open) return;
    const target = focus
      ? body.current?.querySelector<HTMLElement>(`[data-paused-id="${CSS.escape(focus)}"]`)
      : undefined;
    (target ?? body.current?.querySelector<HTMLElement>('input, select, button'))?.focus({ preventScroll: false });
    target?.scrollIntoView({ block: 'nearest' });
  }, [open, focus]);

  if (!open) return null;
  const ordered = focus ? [...paused.filter((c) => c.id === focus), ...paused.filter((c) => c.id !== focus)] : paused;
  return (
    <aside
      className="drawer bp-panel"
      aria-label="Breakpoints"
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !(e.target as HTMLElement).closest('.cm-editor')) {
          e.stopPropagation();
          close();
        }
      }}
    >
      <header>
        <h2>Breakpoints</h2>
        {paused.length > 0 && (
          <span className="bp-count" data-testid="paused-count">
            {paused.length} paused
          </span>
        )}
        <span className="spacer" />
        <button type="button" onClick={close} aria-label="Close breakpoints" title="Close (Esc)">
          ✕
        </button>
      </header>
      <div className="drawer-body" ref={body}>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        {/* the calls held now come first: they are what a client waits on */}
        {ordered.length > 0 && (
          <div className="bp-paused-list" aria-label="Paused calls">
            {ordered.map((call) => (
              <PausedCard
                key={call.id}
                call={call}
                proxyName={names.get(call.proxyId ?? '') ?? call.proxyId ?? ''}
                now={now}
              />
            ))}
          </div>
        )}
        {proxies.length === 0 ? (
          <p className="muted small">Create a proxy first: breakpoints belong to a proxy.</p>
        ) : (
          <AddBreakpoint />
        )}
        <RuleList names={names} />
        <HoldNote />
      </div>
    </aside>
  );
}

import { Name } from '../../components/Name.js';
import { useFocusReturn } from '../../components/focus.js';
import { useEffect, useMemo, useRef, useState, type FormEvent, type JSX } from 'react';
import { USUAL_CLIENT_TIMEOUT_S, type BreakpointStage, type PausedCall } from '../../../../shared/breakpoints.js';
import { useBreakpoints } from '../../stores/breakpoints.js';
import { usePanels } from '../../stores/panels.js';
import { useProxies } from '../../stores/proxies.js';
import { JsonEditor } from '../../components/JsonEditor.js';
import { problemText, useSchemaProblems, useToolSchema } from '../../hooks/tool-schema.js';
import { STAGE_LABELS, timeLeft, useNow } from './BreakpointBanner.js';
import { checkEdit } from './validate.js';
import { shortSession } from '../timeline/sessions.js';
import './breakpoints.css';

/** Add a breakpoint to a proxy: a tool name (or * for every tool), before the request or before the response. */
function AddBreakpoint(): JSX.Element {
  const proxies = useProxies((s) => s.proxies);
  const add = useBreakpoints((s) => s.add);
  const [proxyId, setProxyId] = useState('');
  const [tool, setTool] = useState('');
  const [when, setWhen] = useState<BreakpointStage>('request');
  const [error, setError] = useState<string>();
  const target = proxies.some((p) => p.id === proxyId) ? proxyId : (proxies[0]?.id ?? '');

  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault();
    setError(undefined);
    try {
      await add(target, { tool: tool.trim(), when });
      setTool('');
    } catch (e) {
      setError((e as Error).message);
    }
  }

  return (
    <form className="bp-add" aria-label="Add breakpoint" onSubmit={(e) => void submit(e)}>
      <label>
        Proxy
        <select value={target} onChange={(e) => setProxyId(e.target.value)}>
          {proxies.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Tool
        <input
          value={tool}
          onChange={(e) => setTool(e.target.value)}
          placeholder="tool name, or * for all"
          spellCheck={false}
        />
      </label>
      <label>
        When
        <select value={when} onChange={(e) => setWhen(e.target.value as BreakpointStage)}>
          <option value="request">{STAGE_LABELS.request}</option>
          <option value="response">{STAGE_LABELS.response}</option>
        </select>
      </label>
      <button type="submit" disabled={!target || tool.trim() === ''}>
        Add breakpoint
      </button>
      {error && (
        <span role="alert" className="error">
          {error}
        </span>
      )}
    </form>
  );
}

/** The breakpoints of every proxy, each removable. */
function RuleList({ names }: { names: Map<string, string> }): JSX.Element | null {
  const rules = useBreakpoints((s) => s.rules);
  const remove = useBreakpoints((s) => s.remove);
  const entries = Object.entries(rules).filter(([, list]) => list.length > 0);
  if (entries.length === 0)
    return <p className="muted small">No breakpoints. Add one to pause matching tools/call requests or results.</p>;
  return (
    <ul className="bp-rules" aria-label="Breakpoint list">
      {entries.flatMap(([proxyId, list]) =>
        list.map((rule) => (
          <li key={`${proxyId}:${rule.id}`} className="bp-rule">
            <span className="bp-proxy">{names.get(proxyId) ?? proxyId}</span>
            <code>{rule.tool === '*' ? '* (every tool)' : <Name value={rule.tool} />}</code>
            <span className="muted">{STAGE_LABELS[rule.when]}</span>
            <button
              type="button"
              className="small"
              aria-label={`Remove breakpoint ${rule.tool} ${STAGE_LABELS[rule.when]}`}
              onClick={() => void remove(proxyId, rule.id)}
            >
              Remove
            </button>
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
  const original = useMemo(
    () => JSON.stringify(call.stage === 'request' ? (call.arguments ?? {}) : (call.result ?? {}), null, 2),
    [call],
  );
  const [text, setText] = useState(original);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const checked = checkEdit(text, call.stage, call.protocolVersion);
  const what = call.stage === 'request' ? 'arguments' : 'result';
  // arguments that break the tool's input schema (as its proxy listed it) are flagged by the engine's check (ajv);
  // the server stays the judge
  const schema = useToolSchema(call.stage === 'request' ? call.tool : undefined, [call.proxyId], call.proxyId);
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
      return resume(call.id, call.stage === 'request' ? { arguments: checked.value } : { result: checked.value });
    });

  return (
    <article
      className="bp-paused"
      aria-label={`Paused ${call.tool} ${STAGE_LABELS[call.stage]}`}
      data-paused-id={call.id}
    >
      <header>
        <span className="bp-badge">{call.stage === 'request' ? 'request held' : 'result held'}</span>
        <code className="bp-tool">
          <Name value={call.tool} />
        </code>
        <span className="muted">
          {proxyName}
          {call.sessionId ? ` · session ${shortSession(call.sessionId)}` : ''} · paused{' '}
          {new Date(call.since).toLocaleTimeString()} · resumes unchanged in {timeLeft(call, now)}
        </span>
      </header>
      <JsonEditor
        value={original}
        onChange={setText}
        label={`${call.tool} ${what}`}
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
        {proxies.length === 0 ? (
          <p className="muted small">Create a proxy first: breakpoints belong to a proxy.</p>
        ) : (
          <AddBreakpoint />
        )}
        <RuleList names={names} />
        <HoldNote />
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
      </div>
    </aside>
  );
}
